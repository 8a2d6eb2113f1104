/**
 * The detector threads: a small pool of worker threads that run the calls' barge-in detectors off
 * the event loop that paces every call's outbound media (native-notes/vad.md, "Detectors off the
 * pacing loop"). Each thread hosts many calls (./detectorWorker.ts, one Silero session per
 * thread); a call is placed on the thread with the fewest calls, a new thread starting while there
 * are fewer than {@link DetectorThreadOptions.threads}.
 *
 * A thread keeps the process alive only while it has calls (their answers must arrive); one with
 * no call left is unref'd, ends after `idleMs`, and is asked to end when the process is about to
 * exit (`beforeExit`). A thread that cannot start or dies fails each of its calls (their barge-in by
 * voice goes off with one warning; the calls go on); the next call starts a new thread.
 *
 * A thread stopped by Node while it is inside onnxruntime-node's native code aborts the whole
 * process (SIGABRT, exit code 134; native-notes/vad.md, "The detector thread and process exit"). So
 * each thread's native calls go through a gate (../vad/nativeGate.ts) that this side closes, waiting
 * until the thread is out, before Node stops it: on `process.exit()` and any other exit
 * (`process.on('exit')`, synchronous, before Node stops the threads), and before a `terminate()`.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { InvalidOptionError } from '../../errors.js';
import { systemClock, type Clock } from '../../internal/clock.js';
import { NATIVE_EXIT_WAIT_MS, NativeGate } from '../vad/nativeGate.js';
import { holdOnnxRuntime } from '../vad/silero.js';
import { choiceOption } from './optionChecks.js';
import type { FromDetector, PortableError, ToDetector } from './detectorMessages.js';
import { MAX_NICE, MIN_NICE } from './threadNice.js';

export interface DetectorThreadOptions {
  /** Most threads at once. @defaultValue {@link defaultDetectorThreads}() */
  threads?: number | undefined;
  /** A thread with no call left ends after this long (ms; 0: at once). @defaultValue {@link DEFAULT_DETECTOR_THREAD_IDLE_MS} */
  idleMs?: number | undefined;
  /**
   * At most one message to a thread per this many ms (0: one per turn of the event loop, with no
   * tick). A call's frame posted when nothing went to its thread
   * for a tick goes at the end of the turn; frames posted within a tick of the last message wait
   * for the tick's end and go together. @defaultValue {@link DEFAULT_DETECTOR_TICK_MS}
   */
  tickMs?: number | undefined;
  /**
   * @internal How a call's audio reaches its thread: `'shared'`, a ring in shared memory per call
   * (./frameRing.ts) and one empty message per tick at most as the doorbell; `'messages'`, a
   * message per frame batched per tick (the transport before the ring, kept for the benches'
   * pairing). Calls already placed keep theirs. @defaultValue {@link DEFAULT_DETECTOR_TRANSPORT}
   */
  transport?: DetectorTransport | undefined;
  /**
   * @internal How a thread learns that a call wrote to its ring: `'message'`, an empty message
   * from the pacing loop at most once per tick (see {@link tickMs}); `'poll'`, the thread looks at
   * its calls' rings on its own timer every {@link tickMs} while it hosts calls, and the pacing
   * loop sends nothing per frame (no wake of another thread from the pacing loop). Running threads
   * switch at once. @defaultValue {@link DEFAULT_DETECTOR_DOORBELL}
   */
  doorbell?: DetectorDoorbell | undefined;
  /**
   * Added to a new detector thread's nice value when it starts, as `nice -n` does (an integer from
   * -20 to 19; the result is clamped to the system's -20..19): positive lowers the thread's
   * scheduling priority, so the thread that paces the calls' media gets a core first when both
   * want one, while the detector still takes any idle CPU. `0` leaves the thread at the priority
   * it inherits from the process. Where the system cannot set it (no `/proc/thread-self`, or a
   * negative value without CAP_SYS_NICE) the thread runs at the process's priority and the first
   * call on it gets one notice (`vad.onNotice`). Linux only; threads already running keep theirs.
   * @defaultValue {@link DEFAULT_DETECTOR_THREAD_NICE}
   */
  nice?: number | undefined;
}

/** How calls' audio reaches the detector threads (see {@link DetectorThreadOptions.transport}). */
export type DetectorTransport = 'shared' | 'messages';

/** How a detector thread learns of new ring records (see {@link DetectorThreadOptions.doorbell}). */
export type DetectorDoorbell = 'message' | 'poll';

/** The pacing loop rings the thread (native-notes/vad.md, "Who the pacing thread waits behind"). */
export const DEFAULT_DETECTOR_DOORBELL: DetectorDoorbell = 'message';

/**
 * The shared-memory ring: no message, array or object per frame on either thread, and no answer
 * without decisions (native-notes/vad.md, "Audio to the detector thread in shared memory").
 */
export const DEFAULT_DETECTOR_TRANSPORT: DetectorTransport = 'shared';

/**
 * A thread with no call waits this long for the next one before it ends: starting a thread and
 * loading Silero in it takes ~100–200 ms of that thread's CPU, so a bridge between calls keeps it.
 */
export const DEFAULT_DETECTOR_THREAD_IDLE_MS = 30_000;

/**
 * The detector thread's tick: at most one message to a thread per 5 ms. The bridge reads each
 * call's frames in their own turns of the event loop (one or two calls a turn), so posting per turn
 * woke the thread ~2 500 times a second at 50 calls and gave Silero 1–2 windows a run: the thread
 * took 10.5 CPU ms per call-second where the detector alone takes 3.2 (native-notes/vad.md, "The
 * quiet rerun after the evening's merges"). A 5 ms tick bounds the wakes at 200 a second whatever
 * the calls, and costs a frame at most 5 ms on its way to the detector (none when the thread was
 * idle for a tick): the pause's p95 through a call was 143 ms against a 150 ms target, so the tick
 * fits the 7 ms left (native-notes/vad.md, "Detector thread on a tick").
 */
export const DEFAULT_DETECTOR_TICK_MS = 5;

/** A polling thread's timer never runs faster than this (ms): a `tickMs` of 0 means "per turn" for messages, not a busy loop. */
const MIN_POLL_MS = 1;

/**
 * The detector thread runs at nice +10 from the process's: when the pacing loop's thread and the
 * detector thread both want a core, the pacing thread gets it (weight 1024 against 110), and the
 * detector still takes any idle CPU. Paired steps of the telephony bench with barge-in ON (30 and
 * 60 calls, load 6–7, three sessions on 2 cores) had the pacing thread wait for a core 0.47–0.84×
 * as long as at nice 0 in every pair; nice 19 did no better for it and leaves the detector 7× less
 * when the machine is over-committed (then a nice'd detector can fall 5 s behind:
 * `BARGE_IN_BEHIND`). See native-notes/vad.md, "The detector thread at a lower priority".
 */
export const DEFAULT_DETECTOR_THREAD_NICE = 10;

/** One thread per core but the one the pacing loop runs on, at least one. */
export function defaultDetectorThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

/** What a call hears from its detector thread. */
export interface DetectorThreadClient {
  message(m: FromDetector): void;
  /** The thread stopped or could not start: this call's detector is gone. */
  failed(error: PortableError): void;
}

interface Thread {
  worker: Worker;
  /** Closed before Node stops the thread (exit, terminate): it is then out of onnxruntime-node's native code. */
  gate: NativeGate;
  calls: Map<number, DetectorThreadClient>;
  idleTimer: NodeJS.Timeout | null;
  ending: boolean;
  /** Messages waiting for the thread's next post (one postMessage per thread per tick). */
  outbox: ToDetector[];
  transfer: ArrayBuffer[];
  /** A call wrote to its ring since the last post: the next post goes even if {@link outbox} is empty. */
  rung: boolean;
  /** The next post is scheduled: at the end of this turn (`setImmediate`), or at the tick's end (a clock timer). */
  flush: { immediate: NodeJS.Immediate } | { timer: unknown } | null;
  /** Posts what is queued (made once per thread: scheduling a post allocates no closure). */
  flushFn: () => void;
  /** Clock time of the last post ({@link DetectorThreadOptions.tickMs} apart at most one). */
  postedAt: number;
  /** The thread's id and nice value, once it has said (Linux; undefined elsewhere). */
  tid: number | undefined;
  nice: number | undefined;
  /** The thread's notice (its priority could not be set) until a call on it has had it. */
  notice: string | undefined;
  /** The thread looks at its rings on its own timer (it was told `poll`): {@link DetectorThreads.ring} posts nothing. */
  polls: boolean;
}

/** The message that only says "look at your calls' rings" (nothing queued; posting copies it, so it is shared). */
const DOORBELL: readonly ToDetector[] = [];

/** This module's own file: `.ts` when running from the sources (under tsx or vitest), `.js` from the package. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');

/** What a detector thread is started with (./detectorWorker.ts reads it). */
export interface DetectorWorkerData {
  nice: number;
  /** The thread's native gate (../vad/nativeGate.ts). */
  gate: SharedArrayBuffer;
  /** From the sources: the .ts entry ./detectorWorkerTs.mjs imports. */
  entry?: string;
}

function startWorker(nice: number, gate: NativeGate): Worker {
  holdOnnxRuntime(); // so a later thread can load it after this one ends (see silero.ts)
  const workerData: DetectorWorkerData = { nice, gate: gate.buffer };
  if (!FROM_SOURCES) return new Worker(new URL('./detectorWorker.js', import.meta.url), { workerData });
  workerData.entry = new URL('./detectorWorker.ts', import.meta.url).href;
  return new Worker(new URL('./detectorWorkerTs.mjs', import.meta.url), { workerData });
}

export class DetectorThreads {
  private readonly threads: Thread[] = [];
  private nextId = 1;
  private maxThreads = defaultDetectorThreads();
  private idleMs = DEFAULT_DETECTOR_THREAD_IDLE_MS;
  private tickMs = DEFAULT_DETECTOR_TICK_MS;
  private nice = DEFAULT_DETECTOR_THREAD_NICE;
  private doorbell = DEFAULT_DETECTOR_DOORBELL;
  /** How new calls' audio goes to their thread. */
  transport: DetectorTransport = DEFAULT_DETECTOR_TRANSPORT;
  /** Messages posted to threads so far (each carries one or more calls' messages): the threads' wakes. */
  posts = 0;
  /** Messages the threads sent back so far (each one batch of answers), for the benches. */
  answers = 0;

  /** `clock`: the tick's time and timers (tests inject one). */
  constructor(private readonly clock: Clock = systemClock) {}
  /** Where calls' messages go: their thread, by call id. */
  private readonly placed = new Map<number, Thread>();
  /** Every thread started and not yet exited, ending ones too (a stopping thread may still be in a Silero run). */
  private readonly live = new Set<Thread>();

  configure(options: DetectorThreadOptions): void {
    if (options.threads !== undefined) {
      if (!(Number.isInteger(options.threads) && options.threads >= 1)) {
        throw new InvalidOptionError('threads', `threads must be an integer ≥ 1, got ${options.threads}`);
      }
      this.maxThreads = options.threads;
    }
    if (options.idleMs !== undefined) {
      if (!(options.idleMs >= 0 && Number.isFinite(options.idleMs))) {
        throw new InvalidOptionError('idleMs', `idleMs must be a finite number ≥ 0, got ${options.idleMs}`);
      }
      this.idleMs = options.idleMs;
    }
    if (options.tickMs !== undefined) {
      if (!(options.tickMs >= 0 && Number.isFinite(options.tickMs))) {
        throw new InvalidOptionError('tickMs', `tickMs must be a finite number ≥ 0, got ${options.tickMs}`);
      }
      this.tickMs = options.tickMs;
    }
    if (options.transport !== undefined) {
      this.transport = choiceOption('transport', options.transport, ['shared', 'messages']);
    }
    if (options.doorbell !== undefined) {
      this.doorbell = choiceOption('doorbell', options.doorbell, ['message', 'poll']);
      for (const t of this.threads) if (!t.ending) this.tellDoorbell(t);
    }
    if (options.nice !== undefined) {
      if (!(Number.isInteger(options.nice) && options.nice >= MIN_NICE && options.nice <= MAX_NICE)) {
        throw new InvalidOptionError('nice', `nice must be an integer from ${MIN_NICE} to ${MAX_NICE}, got ${options.nice}`);
      }
      this.nice = options.nice;
    }
  }

  /** Threads running now. */
  get size(): number {
    return this.threads.length;
  }

  /** Calls on each running thread. */
  get load(): number[] {
    return this.threads.map((t) => t.calls.size);
  }

  /** Each running thread's id (Linux), once it has started; undefined until then or elsewhere. */
  get threadIds(): (number | undefined)[] {
    return this.threads.map((t) => t.tid);
  }

  /** The worker threads (for tests that stop one from outside). */
  get workers(): readonly Worker[] {
    return this.threads.map((t) => t.worker);
  }

  /** Places a call on a thread; returns its id. */
  attach(client: DetectorThreadClient): number {
    const id = this.nextId++;
    let thread: Thread | undefined;
    for (const t of this.threads) if (!t.ending && (thread === undefined || t.calls.size < thread.calls.size)) thread = t;
    if (thread === undefined || (thread.calls.size > 0 && this.threads.length < this.maxThreads)) thread = this.start();
    if (thread.idleTimer !== null) {
      clearTimeout(thread.idleTimer);
      thread.idleTimer = null;
    }
    if (thread.calls.size === 0) thread.worker.ref();
    thread.calls.set(id, client);
    this.placed.set(id, thread);
    if (thread.notice !== undefined) this.notice(thread);
    return id;
  }

  /**
   * Queues a call's message for its thread; each call's order is kept. A thread gets at most one
   * message per tick ({@link DetectorThreadOptions.tickMs}): when its last post is a tick old or
   * more, what is queued goes at the end of this turn of the event loop (`setImmediate`: no added
   * latency, and a turn that reads many calls' frames pays a message's fixed cost once); else it
   * waits for the tick's end, with everything queued meanwhile.
   */
  post(id: number, message: ToDetector, transfer?: ArrayBuffer): void {
    const thread = this.placed.get(id);
    if (thread === undefined) return;
    thread.outbox.push(message);
    if (transfer !== undefined) thread.transfer.push(transfer);
    this.schedule(thread);
  }

  /**
   * The call wrote to its ring (./frameRing.ts): its thread is told to look, on the same tick as
   * {@link post} (at the end of this turn after an idle tick, else at the tick's end with whatever
   * else is queued), by an empty message when nothing else is queued.
   */
  ring(id: number): void {
    const thread = this.placed.get(id);
    if (thread === undefined || thread.polls) return;
    thread.rung = true;
    this.schedule(thread);
  }

  private schedule(thread: Thread): void {
    if (thread.flush !== null) return;
    const wait = thread.postedAt + this.tickMs - this.clock.now();
    if (wait <= 0) thread.flush = { immediate: setImmediate(thread.flushFn) };
    else thread.flush = { timer: this.clock.setTimeout(thread.flushFn, wait) };
  }

  private flush(thread: Thread): void {
    thread.flush = null;
    if ((thread.outbox.length === 0 && !thread.rung) || thread.ending) return;
    thread.rung = false;
    const batch = thread.outbox.length === 0 ? DOORBELL : thread.outbox;
    const transfer = thread.transfer;
    if (batch !== DOORBELL) {
      thread.outbox = [];
      thread.transfer = [];
    }
    thread.postedAt = this.clock.now();
    this.posts++;
    try {
      thread.worker.postMessage(batch, transfer);
    } catch (err) {
      this.fail(thread, { name: 'Error', code: undefined, message: (err as Error)?.message ?? String(err), field: undefined });
    }
  }

  /**
   * Sends what waits for the call's thread now, not at the tick's end: someone waits for the
   * call's answers (`bargeInSettled()`: tests and benches that move an injected clock only once
   * the thread has answered, and would otherwise wait a real tick at every step).
   */
  flushNow(id: number): void {
    const thread = this.placed.get(id);
    const f = thread?.flush;
    if (thread === undefined || f === undefined || f === null || !('timer' in f)) return;
    this.clock.clearTimeout(f.timer);
    this.flush(thread);
  }

  /** A thread that ends drops what waits for it (its calls are gone) and its scheduled post. */
  private cancelFlush(thread: Thread): void {
    const f = thread.flush;
    thread.flush = null;
    thread.outbox = [];
    thread.transfer = [];
    thread.rung = false;
    if (f === null) return;
    if ('immediate' in f) clearImmediate(f.immediate);
    else this.clock.clearTimeout(f.timer);
  }

  /** Tells the thread how it learns of ring records, when that differs from what it was told. */
  private tellDoorbell(thread: Thread): void {
    const polls = this.doorbell === 'poll';
    if (thread.polls === polls) return;
    thread.polls = polls;
    // Rings written before the switch are looked at on the thread's next wake (this message, or its timer).
    thread.outbox.push({ t: 'poll', ms: polls ? Math.max(this.tickMs, MIN_POLL_MS) : 0 });
    this.schedule(thread);
  }

  /** Whether the call is still on a thread. */
  has(id: number): boolean {
    return this.placed.has(id);
  }

  /** The call no longer needs its thread. */
  release(id: number): void {
    const thread = this.placed.get(id);
    if (thread === undefined) return;
    this.placed.delete(id);
    thread.calls.delete(id);
    if (thread.calls.size > 0 || thread.ending) return;
    thread.worker.unref();
    if (this.idleMs === 0) {
      this.stop(thread);
      return;
    }
    thread.idleTimer = setTimeout(() => this.stop(thread), this.idleMs);
    thread.idleTimer.unref();
  }

  private start(): Thread {
    const gate = new NativeGate();
    const worker = startWorker(this.nice, gate);
    const thread: Thread = {
      worker,
      gate,
      calls: new Map(),
      idleTimer: null,
      ending: false,
      outbox: [],
      transfer: [],
      rung: false,
      flush: null,
      flushFn: () => this.flush(thread),
      postedAt: Number.NEGATIVE_INFINITY,
      tid: undefined,
      nice: undefined,
      notice: undefined,
      polls: false,
    };
    this.tellDoorbell(thread);
    worker.on('message', (batch: FromDetector[]) => {
      this.answers++;
      for (const m of batch) {
        if (m.t !== 'thread') {
          thread.calls.get(m.id)?.message(m);
          continue;
        }
        thread.tid = m.tid;
        thread.nice = m.nice;
        thread.notice = m.notice;
        if (m.notice !== undefined) this.notice(thread);
      }
    });
    worker.on('error', (err: Error) => this.fail(thread, { name: err.name, code: undefined, message: err.message, field: undefined }));
    worker.on('exit', (code) => {
      this.live.delete(thread);
      if (this.live.size === 0) process.off('exit', this.closeGates);
      if (!thread.ending)
        this.fail(thread, { name: 'Error', code: undefined, message: `detector thread exited (code ${code})`, field: undefined });
    });
    // Ref'd while it has calls (attach adds the first); note that adding a 'message' listener refs it too.
    worker.unref();
    if (this.threads.length === 0) process.on('beforeExit', this.endIdle);
    if (this.live.size === 0) process.on('exit', this.closeGates);
    this.live.add(thread);
    this.threads.push(thread);
    return thread;
  }

  /** The thread's notice goes once, to its first call (that call's `vad.onNotice`); kept for the next call if it has none. */
  private notice(thread: Thread): void {
    const first = thread.calls.entries().next();
    if (first.done === true || thread.notice === undefined) return;
    const [id, client] = first.value;
    const message = thread.notice;
    thread.notice = undefined;
    client.message({ t: 'notice', id, message });
  }

  /**
   * The process exits (`process.exit()`, an uncaught exception, or the end of the event loop):
   * Node stops every thread right after the `'exit'` listeners, so each thread's gate closes now
   * and this waits (blocking, at most {@link NATIVE_EXIT_WAIT_MS} in all) until every thread is out
   * of onnxruntime-node's native code.
   */
  private readonly closeGates = (): void => {
    for (const thread of this.live) thread.gate.shut();
    const deadline = performance.now() + NATIVE_EXIT_WAIT_MS;
    for (const thread of this.live) thread.gate.waitOut(Math.max(0, deadline - performance.now()));
  };

  /** The process has nothing left to do: idle threads end first (held by a ref until they have). */
  private readonly endIdle = (): void => {
    for (const thread of [...this.threads]) if (thread.calls.size === 0) this.stop(thread);
  };

  private stop(thread: Thread): void {
    if (thread.ending) return;
    thread.ending = true;
    this.remove(thread);
    thread.worker.ref(); // the process waits for the thread's own exit
    // Asked, not terminated: terminating a thread while onnxruntime-node runs in it aborts the
    // process (a known onnxruntime-node problem); asked, it ends between two messages.
    const stop: ToDetector[] = [{ t: 'stop' }];
    thread.worker.postMessage(stop);
  }

  private fail(thread: Thread, error: PortableError): void {
    const wasEnding = thread.ending;
    thread.ending = true;
    this.remove(thread);
    const calls = [...thread.calls.values()];
    for (const id of thread.calls.keys()) this.placed.delete(id);
    thread.calls.clear();
    if (!wasEnding) {
      // Out of native code first (see closeGates): a thread terminated inside it aborts the process.
      thread.gate.shut();
      thread.gate.waitOut();
      void thread.worker.terminate();
    }
    for (const c of calls) c.failed(error);
  }

  private remove(thread: Thread): void {
    this.cancelFlush(thread);
    if (thread.idleTimer !== null) clearTimeout(thread.idleTimer);
    thread.idleTimer = null;
    const i = this.threads.indexOf(thread);
    if (i >= 0) this.threads.splice(i, 1);
    if (this.threads.length === 0) process.off('beforeExit', this.endIdle);
  }
}

/** The process's detector threads. */
export const detectorThreads = new DetectorThreads();

/**
 * Sets how many detector threads barge-in by voice may run and how long an idle one stays
 * (process-wide; calls already placed keep their thread).
 * @example configureDetectorThreads({ threads: 2 })
 */
export function configureDetectorThreads(options: DetectorThreadOptions): void {
  detectorThreads.configure(options);
}
