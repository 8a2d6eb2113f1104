/**
 * espeak-ng in worker threads: synthesis never blocks the service's event loop.
 *
 * A pool of workers (espeak-ng-emscripten holds one global engine per thread, so one engine per
 * worker; default one per core) takes units of work from a {@link UnitQueue}; each unit is one
 * text chunk of one request rendered as SSML, streamed back in ~100 ms pieces of 22050 Hz s16
 * audio plus the espeak events (marks, phonemes) of that piece. The queue is fair by default:
 * every waiting request's chunk N runs before any request's chunk N + 1, so under load each
 * request's first audio waits for one round of (small) first chunks, not for whole requests.
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { AbortError, InvalidOptionError } from '../../errors.js';
import { ESPEAK_WORKER_SOURCE } from './espeakWorkerSource.js';
import { SCHEDULER_KINDS, UnitQueue, type SchedulerKind } from './UnitQueue.js';

/** espeak-ng's fixed output rate. */
export const ESPEAK_SAMPLE_RATE = 22050;

export interface SynthJob {
  ssml: string;
  /** espeak voice name, e.g. `en-us+f3`. */
  voice: string;
  /** Words per minute (espeak: 80–450). */
  rate: number;
  /** 0–100. */
  pitch: number;
  /** Pitch range 0–100. */
  range: number;
}

/**
 * `[type, audio_position in ms from the job's start, mark name or phoneme ('' otherwise),
 * text_position (1-based code point in the SSML)]`.
 */
export type EspeakEvent = [type: string, ms: number, name: string, textPos: number];

export interface SynthPiece {
  samples: Int16Array;
  events: EspeakEvent[];
}

/** Where a unit of synthesis belongs: what the scheduler orders by and the observer sees. */
export interface SynthUnit {
  /** The request the unit is part of (any label; only the observer reads it). @defaultValue '' */
  request?: string;
  /** The unit's index within its request (its chunk_seq). @defaultValue 0 */
  seq?: number;
  /** Aborting drops the unit if it is still waiting; its promise rejects with an `AbortError`. */
  signal?: AbortSignal;
}

/** What {@link SpeechEngineOptions.onDispatch} is told each time a unit starts on a worker. */
export interface DispatchedUnit {
  request: string;
  seq: number;
  /** The worker's index in the pool. */
  worker: number;
}

interface Pending {
  id: number;
  seq: number;
  request: string;
  job: SynthJob;
  onPiece: (piece: SynthPiece) => void;
  resolve: () => void;
  reject: (err: Error) => void;
  /** Detaches the abort listener once the unit has started or settled. */
  release: () => void;
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  busy: Pending | null;
}

export interface SpeechEngineOptions {
  /** espeak worker threads. @defaultValue `os.availableParallelism()` */
  workers?: number;
  /**
   * Which waiting unit a free worker takes: `fair` (lowest chunk index first) or `fifo` (arrival
   * order, the scheduler before issue 19; kept for the load bench's side-by-side run).
   * @defaultValue 'fair'
   */
  scheduler?: SchedulerKind;
  /** Called as each unit starts on a worker (tests record the order; the bench counts). */
  onDispatch?: (unit: DispatchedUnit) => void;
}

/** The default pool size: one espeak engine per core. */
export function defaultWorkerCount(): number {
  return availableParallelism();
}

export class SpeechEngine {
  private readonly slots: Slot[] = [];
  private readonly espeakUrl: string;
  private readonly queue: UnitQueue<Pending>;
  private readonly onDispatch: ((unit: DispatchedUnit) => void) | undefined;
  private nextId = 1;
  private closed = false;
  /** The scheduling policy (synthesis also takes its main-thread turns by it). */
  readonly scheduler: SchedulerKind;
  /** Resolves when every worker has loaded espeak (≈ 0.3 s). */
  readonly ready: Promise<void>;

  constructor(options: SpeechEngineOptions = {}) {
    const count = options.workers ?? defaultWorkerCount();
    if (!Number.isInteger(count) || count < 1) throw new InvalidOptionError('workers', `workers: must be a whole number ≥ 1, got ${count}`);
    const kind = options.scheduler ?? 'fair';
    if (!SCHEDULER_KINDS.includes(kind))
      throw new InvalidOptionError('scheduler', `scheduler: must be one of ${SCHEDULER_KINDS.join(', ')}`);
    this.scheduler = kind;
    this.queue = new UnitQueue<Pending>(kind);
    this.onDispatch = options.onDispatch;
    this.espeakUrl = pathToFileURL(createRequire(import.meta.url).resolve('@echogarden/espeak-ng-emscripten')).href;
    for (let i = 0; i < count; i++) this.slots.push(this.spawn());
    this.ready = Promise.all(this.slots.map((s) => s.ready)).then(() => undefined);
    // A failed start is reported through `ready` and every job; never an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  private spawn(): Slot {
    const worker = new Worker(ESPEAK_WORKER_SOURCE, { eval: true, workerData: { espeakUrl: this.espeakUrl } });
    worker.unref();
    let markReady!: () => void;
    let markFailed!: (err: Error) => void;
    const slot: Slot = {
      worker,
      busy: null,
      ready: new Promise<void>((res, rej) => {
        markReady = res;
        markFailed = rej;
      }),
    };
    worker.on('message', (msg: { kind: string; id?: number; samples?: Int16Array; events?: EspeakEvent[]; message?: string }) => {
      const job = slot.busy;
      switch (msg.kind) {
        case 'ready':
          markReady();
          break;
        case 'fatal':
          markFailed(new Error(`espeak-ng failed to start: ${msg.message}`));
          break;
        case 'audio':
          if (job && job.id === msg.id) {
            try {
              job.onPiece({ samples: msg.samples!, events: msg.events! });
            } catch {
              /* consumer's fault */
            }
          }
          break;
        case 'done':
        case 'error':
          if (job && job.id === msg.id) {
            slot.busy = null;
            if (msg.kind === 'done') job.resolve();
            else job.reject(new Error(`speech synthesis failed: ${msg.message}`));
            this.pump();
          }
          break;
      }
    });
    worker.on('error', (err) => {
      markFailed(err);
      slot.busy?.reject(err);
      slot.busy = null;
    });
    // A worker that dies (wasm abort, out of memory) fails its job and is replaced, so one bad
    // job never leaves the service without a synthesizer.
    worker.on('exit', () => {
      if (this.closed) return;
      slot.busy?.reject(new Error('speech worker exited'));
      slot.busy = null;
      const i = this.slots.indexOf(slot);
      if (i < 0) return;
      const fresh = this.spawn();
      this.slots[i] = fresh;
      fresh.ready.then(
        () => this.pump(),
        () => undefined,
      );
    });
    return slot;
  }

  /**
   * Renders one job; `onPiece` is called for each ~100 ms piece, in order, before it resolves.
   * `unit` places it in the schedule (which request, which chunk) and may cancel it while it waits.
   */
  synthesize(job: SynthJob, onPiece: (piece: SynthPiece) => void, unit: SynthUnit = {}): Promise<void> {
    if (this.closed) return Promise.reject(new Error('speech engine closed'));
    const signal = unit.signal;
    if (signal?.aborted) return Promise.reject(new AbortError('speech request cancelled'));
    return new Promise<void>((resolve, reject) => {
      const pending: Pending = {
        id: this.nextId++,
        seq: unit.seq ?? 0,
        request: unit.request ?? '',
        job,
        onPiece,
        resolve,
        reject,
        release: () => signal?.removeEventListener('abort', cancel),
      };
      // A cancelled request's waiting unit leaves the queue at once; a running one finishes (espeak
      // cannot be interrupted) and its pieces go to a consumer that has stopped listening.
      const cancel = (): void => {
        if (this.queue.remove(pending)) reject(new AbortError('speech request cancelled'));
      };
      signal?.addEventListener('abort', cancel, { once: true });
      this.queue.push(pending);
      this.ready.then(
        () => this.pump(),
        (err: Error) => {
          pending.release();
          reject(err);
        },
      );
    });
  }

  private pump(): void {
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[i]!;
      if (slot.busy) continue;
      const next = this.queue.take();
      if (next === undefined) break;
      next.release();
      slot.busy = next;
      slot.worker.ref();
      slot.worker.postMessage({ id: next.id, ...next.job });
      try {
        this.onDispatch?.({ request: next.request, seq: next.seq, worker: i });
      } catch {
        /* observer's fault */
      }
    }
    for (const slot of this.slots) if (!slot.busy) slot.worker.unref();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const p of this.queue.drain()) {
      p.release();
      p.reject(new Error('speech engine closed'));
    }
    // An idle worker is unref'd: ref it, or nothing keeps the loop alive until it has exited and
    // terminate()'s promise may never settle.
    await Promise.all(
      this.slots.map((s) => {
        s.worker.ref();
        return s.worker.terminate();
      }),
    );
  }
}
