/**
 * A test peer that behaves like Twilio's side of a bidirectional Media Stream, over a real
 * WebSocket on loopback: it sends `connected` and `start`, plays the `media` it gets at 8 kHz in
 * real time on an injected clock, echoes each `mark` when the audio sent before it has played
 * (at once if nothing is buffered), and on `clear` drops its buffer and returns the pending marks
 * at once.
 */
import { once } from 'node:events';
import WebSocket from 'ws';
import { mulawDecode, mulawDecodeSample, mulawEncode } from '../../../src/dsp/mulaw.js';
import type { ManualClock } from './ManualClock.js';

const RATE_PER_MS = 8;
/** Twilio sends the caller's audio in 20 ms media frames. */
export const MIC_FRAME_MS = 20;
const MIC_FRAME_SAMPLES = MIC_FRAME_MS * RATE_PER_MS;
const MULAW_SILENCE = 0xff;
const S16_MAX = 32767;
const S16_MIN = -32768;

/** The caller's microphone: what it says when, and the bot's own audio returned as echo. */
export interface Microphone {
  /** Caller audio (μ-law 8 kHz) starting at clock time `at`; silence elsewhere. */
  clips?: { at: number; mulaw: Uint8Array }[];
  /** The bot's audio as the peer played it, returned this many dB down, this many ms later. */
  echo?: { db: number; delayMs: number };
  /** Clock time the microphone stops (bounds the loop). */
  until: number;
}

interface Segment {
  /** Clock time this segment starts playing. */
  startTime: number;
  /** First sample (of everything received) in this segment. */
  firstSample: number;
  length: number;
}

interface PendingMark {
  name: string;
  /** Samples received before the mark: it echoes when these have played. */
  afterSample: number;
  timer: unknown;
}

export interface PeerStart {
  /** false: connect and send `connected` only; call `sendStart()` later. */
  sendStart?: boolean;
  streamSid?: string;
  callSid?: string;
  customParameters?: Record<string, string>;
  mediaFormat?: { encoding: string; sampleRate: number; channels: number };
}

export class TwilioPeer {
  readonly received: Buffer[] = [];
  receivedSamples = 0;
  private segments: Segment[] = [];
  private busyUntil = Number.NEGATIVE_INFINITY;
  private pending: PendingMark[] = [];
  private seq = 1;
  readonly echoed: { name: string; at: number; sample: number }[] = [];
  readonly cleared: string[] = [];
  readonly clears: { at: number; playedSamples: number }[] = [];
  /** Media that arrived after a clear (must stay empty after interrupt()). */
  mediaAfterClear = 0;
  readonly messages: Record<string, unknown>[] = [];
  /** When set, mark echoes are held back (a phone that stops answering). */
  holdEchoes = false;
  /** Everything received, in one growing buffer (what played is read from it). */
  private all = new Uint8Array(0);
  private allLength = 0;
  /** Caller frames sent by the microphone. */
  micFrames = 0;
  private constructor(
    readonly ws: WebSocket,
    readonly clock: ManualClock,
    readonly streamSid: string,
  ) {}

  static async connect(url: string, clock: ManualClock, start: PeerStart = {}): Promise<TwilioPeer> {
    const ws = new WebSocket(url);
    await once(ws, 'open');
    const streamSid = start.streamSid ?? 'MZ00000000000000000000000000000001';
    const peer = new TwilioPeer(ws, clock, streamSid);
    ws.on('message', (data: Buffer) => peer.onMessage(JSON.parse(data.toString('utf8')) as Record<string, unknown>));
    peer.send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    if (start.sendStart !== false) peer.sendStart(start);
    return peer;
  }

  sendStart(start: PeerStart = {}): void {
    const { streamSid } = this;
    const peer = this;
    peer.send({
      event: 'start',
      sequenceNumber: String(peer.seq++),
      streamSid,
      start: {
        accountSid: 'AC00000000000000000000000000000001',
        streamSid,
        callSid: start.callSid ?? 'CA00000000000000000000000000000001',
        tracks: ['inbound'],
        customParameters: start.customParameters ?? {},
        mediaFormat: start.mediaFormat ?? { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
  }

  send(message: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(message));
  }

  sendMedia(mulaw: Uint8Array, chunk = 1): void {
    this.send({
      event: 'media',
      sequenceNumber: String(this.seq++),
      streamSid: this.streamSid,
      media: {
        track: 'inbound',
        chunk: String(chunk),
        timestamp: String(Math.round(this.clock.now())),
        payload: Buffer.from(mulaw).toString('base64'),
      },
    });
  }
  sendDtmf(digit: string): void {
    this.send({ event: 'dtmf', sequenceNumber: String(this.seq++), streamSid: this.streamSid, dtmf: { track: 'inbound_track', digit } });
  }
  sendStop(): void {
    this.send({
      event: 'stop',
      sequenceNumber: String(this.seq++),
      streamSid: this.streamSid,
      stop: { accountSid: 'AC1', callSid: 'CA1' },
    });
  }

  /** Everything received, in order (what the caller's phone was given). */
  audio(): Buffer {
    return Buffer.concat(this.received);
  }

  /** Samples played by clock time `t` (cleared audio never plays). */
  playedAt(t: number): number {
    let played = 0;
    for (const s of this.segments) played += segmentPlayed(s, t);
    return played;
  }
  /** Samples that will ever play. */
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
    return (this.playableSamples - this.playedSamples) / RATE_PER_MS;
  }
  /** Clock time at which sample `k` (0-based, of everything received) began to play. */
  timeOfSample(k: number): number | null {
    for (const s of this.segments) {
      if (k >= s.firstSample && k < s.firstSample + s.length) return s.startTime + (k - s.firstSample) / RATE_PER_MS;
    }
    return null;
  }

  /** A loopback round trip: everything the bridge sent in answer to our earlier messages is in. */
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

  /** Stops reading the socket (TCP backpressure builds up at the bridge). */
  pauseReading(): void {
    (this.ws as unknown as { _socket: import('node:net').Socket })._socket.pause();
  }
  resumeReading(): void {
    (this.ws as unknown as { _socket: import('node:net').Socket })._socket.resume();
  }

  /** Marks waiting for their audio to play. */
  get pendingMarks(): number {
    return this.pending.length;
  }

  close(): void {
    for (const p of this.pending) this.clock.clearTimeout(p.timer);
    this.pending = [];
    this.ws.close();
  }

  private onMessage(m: Record<string, unknown>): void {
    this.messages.push(m);
    const now = this.clock.now();
    if (m['event'] === 'media') {
      const payload = Buffer.from((m['media'] as { payload: string }).payload, 'base64');
      if (this.clears.length > 0) this.mediaAfterClear += payload.length;
      this.received.push(payload);
      this.keep(payload);
      const start = Math.max(this.busyUntil, now);
      this.segments.push({ startTime: start, firstSample: this.receivedSamples, length: payload.length });
      this.receivedSamples += payload.length;
      this.busyUntil = start + payload.length / RATE_PER_MS;
    } else if (m['event'] === 'mark') {
      const name = (m['mark'] as { name: string }).name;
      const afterSample = this.receivedSamples;
      if (this.busyUntil <= now && !this.holdEchoes) {
        this.echo(name, afterSample);
      } else {
        const mark: PendingMark = { name, afterSample, timer: null };
        if (!this.holdEchoes) mark.timer = this.clock.setTimeout(() => this.firePending(mark), this.busyUntil - now);
        this.pending.push(mark);
      }
    } else if (m['event'] === 'clear') {
      const played = this.playedAt(now);
      this.clears.push({ at: now, playedSamples: played });
      // Nothing not yet played will ever play.
      for (const s of this.segments) s.length = segmentPlayed(s, now);
      this.segments = this.segments.filter((s) => s.length > 0);
      this.busyUntil = Math.min(this.busyUntil, now);
      for (const p of this.pending.splice(0)) {
        this.clock.clearTimeout(p.timer);
        this.cleared.push(p.name);
        this.sendMark(p.name);
      }
    }
  }

  private keep(payload: Buffer): void {
    if (this.allLength + payload.length > this.all.length) {
      const grown = new Uint8Array(Math.max(this.all.length * 2, this.allLength + payload.length));
      grown.set(this.all.subarray(0, this.allLength));
      this.all = grown;
    }
    this.all.set(payload, this.allLength);
    this.allLength += payload.length;
  }

  /** The μ-law the phone's speaker played during [from, from + n / 8 ms) (silence where nothing played). */
  playedAudio(from: number, n: number): Uint8Array {
    const out = new Uint8Array(n).fill(MULAW_SILENCE);
    for (const s of this.segments) {
      const end = s.startTime + s.length / RATE_PER_MS;
      if (end <= from || s.startTime >= from + n / RATE_PER_MS) continue;
      for (let k = 0; k < n; k++) {
        const offset = Math.floor((from + k / RATE_PER_MS - s.startTime) * RATE_PER_MS);
        if (offset >= 0 && offset < s.length) out[k] = this.all[s.firstSample + offset]!;
      }
    }
    return out;
  }

  /**
   * Starts the caller's microphone: every 20 ms of clock time, one media frame with the caller's
   * clip (if one is on) plus, if set, the echo of what the speaker played `delayMs` earlier.
   */
  startMicrophone(mic: Microphone): void {
    const gain = mic.echo === undefined ? 0 : 10 ** (-mic.echo.db / 20);
    const pcm = new Int16Array(MIC_FRAME_SAMPLES);
    let frameStart = this.clock.now();
    const tick = (): void => {
      const now = this.clock.now();
      if (now > mic.until || this.ws.readyState !== WebSocket.OPEN) return;
      pcm.fill(0);
      for (const c of mic.clips ?? []) {
        const first = Math.round((frameStart - c.at) * RATE_PER_MS);
        for (let k = 0; k < MIC_FRAME_SAMPLES; k++) {
          const i = first + k;
          if (i >= 0 && i < c.mulaw.length) pcm[k] = pcm[k]! + mulawDecodeSample(c.mulaw[i]!);
        }
      }
      if (mic.echo !== undefined) {
        const echo = mulawDecode(this.playedAudio(frameStart - mic.echo.delayMs, MIC_FRAME_SAMPLES));
        for (let k = 0; k < MIC_FRAME_SAMPLES; k++) pcm[k] = Math.max(S16_MIN, Math.min(S16_MAX, Math.round(pcm[k]! + gain * echo[k]!)));
      }
      this.sendMedia(mulawEncode(pcm), ++this.micFrames);
      frameStart += MIC_FRAME_MS;
      this.clock.setTimeout(tick, frameStart + MIC_FRAME_MS - now);
    };
    this.clock.setTimeout(tick, MIC_FRAME_MS);
  }

  private firePending(mark: PendingMark): void {
    this.pending = this.pending.filter((p) => p !== mark);
    this.echo(mark.name, mark.afterSample);
  }

  private echo(name: string, sample: number): void {
    this.echoed.push({ name, at: this.clock.now(), sample });
    this.sendMark(name);
  }

  private sendMark(name: string): void {
    this.send({ event: 'mark', sequenceNumber: String(this.seq++), streamSid: this.streamSid, mark: { name } });
  }

  /** Releases held echoes (after `holdEchoes` was set): those already played echo now. */
  releaseEchoes(): void {
    this.holdEchoes = false;
    const now = this.clock.now();
    for (const p of [...this.pending]) {
      if (p.timer !== null) continue;
      const at = p.afterSample === 0 ? now : (this.timeOfSample(p.afterSample - 1) ?? now) + 1 / RATE_PER_MS;
      if (at <= now) this.firePending(p);
      else p.timer = this.clock.setTimeout(() => this.firePending(p), at - now);
    }
  }
}

function segmentPlayed(s: Segment, t: number): number {
  if (t <= s.startTime) return 0;
  return Math.min(s.length, (t - s.startTime) * RATE_PER_MS);
}
