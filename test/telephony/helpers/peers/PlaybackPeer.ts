/**
 * What every provider test peer shares: a real WebSocket client on loopback that plays the audio
 * it is sent in real time on an injected clock (one playhead, no overlap: audio sent while
 * something plays waits its turn), answers a playback acknowledgement request only once the audio
 * sent before it has played (at once when nothing is buffered), and on clear drops everything not
 * yet played. What a clear does to pending acknowledgements differs by provider: `answer` sends
 * them at once (Twilio, Telnyx), `drop` never answers them (Plivo). Subclasses hold the wire
 * format: handshake, message shapes, audio encoding and frame-size rules.
 */
import { once } from 'node:events';
import WebSocket from 'ws';
import type { ManualClock } from '../ManualClock.js';

interface Segment {
  /** Clock time this segment starts playing. */
  startTime: number;
  /** First sample (of everything received) in this segment. */
  firstSample: number;
  length: number;
}

interface PendingAck {
  name: string;
  /** Samples received before the request: it is answered when these have played. */
  afterSample: number;
  timer: unknown;
}

/** What a clear does to acknowledgements still waiting for their audio. */
export type ClearAcks = 'answer' | 'drop';

export interface PlaybackFormat {
  sampleRate: number;
  /** Bytes per sample on the wire: 1 for G.711, 2 for L16. */
  bytesPerSample: number;
  /** Wire bytes → s16, to compare what was played with what was meant. */
  decode: (bytes: Uint8Array) => Int16Array;
}

export abstract class PlaybackPeer {
  /** Audio bytes accepted for playback, in order (what the caller's phone was given). */
  readonly received: Buffer[] = [];
  receivedSamples = 0;
  /** Acknowledgements answered after their audio played. */
  readonly acked: { name: string; at: number; sample: number }[] = [];
  /** Acknowledgements answered at once by a clear (`answer`) or never answered (`drop`). */
  readonly clearedAcks: string[] = [];
  readonly droppedAcks: string[] = [];
  readonly clears: { at: number; playedSamples: number }[] = [];
  /** Audio bytes that arrived after a clear. */
  mediaAfterClear = 0;
  /** Every text message received, parsed. */
  readonly messages: Record<string, unknown>[] = [];
  /** What the app sent that this provider would not accept (wrong format, size, JSON). */
  readonly violations: string[] = [];
  private segments: Segment[] = [];
  /** Everything received, decoded to s16 as it came (what the speaker plays is read from it). */
  private decoded = new Int16Array(0);
  private busyUntil = Number.NEGATIVE_INFINITY;
  private pending: PendingAck[] = [];
  protected readonly samplesPerMs: number;

  protected constructor(
    readonly ws: WebSocket,
    readonly clock: ManualClock,
    readonly format: PlaybackFormat,
    private readonly clearAcks: ClearAcks,
  ) {
    this.samplesPerMs = format.sampleRate / 1000;
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) {
        this.onBinary(data);
        return;
      }
      let m: unknown;
      try {
        m = JSON.parse(data.toString('utf8'));
      } catch {
        this.violations.push('text frame is not JSON');
        return;
      }
      if (typeof m !== 'object' || m === null || Array.isArray(m)) {
        this.violations.push('text frame is not a JSON object');
        return;
      }
      this.messages.push(m as Record<string, unknown>);
      this.onText(m as Record<string, unknown>);
    });
  }

  /** Opens a real WebSocket to `url` (the app's media endpoint). */
  protected static async open(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
    const ws = new WebSocket(url, { headers });
    await once(ws, 'open');
    return ws;
  }

  protected abstract onText(m: Record<string, unknown>): void;
  /** Binary frames: only Vonage carries audio this way; elsewhere they are a violation. */
  protected onBinary(_data: Buffer): void {
    this.violations.push('unexpected binary frame');
  }
  /** Sends the provider's answer to a played acknowledgement request. */
  protected abstract sendAck(name: string): void;

  protected sendJson(message: Record<string, unknown>): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  /** Queues audio (wire bytes, whole samples) behind whatever is playing. */
  protected play(bytes: Buffer): void {
    const samples = bytes.length / this.format.bytesPerSample;
    const now = this.clock.now();
    if (this.clears.length > 0) this.mediaAfterClear += bytes.length;
    this.received.push(bytes);
    this.keepDecoded(this.format.decode(bytes));
    const start = Math.max(this.busyUntil, now);
    this.segments.push({ startTime: start, firstSample: this.receivedSamples, length: samples });
    this.receivedSamples += samples;
    this.busyUntil = start + samples / this.samplesPerMs;
  }

  /** An acknowledgement request: answered when the audio before it has played. */
  protected requestAck(name: string): void {
    const now = this.clock.now();
    const afterSample = this.receivedSamples;
    if (this.busyUntil <= now) {
      this.answer(name, afterSample);
      return;
    }
    const ack: PendingAck = { name, afterSample, timer: null };
    ack.timer = this.clock.setTimeout(() => {
      this.pending = this.pending.filter((p) => p !== ack);
      this.answer(name, afterSample);
    }, this.busyUntil - now);
    this.pending.push(ack);
  }

  /** Drops everything not yet played; pending acknowledgements are answered or dropped. */
  protected clearPlayback(): void {
    const now = this.clock.now();
    this.clears.push({ at: now, playedSamples: this.playedAt(now) });
    for (const s of this.segments) s.length = segmentPlayed(s, now, this.samplesPerMs);
    this.segments = this.segments.filter((s) => s.length > 0);
    this.busyUntil = Math.min(this.busyUntil, now);
    for (const p of this.pending.splice(0)) {
      this.clock.clearTimeout(p.timer);
      if (this.clearAcks === 'answer') {
        this.clearedAcks.push(p.name);
        this.sendAck(p.name);
      } else {
        this.droppedAcks.push(p.name);
      }
    }
  }

  private answer(name: string, sample: number): void {
    this.acked.push({ name, at: this.clock.now(), sample });
    this.sendAck(name);
  }

  private keepDecoded(pcm: Int16Array): void {
    const end = this.receivedSamples + pcm.length;
    if (end > this.decoded.length) {
      const grown = new Int16Array(Math.max(this.decoded.length * 2, end));
      grown.set(this.decoded.subarray(0, this.receivedSamples));
      this.decoded = grown;
    }
    this.decoded.set(pcm, this.receivedSamples);
  }

  /** The s16 the speaker played during [from, from + n samples) of clock time (0 where nothing played). */
  playedPcm(from: number, n: number): Int16Array {
    const out = new Int16Array(n);
    const to = from + n / this.samplesPerMs;
    for (const s of this.segments) {
      if (s.startTime + s.length / this.samplesPerMs <= from || s.startTime >= to) continue;
      for (let k = 0; k < n; k++) {
        const offset = Math.floor((from + k / this.samplesPerMs - s.startTime) * this.samplesPerMs + 1e-9);
        if (offset >= 0 && offset < s.length) out[k] = this.decoded[s.firstSample + offset]!;
      }
    }
    return out;
  }

  /** Everything received, in order, as wire bytes. */
  audio(): Buffer {
    return Buffer.concat(this.received);
  }
  /** Everything received, decoded to s16. */
  pcm(): Int16Array {
    return this.format.decode(this.audio());
  }
  /** Samples played by clock time `t` (cleared audio never plays). */
  playedAt(t: number): number {
    let played = 0;
    for (const s of this.segments) played += segmentPlayed(s, t, this.samplesPerMs);
    return played;
  }
  get playableSamples(): number {
    let n = 0;
    for (const s of this.segments) n += s.length;
    return n;
  }
  get playedSamples(): number {
    return this.playedAt(this.clock.now());
  }
  /** Audio received but not yet played, in ms. */
  get bufferedMs(): number {
    return (this.playableSamples - this.playedSamples) / this.samplesPerMs;
  }
  /** Clock time at which sample `k` (0-based, of everything received) began to play. */
  timeOfSample(k: number): number | null {
    for (const s of this.segments) {
      if (k >= s.firstSample && k < s.firstSample + s.length) return s.startTime + (k - s.firstSample) / this.samplesPerMs;
    }
    return null;
  }
  /** Acknowledgements waiting for their audio. */
  get pendingAcks(): number {
    return this.pending.length;
  }

  /** A loopback round trip: everything the app sent before our ping has been handled. */
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

  /** Hangs up: pending acknowledgements are forgotten, the socket closes. */
  close(): void {
    for (const p of this.pending) this.clock.clearTimeout(p.timer);
    this.pending = [];
    this.ws.close();
  }
}

function segmentPlayed(s: Segment, t: number, samplesPerMs: number): number {
  if (t <= s.startTime) return 0;
  return Math.min(s.length, Math.floor((t - s.startTime) * samplesPerMs + 1e-9));
}

/** Raw base64 → bytes, or null (and a violation) when it is not base64 of whole samples. */
export function decodePayload(peer: { violations: string[] }, payload: unknown, bytesPerSample: number, what: string): Buffer | null {
  if (typeof payload !== 'string' || payload.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(payload)) {
    peer.violations.push(`${what}: payload is not base64`);
    return null;
  }
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.length % bytesPerSample !== 0) {
    peer.violations.push(`${what}: ${bytes.length} bytes is not whole ${bytesPerSample}-byte samples`);
    return null;
  }
  return bytes;
}
