/**
 * A test peer that behaves like Exotel's side of a Voicebot (bidirectional) stream, from
 * Exotel's stream and Voicebot applet docs: it sends `connected` then `start` (stream sid, call
 * sid, custom parameters, `audio/x-raw` 16-bit at the stream rate), plays `media` (base64 raw
 * s16le) in real time, echoes each `mark` once the audio before it has played, and on `clear`
 * drops buffered audio. A media chunk that breaks Exotel's size rule (a multiple of 320 bytes,
 * from 3.2 KB to 100 KB) is a violation and is not played. Exotel does not say what happens to a
 * mark still waiting at a clear: this peer echoes it at once (as Twilio does).
 */
import { l16Decode } from '../../../../src/dsp/l16.js';
import type { ManualClock } from '../ManualClock.js';
import { PlaybackPeer, decodePayload } from './PlaybackPeer.js';

export interface ExotelPeerOptions {
  /** @defaultValue 8000 */
  sampleRate?: 8000 | 16000 | 24000;
  streamSid?: string;
  callSid?: string;
  customParameters?: Record<string, string>;
  sendStart?: boolean;
}

const CHUNK_MULTIPLE = 320;
const MIN_CHUNK = 3200;
const MAX_CHUNK = 100_000;

export class ExotelPeer extends PlaybackPeer {
  private seq = 1;
  private chunk = 1;

  private constructor(
    ws: import('ws').WebSocket,
    clock: ManualClock,
    readonly streamSid: string,
    private readonly options: ExotelPeerOptions,
  ) {
    super(ws, clock, { sampleRate: options.sampleRate ?? 8000, bytesPerSample: 2, decode: (b) => l16Decode(b, 'le') }, 'answer');
  }

  static async connect(url: string, clock: ManualClock, options: ExotelPeerOptions = {}): Promise<ExotelPeer> {
    const ws = await PlaybackPeer.open(url);
    const peer = new ExotelPeer(ws, clock, options.streamSid ?? 'MZ0000000000000000000000000001', options);
    peer.sendJson({ event: 'connected' });
    if (options.sendStart !== false) peer.sendStart();
    return peer;
  }

  sendStart(): void {
    this.sendJson({
      event: 'start',
      sequence_number: String(this.seq++),
      stream_sid: this.streamSid,
      start: {
        stream_sid: this.streamSid,
        call_sid: this.options.callSid ?? 'CA0000000000000000000000000001',
        account_sid: 'AC0000000000000000000000000001',
        from: '+919800000000',
        to: '+918000000000',
        custom_parameters: this.options.customParameters ?? {},
        media_format: { encoding: 'audio/x-raw', sample_rate: String(this.format.sampleRate), bit_rate: '16' },
      },
    });
  }

  /** Caller audio (s16le bytes). */
  sendMedia(bytes: Uint8Array): void {
    this.sendJson({
      event: 'media',
      sequence_number: String(this.seq++),
      stream_sid: this.streamSid,
      media: {
        chunk: String(this.chunk++),
        timestamp: String(Math.round(this.clock.now())),
        payload: Buffer.from(bytes).toString('base64'),
      },
    });
  }
  sendDtmf(digit: string): void {
    this.sendJson({ event: 'dtmf', sequence_number: String(this.seq++), stream_sid: this.streamSid, dtmf: { digit, duration: '100' } });
  }
  sendStop(): void {
    this.sendJson({
      event: 'stop',
      sequence_number: String(this.seq++),
      stream_sid: this.streamSid,
      stop: { call_sid: 'CA', reason: 'callended' },
    });
  }

  protected onText(m: Record<string, unknown>): void {
    if (m['stream_sid'] !== this.streamSid) {
      this.violations.push(`${String(m['event'])}: wrong or missing stream_sid`);
      return;
    }
    switch (m['event']) {
      case 'media': {
        const bytes = decodePayload(this, (m['media'] as Record<string, unknown> | undefined)?.['payload'], 2, 'media');
        if (bytes === null) return;
        const n = bytes.length;
        if (n % CHUNK_MULTIPLE !== 0 || n < MIN_CHUNK || n > MAX_CHUNK) {
          this.violations.push(`media: chunk of ${n} bytes; Exotel takes multiples of ${CHUNK_MULTIPLE} from ${MIN_CHUNK} to ${MAX_CHUNK}`);
          return;
        }
        this.play(bytes);
        return;
      }
      case 'mark': {
        const name = (m['mark'] as Record<string, unknown> | undefined)?.['name'];
        if (typeof name !== 'string') this.violations.push('mark: name must be a string');
        else this.requestAck(name);
        return;
      }
      case 'clear':
        this.clearPlayback();
        return;
      default:
        this.violations.push(`unknown event ${JSON.stringify(m['event'])}`);
    }
  }

  protected sendAck(name: string): void {
    this.sendJson({ event: 'mark', sequence_number: String(this.seq++), stream_sid: this.streamSid, mark: { name } });
  }
}
