/**
 * A made-up provider, to prove the call core is provider-neutral: a JSON dialect unlike Twilio's
 * (`hello`, `begin`, `audio`/binary frames, `key`, `done`, `flushed`, `bye` in; `play`/binary,
 * `tell`, `flush` out), its adapter, and a peer over a real WebSocket on the injected clock.
 *
 * The peer plays what it gets in real time at the line's rate, answers `tell` once the audio
 * before it has played, and on `flush` drops its buffer AND its pending `tell`s (never answered:
 * unlike Twilio) and says `flushed`. It records every media payload's size, so a test can check
 * the adapter's batching rule was kept.
 */
import { once } from 'node:events';
import WebSocket from 'ws';
import { TelephonyError } from '../../../src/errors.js';
import { bytesPerSample, type LineFormat } from '../../../src/telephony/lineFormat.js';
import type { MediaSocketData } from '../../../src/telephony/mediaSocket.js';
import {
  socketBytes,
  socketText,
  type CallStart,
  type OutboundChunking,
  type ProviderAdapter,
  type ProviderEvent,
} from '../../../src/telephony/providerAdapter.js';
import type { ManualClock } from './ManualClock.js';

export interface ToyBegin {
  id: string;
  call: string;
  enc: string;
  rate: number;
  order?: 'le' | 'be';
  params?: Record<string, string>;
}

export interface ToyOptions {
  /** Media as binary frames both ways (else base64 in JSON). */
  binary?: boolean;
  chunking?: OutboundChunking;
}

function fail(field: string, message: string): never {
  throw new TelephonyError('TELEPHONY_PROTOCOL', message, { field });
}

export class ToyAdapter implements ProviderAdapter<ToyBegin> {
  readonly name = 'Toy';
  started: ToyBegin | null = null;
  constructor(private readonly options: ToyOptions = {}) {}

  parse(data: MediaSocketData, isBinary: boolean): ProviderEvent<ToyBegin> {
    if (isBinary) return { type: 'media', audio: socketBytes(data) };
    let m: Record<string, unknown>;
    try {
      m = JSON.parse(socketText(data)) as Record<string, unknown>;
    } catch (cause) {
      throw new TelephonyError('TELEPHONY_PROTOCOL', 'toy message is not JSON', { field: 'message', cause });
    }
    switch (m['t']) {
      case 'hello':
        return { type: 'connected' };
      case 'begin':
        if (typeof m['id'] !== 'string') fail('begin.id', 'begin.id must be a string');
        return { type: 'start', info: m as unknown as ToyBegin };
      case 'audio':
        if (typeof m['b64'] !== 'string') fail('audio.b64', 'audio.b64 must be a string');
        return { type: 'media', audio: Buffer.from(m['b64'], 'base64') };
      case 'key':
        return { type: 'dtmf', digit: String(m['d']), track: 'caller' };
      case 'done':
        if (typeof m['n'] !== 'string') fail('done.n', 'done.n must be a string');
        return { type: 'ack', name: m['n'] };
      case 'flushed':
        return { type: 'cleared' };
      case 'bye':
        return { type: 'stop' };
      default:
        return { type: 'unknown', name: String(m['t']) };
    }
  }

  start(info: ToyBegin): CallStart {
    if (info.enc !== 'l16' && info.enc !== 'mulaw') fail('begin.enc', `toy lines are l16 or mulaw, not ${info.enc}`);
    if (info.rate !== 8000 && info.rate !== 16000) fail('begin.rate', `toy lines are 8 or 16 kHz, not ${info.rate}`);
    this.started = info;
    const format: LineFormat =
      info.enc === 'l16'
        ? { encoding: 'l16', sampleRate: info.rate, byteOrder: info.order ?? 'le' }
        : { encoding: 'mulaw', sampleRate: info.rate };
    return { streamId: info.id, callId: info.call, customParameters: info.params ?? {}, format };
  }

  chunking(): OutboundChunking {
    return this.options.chunking ?? { quantumBytes: 0, minBatchBytes: 0 };
  }

  media(audio: Uint8Array): string | Uint8Array {
    if (this.options.binary === true) return Buffer.from(audio); // ws may keep it until written
    return JSON.stringify({ t: 'play', b64: Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength).toString('base64') });
  }

  ackRequest(name: string): string {
    return JSON.stringify({ t: 'tell', n: name });
  }

  clear(): string {
    return JSON.stringify({ t: 'flush' });
  }
}

interface Segment {
  startTime: number;
  firstSample: number;
  length: number;
}

interface PendingTell {
  name: string;
  timer: unknown;
}

/** The toy provider's side of a call. */
export class ToyPeer {
  readonly received: Buffer[] = [];
  /** Each media payload's size in bytes, in order. */
  readonly payloadSizes: number[] = [];
  receivedSamples = 0;
  readonly answered: { name: string; at: number }[] = [];
  readonly flushes: { at: number; playedSamples: number }[] = [];
  /** Media that arrived after a flush. */
  mediaAfterFlush = 0;
  /** Binary frames that came on a text dialect (must stay 0). */
  unexpectedBinary = 0;
  /** Pending tells dropped by a flush (never answered). */
  readonly dropped: string[] = [];
  readonly texts: Record<string, unknown>[] = [];
  private segments: Segment[] = [];
  private busyUntil = Number.NEGATIVE_INFINITY;
  private pending: PendingTell[] = [];
  private readonly bytesPerSample: number;
  private readonly samplesPerMs: number;

  private constructor(
    readonly ws: WebSocket,
    readonly clock: ManualClock,
    readonly format: LineFormat,
    readonly binary: boolean,
  ) {
    this.bytesPerSample = bytesPerSample(format);
    this.samplesPerMs = format.sampleRate / 1000;
  }

  static async connect(url: string, clock: ManualClock, begin: ToyBegin, binary: boolean): Promise<ToyPeer> {
    const ws = new WebSocket(url);
    await once(ws, 'open');
    const format: LineFormat =
      begin.enc === 'l16'
        ? { encoding: 'l16', sampleRate: begin.rate as 8000 | 16000, byteOrder: begin.order ?? 'le' }
        : { encoding: 'mulaw', sampleRate: begin.rate as 8000 | 16000 };
    const peer = new ToyPeer(ws, clock, format, binary);
    ws.on('message', (data: Buffer, isBinary: boolean) => peer.onMessage(data, isBinary));
    peer.send({ t: 'hello' });
    peer.send({ t: 'begin', ...begin });
    return peer;
  }

  send(message: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(message));
  }

  /** Caller audio in line bytes. */
  sendAudio(bytes: Uint8Array): void {
    if (this.binary) this.ws.send(bytes);
    else this.send({ t: 'audio', b64: Buffer.from(bytes).toString('base64') });
  }

  audio(): Buffer {
    return Buffer.concat(this.received);
  }

  playedAt(t: number): number {
    let played = 0;
    for (const s of this.segments) played += this.segmentPlayed(s, t);
    return played;
  }

  get playedSamples(): number {
    return this.playedAt(this.clock.now());
  }

  get bufferedMs(): number {
    let n = 0;
    for (const s of this.segments) n += s.length;
    return (n - this.playedSamples) / this.samplesPerMs;
  }

  /** Clock time at which sample `k` (of everything received) began to play. */
  timeOfSample(k: number): number | null {
    for (const s of this.segments) {
      if (k >= s.firstSample && k < s.firstSample + s.length) return s.startTime + (k - s.firstSample) / this.samplesPerMs;
    }
    return null;
  }

  async roundTrip(): Promise<void> {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.ws.off('pong', done);
        this.ws.off('close', done);
        resolve();
      };
      this.ws.on('pong', done);
      this.ws.on('close', done);
      this.ws.ping();
    });
  }

  close(): void {
    for (const p of this.pending) this.clock.clearTimeout(p.timer);
    this.pending = [];
    this.ws.close();
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (isBinary) {
      if (this.binary) this.play(data);
      else this.unexpectedBinary++;
      return;
    }
    const m = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
    this.texts.push(m);
    const now = this.clock.now();
    if (m['t'] === 'play') {
      this.play(Buffer.from(m['b64'] as string, 'base64'));
    } else if (m['t'] === 'tell') {
      const name = m['n'] as string;
      if (this.busyUntil <= now) this.answer(name);
      else {
        const tell: PendingTell = { name, timer: null };
        tell.timer = this.clock.setTimeout(() => {
          this.pending = this.pending.filter((p) => p !== tell);
          this.answer(name);
        }, this.busyUntil - now);
        this.pending.push(tell);
      }
    } else if (m['t'] === 'flush') {
      this.flushes.push({ at: now, playedSamples: this.playedAt(now) });
      for (const s of this.segments) s.length = this.segmentPlayed(s, now);
      this.segments = this.segments.filter((s) => s.length > 0);
      this.busyUntil = Math.min(this.busyUntil, now);
      for (const p of this.pending.splice(0)) {
        this.clock.clearTimeout(p.timer);
        this.dropped.push(p.name);
      }
      this.send({ t: 'flushed' });
    }
  }

  private play(payload: Buffer): void {
    const now = this.clock.now();
    if (this.flushes.length > 0) this.mediaAfterFlush += payload.length;
    this.received.push(payload);
    this.payloadSizes.push(payload.length);
    const samples = payload.length / this.bytesPerSample;
    const start = Math.max(this.busyUntil, now);
    this.segments.push({ startTime: start, firstSample: this.receivedSamples, length: samples });
    this.receivedSamples += samples;
    this.busyUntil = start + samples / this.samplesPerMs;
  }

  private answer(name: string): void {
    this.answered.push({ name, at: this.clock.now() });
    this.send({ t: 'done', n: name });
  }

  private segmentPlayed(s: Segment, t: number): number {
    if (t <= s.startTime) return 0;
    return Math.min(s.length, (t - s.startTime) * this.samplesPerMs);
  }
}
