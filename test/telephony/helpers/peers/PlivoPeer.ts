/**
 * A test peer that behaves like Plivo's side of a bidirectional audio stream, from Plivo's stream
 * event protocol: it sends `start` at once (no `connected`; stream id, call id, media format
 * inside, `extra_headers` beside), plays `playAudio` in real time (μ-law 8 kHz or L16 8/16 kHz;
 * a playAudio in another content type or rate than the stream's is a violation and is not
 * played: Plivo does not support switching codecs mid-stream), answers a `checkpoint` with
 * `playedStream` (or `played`, as some pages name it) once the audio before it has played, and
 * on `clearAudio` drops buffered audio, sends `clearedAudio`, and never answers the checkpoints
 * that were waiting (Plivo answers a checkpoint only when the audio before it played).
 */
import { l16Decode } from '../../../../src/dsp/l16.js';
import { mulawDecode } from '../../../../src/dsp/mulaw.js';
import type { ManualClock } from '../ManualClock.js';
import { PlaybackPeer, decodePayload } from './PlaybackPeer.js';

export type PlivoContent = 'audio/x-mulaw' | 'audio/x-l16';

export interface PlivoPeerOptions {
  contentType?: PlivoContent;
  /** @defaultValue 8000 */
  sampleRate?: number;
  streamId?: string;
  callId?: string;
  /** `extra_headers` as Plivo sends it: `a=1;b=2`. */
  extraHeaders?: string;
  /** The name of the checkpoint answer. @defaultValue 'playedStream' */
  playedEvent?: 'playedStream' | 'played';
}

export class PlivoPeer extends PlaybackPeer {
  private seq = 1;
  private chunk = 1;

  private constructor(
    ws: import('ws').WebSocket,
    clock: ManualClock,
    readonly contentType: PlivoContent,
    readonly streamId: string,
    private readonly options: PlivoPeerOptions,
  ) {
    const sampleRate = options.sampleRate ?? 8000;
    super(
      ws,
      clock,
      contentType === 'audio/x-l16'
        ? { sampleRate, bytesPerSample: 2, decode: (b) => l16Decode(b, 'le') }
        : { sampleRate, bytesPerSample: 1, decode: (b) => mulawDecode(b) },
      'drop',
    );
  }

  static async connect(url: string, clock: ManualClock, options: PlivoPeerOptions = {}): Promise<PlivoPeer> {
    const ws = await PlaybackPeer.open(url);
    const peer = new PlivoPeer(
      ws,
      clock,
      options.contentType ?? 'audio/x-mulaw',
      options.streamId ?? '20170ada-f610-433b-8758-c02a2aab3662',
      options,
    );
    peer.sendJson({
      event: 'start',
      sequenceNumber: peer.seq++,
      start: {
        callId: options.callId ?? '12345678-1234-1234-1234-123456789abc',
        streamId: peer.streamId,
        accountId: 'MA0000000000000000',
        tracks: ['inbound'],
        mediaFormat: { encoding: peer.contentType, sampleRate: peer.format.sampleRate },
      },
      extra_headers: options.extraHeaders ?? '',
    });
    return peer;
  }

  sendMedia(bytes: Uint8Array): void {
    this.sendJson({
      event: 'media',
      sequenceNumber: this.seq++,
      streamId: this.streamId,
      media: {
        track: 'inbound',
        timestamp: String(Math.round(this.clock.now())),
        chunk: this.chunk++,
        payload: Buffer.from(bytes).toString('base64'),
      },
      extra_headers: this.options.extraHeaders ?? '',
    });
  }
  sendDtmf(digit: string): void {
    this.sendJson({
      event: 'dtmf',
      sequenceNumber: this.seq++,
      streamId: this.streamId,
      dtmf: { track: 'inbound', digit, timestamp: String(this.clock.now()) },
    });
  }

  protected onText(m: Record<string, unknown>): void {
    switch (m['event']) {
      case 'playAudio': {
        const media = (m['media'] ?? {}) as Record<string, unknown>;
        if (media['contentType'] !== this.contentType || media['sampleRate'] !== this.format.sampleRate) {
          const got = `${String(media['contentType'])} at ${String(media['sampleRate'])} Hz`;
          this.violations.push(`playAudio: ${got} on a ${this.contentType} ${this.format.sampleRate} Hz stream`);
          return;
        }
        const bytes = decodePayload(this, media['payload'], this.format.bytesPerSample, 'playAudio');
        if (bytes !== null) this.play(bytes);
        return;
      }
      case 'checkpoint':
        if (m['streamId'] !== this.streamId) this.violations.push('checkpoint: wrong or missing streamId');
        else if (typeof m['name'] !== 'string') this.violations.push('checkpoint: name must be a string');
        else this.requestAck(m['name']);
        return;
      case 'clearAudio':
        if (m['streamId'] !== this.streamId) {
          this.violations.push('clearAudio: wrong or missing streamId');
          return;
        }
        this.clearPlayback();
        this.sendJson({ event: 'clearedAudio', sequenceNumber: this.seq++, streamId: this.streamId });
        return;
      default:
        this.violations.push(`unknown event ${JSON.stringify(m['event'])}`);
    }
  }

  protected sendAck(name: string): void {
    this.sendJson({ event: this.options.playedEvent ?? 'playedStream', sequenceNumber: this.seq++, streamId: this.streamId, name });
  }
}
