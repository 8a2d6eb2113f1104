/**
 * Writes speech stream events to an HTTP response as SSE `message` events, with real-time pacing
 * and the injected faults of {@link FaultSpec}. Honours backpressure (waits for `drain`).
 */
import type { ServerResponse } from 'node:http';
import type { FaultSpec, MalformedKind } from '../faults.js';
import type { SynthesisEvent } from './synthesizeSpeech.js';

export interface ServiceClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: ServiceClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
};

export type Pace = 'fast' | 'realtime';
/** With `pace: 'realtime'`, how far audio may run ahead of the wall clock. */
export const REALTIME_LEAD_SEC = 0.5;

/** @see SseResponderOptions.writeIdleTimeoutMs */
export const DEFAULT_WRITE_IDLE_TIMEOUT_MS = 30_000;

export interface SseResponderOptions {
  pace: Pace;
  leadSec?: number;
  faults: FaultSpec;
  clock: ServiceClock;
  /**
   * A write that waits this long for `drain` (the client reads nothing) closes the response:
   * without it a reader that stops reading would pin the stream's memory and socket forever.
   * @defaultValue 30000
   */
  writeIdleTimeoutMs?: number;
}

const MS = 1000;
/** A cut connection is half-closed at once (FIN after the written bytes), destroyed after this. */
const CUT_DESTROY_AFTER_MS = 1000;

/** The wire form of one event. */
export function serializeEvent(ev: SynthesisEvent): string {
  const wire = {
    audio_base64: Buffer.from(ev.audio.buffer, ev.audio.byteOffset, ev.audio.byteLength).toString('base64'),
    content: ev.content,
    alignment: ev.alignment,
    chunk_seq: ev.chunk_seq,
    chunk_audio_offset_sec: ev.chunk_audio_offset_sec,
  };
  return `data: ${JSON.stringify(wire)}\n\n`;
}

function malformedEvent(kind: MalformedKind): string {
  switch (kind) {
    case 'json':
      return 'data: {"audio_base64": "AAAA", "chunk_seq": 0, oops\n\n';
    case 'base64':
      return 'data: {"audio_base64":"@@@@","content":"","alignment":null,"chunk_seq":0,"chunk_audio_offset_sec":0}\n\n';
    case 'field':
      return 'data: {"audio_base64":"","content":"","alignment":null,"chunk_seq":-1,"chunk_audio_offset_sec":0}\n\n';
  }
}

/** Thrown by `send` once the connection is gone (client left, or a cut fault): stop synthesizing. */
export class ResponseClosedError extends Error {}

export class SseResponder {
  private sent = 0;
  private startedAt: number | null = null;
  private closed = false;
  /** Why the response closed, for every later send to report (the first cause, not the last symptom). */
  private closedBecause = 'client closed the connection';
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly res: ServerResponse,
    private readonly options: SseResponderOptions,
  ) {
    res.on('close', () => {
      this.closed = true;
    });
    if (options.faults.segmentBytes !== undefined) res.socket?.setNoDelay(true);
  }

  /** Writes the status line and headers (after `delay-first-byte`). */
  async open(headers: Record<string, string>): Promise<void> {
    const delay = this.options.faults.delayFirstByteMs;
    if (delay) await this.options.clock.sleep(delay);
    if (this.closed) throw new ResponseClosedError(this.closedBecause);
    this.res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers });
    this.res.flushHeaders();
  }

  /**
   * Sends one event (paced by its `audioEndSec` when real time). Calls may overlap (synthesis
   * does not wait within a text chunk): they are queued and written strictly in call order.
   */
  send(ev: SynthesisEvent): Promise<void> {
    const next = this.queue.then(() => this.sendNow(ev));
    // The queue goes on past a failure; each later send then fails on `closed`.
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async sendNow(ev: SynthesisEvent): Promise<void> {
    const endSec = ev.audioEndSec;
    const f = this.options.faults;
    if (this.closed) throw new ResponseClosedError(this.closedBecause);
    const clock = this.options.clock;
    this.startedAt ??= clock.now();
    if (this.options.pace === 'realtime') {
      const due = this.startedAt + (endSec - (this.options.leadSec ?? REALTIME_LEAD_SEC)) * MS;
      const wait = due - clock.now();
      if (wait > 0) await clock.sleep(wait);
    }
    if (f.stallAfter && this.sent === f.stallAfter.events && f.stallAfter.ms > 0) await clock.sleep(f.stallAfter.ms);
    if (f.malformedAt === this.sent) await this.write(malformedEvent(f.malformedKind ?? 'json'));
    const text = serializeEvent(ev);
    if (f.cutInside === this.sent) {
      await this.write(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
      this.cut();
    }
    if (f.cutAfter === this.sent) this.cut();
    await this.write(text);
    this.sent++;
  }

  get eventsSent(): number {
    return this.sent;
  }

  /** Ends the body once every queued event is out; a `cut-after` equal to the event count still cuts. */
  async end(): Promise<void> {
    await this.queue;
    const f = this.options.faults;
    if (f.cutAfter === this.sent || f.cutInside === this.sent) {
      this.breakConnection();
      return;
    }
    if (!this.closed) this.res.end();
  }

  private cut(): never {
    this.breakConnection();
    throw new ResponseClosedError('connection cut by fault injection');
  }

  /** Ends the TCP connection without ending the HTTP body: what was written still arrives. */
  private breakConnection(): void {
    this.closed = true;
    const socket = this.res.socket;
    if (!socket) return;
    socket.end();
    setTimeout(() => socket.destroy(), CUT_DESTROY_AFTER_MS).unref();
  }

  private async write(text: string): Promise<void> {
    const bytes = Buffer.from(text, 'utf8');
    const seg = this.options.faults.segmentBytes;
    if (seg === undefined) {
      await this.writeBytes(bytes);
      return;
    }
    for (let i = 0; i < bytes.length; i += seg) {
      await this.writeBytes(bytes.subarray(i, i + seg));
      // Give the socket a turn so each piece leaves as its own segment.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private writeBytes(bytes: Uint8Array): Promise<void> {
    if (this.closed) return Promise.reject(new ResponseClosedError(this.closedBecause));
    if (this.res.write(bytes)) return Promise.resolve();
    const idleMs = this.options.writeIdleTimeoutMs ?? DEFAULT_WRITE_IDLE_TIMEOUT_MS;
    return new Promise<void>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(idle);
        this.res.off('drain', done);
        this.res.off('close', gone);
      };
      const done = (): void => {
        settle();
        resolve();
      };
      const gone = (): void => {
        settle();
        reject(new ResponseClosedError(this.closedBecause));
      };
      const idle = setTimeout(() => {
        settle();
        this.closed = true;
        this.closedBecause = `write-idle timeout: the client read nothing for ${idleMs} ms`;
        this.res.destroy();
        reject(new ResponseClosedError(this.closedBecause));
      }, idleMs);
      this.res.once('drain', done);
      this.res.once('close', gone);
    });
  }
}
