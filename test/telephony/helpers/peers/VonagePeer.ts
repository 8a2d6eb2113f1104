/**
 * A test peer that behaves like Vonage's side of a Voice API WebSocket, from Vonage's WebSocket
 * guide: its first message is the text `websocket:connected` with the `content-type`
 * (`audio/l16;rate=8000|16000`) and the NCCO endpoint's headers as fields; then audio is binary
 * little-endian L16 in 20 ms frames both ways. A binary frame of another size is a violation (not
 * played); frames beyond Vonage's 3072-frame buffer are violations (dropped). `notify` is
 * answered by `websocket:notify` with the same payload once the audio before it has played;
 * `clear` drops buffered audio and is answered by `websocket:cleared`. Vonage does not say what
 * happens to a notify still waiting when audio is cleared: this peer answers it at once, before
 * `websocket:cleared` (as Twilio answers its marks).
 */
import { l16Decode, l16Encode } from '../../../../src/dsp/l16.js';
import type { ManualClock } from '../ManualClock.js';
import { PlaybackPeer } from './PlaybackPeer.js';

export interface VonagePeerOptions {
  /** @defaultValue 16000 */
  sampleRate?: 8000 | 16000;
  /** The NCCO endpoint's `headers`: sent as fields of `websocket:connected`. */
  headers?: Record<string, string>;
}

const FRAME_MS = 20;
const MAX_BUFFERED_FRAMES = 3072;

export class VonagePeer extends PlaybackPeer {
  readonly frameBytes: number;
  /** Notify payloads, by the name we key them on (the payload itself is echoed). */
  private payloads = new Map<string, unknown>();
  private notifySeq = 0;

  private constructor(ws: import('ws').WebSocket, clock: ManualClock, sampleRate: number) {
    super(ws, clock, { sampleRate, bytesPerSample: 2, decode: (b) => l16Decode(b, 'le') }, 'answer');
    this.frameBytes = (sampleRate / 1000) * FRAME_MS * 2;
  }

  static async connect(url: string, clock: ManualClock, options: VonagePeerOptions = {}): Promise<VonagePeer> {
    const sampleRate = options.sampleRate ?? 16000;
    const ws = await PlaybackPeer.open(url);
    const peer = new VonagePeer(ws, clock, sampleRate);
    peer.sendJson({ event: 'websocket:connected', 'content-type': `audio/l16;rate=${sampleRate}`, ...(options.headers ?? {}) });
    return peer;
  }

  /** Caller audio: s16 cut into 20 ms binary frames (the last one padded with silence). */
  sendAudio(pcm: Int16Array): void {
    const samples = this.frameBytes / 2;
    for (let i = 0; i < pcm.length; i += samples) {
      const frame = new Int16Array(samples);
      frame.set(pcm.subarray(i, Math.min(pcm.length, i + samples)));
      this.ws.send(l16Encode(frame, 'le'), { binary: true });
    }
  }
  sendDtmf(digit: string, duration = 260): void {
    this.sendJson({ event: 'websocket:dtmf', digit, duration });
  }

  protected onBinary(data: Buffer): void {
    if (data.length !== this.frameBytes) {
      this.violations.push(`audio frame of ${data.length} bytes; expected ${this.frameBytes}`);
      return;
    }
    if (this.bufferedMs / FRAME_MS >= MAX_BUFFERED_FRAMES) {
      this.violations.push(`audio frame beyond the ${MAX_BUFFERED_FRAMES}-frame buffer`);
      return;
    }
    this.play(Buffer.from(data));
  }

  protected onText(m: Record<string, unknown>): void {
    switch (m['action']) {
      case 'notify': {
        const payload = m['payload'];
        if (typeof payload !== 'object' || payload === null) {
          this.violations.push('notify: payload must be an object');
          return;
        }
        const name = typeof (payload as { name?: unknown }).name === 'string' ? (payload as { name: string }).name : `#${this.notifySeq++}`;
        this.payloads.set(name, payload);
        this.requestAck(name);
        return;
      }
      case 'clear':
        this.clearPlayback();
        this.sendJson({ event: 'websocket:cleared' });
        return;
      default:
        this.violations.push(`unknown action ${JSON.stringify(m['action'])}`);
    }
  }

  protected sendAck(name: string): void {
    const payload = this.payloads.get(name) ?? {};
    this.payloads.delete(name);
    this.sendJson({ event: 'websocket:notify', payload });
  }
}
