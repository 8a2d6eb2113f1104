/**
 * espeak-ng in worker threads: synthesis never blocks the service's event loop.
 *
 * A small pool (default one worker: espeak holds one global engine per thread, and this machine
 * has 2 cores) takes jobs FIFO; each job is one text chunk rendered as SSML, streamed back in
 * ~100 ms pieces of 22050 Hz s16 audio plus the espeak events (marks, phonemes) of that piece.
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { ESPEAK_WORKER_SOURCE } from './espeakWorkerSource.js';

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

interface Pending {
  id: number;
  job: SynthJob;
  onPiece: (piece: SynthPiece) => void;
  resolve: () => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  busy: Pending | null;
}

export interface SpeechEngineOptions {
  /** @defaultValue 1 */
  workers?: number;
}

export class SpeechEngine {
  private readonly slots: Slot[] = [];
  private readonly espeakUrl: string;
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  /** Resolves when every worker has loaded espeak (≈ 0.3 s). */
  readonly ready: Promise<void>;

  constructor(options: SpeechEngineOptions = {}) {
    const count = Math.max(1, options.workers ?? 1);
    this.espeakUrl = pathToFileURL(
      createRequire(import.meta.url).resolve('@echogarden/espeak-ng-emscripten'),
    ).href;
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
      ready: new Promise<void>((res, rej) => { markReady = res; markFailed = rej; }),
    };
    worker.on('message', (msg: { kind: string; id?: number; samples?: Int16Array; events?: EspeakEvent[]; message?: string }) => {
      const job = slot.busy;
      switch (msg.kind) {
        case 'ready': markReady(); break;
        case 'fatal': markFailed(new Error(`espeak-ng failed to start: ${msg.message}`)); break;
        case 'audio':
          if (job && job.id === msg.id) {
            try { job.onPiece({ samples: msg.samples!, events: msg.events! }); } catch { /* consumer's fault */ }
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
      fresh.ready.then(() => this.pump(), () => undefined);
    });
    return slot;
  }

  /** Renders one job; `onPiece` is called for each ~100 ms piece, in order, before it resolves. */
  synthesize(job: SynthJob, onPiece: (piece: SynthPiece) => void): Promise<void> {
    if (this.closed) return Promise.reject(new Error('speech engine closed'));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, job, onPiece, resolve, reject });
      this.ready.then(() => this.pump(), reject);
    });
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (slot.busy || this.queue.length === 0) continue;
      const next = this.queue.shift()!;
      slot.busy = next;
      slot.worker.ref();
      slot.worker.postMessage({ id: next.id, ...next.job });
    }
    for (const slot of this.slots) if (!slot.busy) slot.worker.unref();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new Error('speech engine closed'));
    // An idle worker is unref'd: ref it, or nothing keeps the loop alive until it has exited and
    // terminate()'s promise may never settle.
    await Promise.all(this.slots.map((s) => {
      s.worker.ref();
      return s.worker.terminate();
    }));
  }
}
