/**
 * A test peer that behaves like Telnyx's side of a bidirectional media stream (RTP mode), from
 * Telnyx's media streaming docs: it sends `connected` then `start` (stream id at the top, call
 * control id and media format inside), plays the base64 RTP payloads of `media` in real time in
 * the stream's codec (PCMU/PCMA 8 kHz, or L16 big-endian at 8/16 kHz), echoes each `mark` when
 * the media before it has played (at once if nothing is queued), and on `clear` drops queued
 * media and sends the queued marks back at once (documented). Media chunks outside 20 ms – 30 s
 * are violations (and are not played).
 */
import { alawDecode } from '../../../../src/dsp/alaw.js';
import { l16Decode } from '../../../../src/dsp/l16.js';
import { mulawDecode } from '../../../../src/dsp/mulaw.js';
import type { ManualClock } from '../ManualClock.js';
import { PlaybackPeer, decodePayload, type PlaybackFormat } from './PlaybackPeer.js';

export type TelnyxCodec = 'PCMU' | 'PCMA' | 'L16';

export interface TelnyxPeerOptions {
  encoding?: TelnyxCodec;
  /** @defaultValue 8000 */
  sampleRate?: number;
  streamId?: string;
  callControlId?: string;
  customParameters?: Record<string, string>;
  /** Sent as `x-telnyx-streaming-auth-token` (header and `connected` field) when given. */
  authToken?: string;
  /** false: send `connected` only; call `sendStart()` later. */
  sendStart?: boolean;
}

const MIN_CHUNK_MS = 20;
const MAX_CHUNK_MS = 30_000;

function formatFor(encoding: TelnyxCodec, sampleRate: number): PlaybackFormat {
  if (encoding === 'L16') return { sampleRate, bytesPerSample: 2, decode: (b) => l16Decode(b, 'be') };
  return { sampleRate, bytesPerSample: 1, decode: encoding === 'PCMU' ? (b) => mulawDecode(b) : (b) => alawDecode(b) };
}

export class TelnyxPeer extends PlaybackPeer {
  private seq = 1;
  private chunk = 1;

  private constructor(
    ws: import('ws').WebSocket,
    clock: ManualClock,
    readonly encoding: TelnyxCodec,
    readonly streamId: string,
    private readonly options: TelnyxPeerOptions,
  ) {
    super(ws, clock, formatFor(encoding, options.sampleRate ?? 8000), 'answer');
  }

  static async connect(url: string, clock: ManualClock, options: TelnyxPeerOptions = {}): Promise<TelnyxPeer> {
    const headers: Record<string, string> = options.authToken === undefined ? {} : { 'x-telnyx-streaming-auth-token': options.authToken };
    const ws = await PlaybackPeer.open(url, headers);
    const peer = new TelnyxPeer(ws, clock, options.encoding ?? 'PCMU', options.streamId ?? '32de0dea-0000-4b21-89a4-000000000001', options);
    const connected: Record<string, unknown> = { event: 'connected', version: '1.0.0' };
    if (options.authToken !== undefined) connected['x-telnyx-streaming-auth-token'] = options.authToken;
    peer.sendJson(connected);
    if (options.sendStart !== false) peer.sendStart();
    return peer;
  }

  sendStart(): void {
    this.sendJson({
      event: 'start',
      sequence_number: String(this.seq++),
      stream_id: this.streamId,
      start: {
        user_id: '3e6f995f-0000-4705-9741-000000000001',
        call_control_id: this.options.callControlId ?? 'v2:T02llQxIyaRkhfRKxgAP8nY511EhFLizdvdUKJiSw8d6A9Bborher',
        call_session_id: 'ff55a038-0000-11ef-9692-000000000001',
        from: '+13125550100',
        to: '+13125550199',
        tags: [],
        client_state: '',
        custom_parameters: this.options.customParameters ?? {},
        media_format: { encoding: this.encoding, sample_rate: this.format.sampleRate, channels: 1 },
      },
    });
  }

  /** Caller audio (wire bytes in the stream's codec) on the inbound track. */
  sendMedia(bytes: Uint8Array): void {
    this.sendJson({
      event: 'media',
      sequence_number: String(this.seq++),
      stream_id: this.streamId,
      media: {
        track: 'inbound',
        chunk: String(this.chunk++),
        timestamp: String(Math.round(this.clock.now())),
        payload: Buffer.from(bytes).toString('base64'),
      },
    });
  }
  sendDtmf(digit: string): void {
    this.sendJson({ event: 'dtmf', sequence_number: String(this.seq++), stream_id: this.streamId, dtmf: { digit } });
  }
  sendStop(): void {
    this.sendJson({ event: 'stop', sequence_number: String(this.seq++), stream_id: this.streamId, stop: { call_control_id: 'v2:x' } });
  }
  sendError(code: number, title: string, detail: string): void {
    this.sendJson({ event: 'error', sequence_number: String(this.seq++), stream_id: this.streamId, payload: { code, title, detail } });
  }

  protected onText(m: Record<string, unknown>): void {
    const media = m['media'] as Record<string, unknown> | undefined;
    const mark = m['mark'] as Record<string, unknown> | undefined;
    switch (m['event']) {
      case 'media': {
        const bytes = decodePayload(this, media?.['payload'], this.format.bytesPerSample, 'media');
        if (bytes === null) return;
        const ms = bytes.length / this.format.bytesPerSample / this.samplesPerMs;
        if (ms < MIN_CHUNK_MS || ms > MAX_CHUNK_MS) {
          this.violations.push(`media: ${ms} ms chunk; Telnyx takes ${MIN_CHUNK_MS} ms to ${MAX_CHUNK_MS / 1000} s`);
          return;
        }
        this.play(bytes);
        return;
      }
      case 'mark':
        if (typeof mark?.['name'] !== 'string') this.violations.push('mark: name must be a string');
        else this.requestAck(mark['name']);
        return;
      case 'clear':
        this.clearPlayback();
        return;
      default:
        this.violations.push(`unknown event ${JSON.stringify(m['event'])}`);
    }
  }

  protected sendAck(name: string): void {
    this.sendJson({ event: 'mark', sequence_number: String(this.seq++), stream_id: this.streamId, mark: { name } });
  }
}
