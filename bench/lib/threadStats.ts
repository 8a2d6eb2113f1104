/**
 * Where a process's threads spent a measuring window, from Linux's per-thread scheduler counters
 * (`/proc/self/task/<tid>/schedstat`: ns on a CPU, ns runnable but waiting for a CPU, time
 * slices; `/proc/self/task/<tid>/status`: involuntary context switches).
 *
 * The figure the p99 lateness of a pacing loop hides: the **main thread's run-queue wait**, the
 * time it was ready to run (a timer due, a socket readable) but another thread held both cores.
 * On the 2-core machine a barge-in ON step at 80 calls had the main thread wait 219 ms a second
 * against 14 ms for the same step with barge-in OFF, while its own CPU differed by only 1.15×
 * (native-notes/vad.md, "Where the ON step's lateness comes from").
 *
 * Elsewhere (no `/proc`), {@link sampleThreads} returns an empty map and every figure is NaN.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Nanoseconds per millisecond (schedstat counts ns). */
const NS_PER_MS = 1e6;

export interface ThreadCounters {
  /** ns on a CPU so far. */
  runNs: number;
  /** ns runnable but waiting for a CPU so far. */
  waitNs: number;
  /** Involuntary context switches so far (the thread was preempted). */
  involuntary: number;
}

/** Every thread of this process now, by thread id. */
export function sampleThreads(): Map<number, ThreadCounters> {
  const out = new Map<number, ThreadCounters>();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const sched = readFileSync(`/proc/self/task/${tid}/schedstat`, 'latin1').split(' ');
      const status = readFileSync(`/proc/self/task/${tid}/status`, 'latin1');
      const inv = /^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(status);
      out.set(Number(tid), { runNs: Number(sched[0]), waitNs: Number(sched[1]), involuntary: Number(inv?.[1] ?? NaN) });
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/**
 * This thread's id (Linux; NaN elsewhere), the first field of `/proc/thread-self/stat`. Call it
 * inside a worker to learn the worker's id.
 */
export function ownThreadId(): number {
  try {
    return Number(readFileSync('/proc/thread-self/stat', 'latin1').split(' ', 1)[0]);
  } catch {
    return NaN;
  }
}

export interface ThreadWindow {
  /** The main thread's CPU, ms per wall second. */
  mainRunMsPerS: number;
  /** The main thread's run-queue wait (ready, not running), ms per wall second. */
  mainWaitMsPerS: number;
  /** The main thread's involuntary context switches per wall second. */
  mainPreemptionsPerS: number;
  /** CPU of the threads named in `named` (worker threads whose ids the bench learnt), ms per wall second, by name. */
  named: Record<string, number>;
  /** Run-queue wait of the threads named in `named`, ms per wall second, by name. */
  namedWait: Record<string, number>;
  /** CPU of every other thread (V8's GC and compiler helpers, libuv's pool), ms per wall second. */
  otherRunMsPerS: number;
}

/**
 * The window between two samples, `wallMs` apart. `named` maps a worker's thread id to a label
 * (its CPU is reported apart from the helpers'). Threads that started inside the window count
 * from zero.
 */
export function threadWindow(
  before: Map<number, ThreadCounters>,
  after: Map<number, ThreadCounters>,
  wallMs: number,
  named: ReadonlyMap<number, string> = new Map(),
  mainTid: number = process.pid,
): ThreadWindow {
  const perS = (ns: number): number => ns / NS_PER_MS / (wallMs / 1000);
  const zero: ThreadCounters = { runNs: 0, waitNs: 0, involuntary: 0 };
  const w: ThreadWindow = {
    mainRunMsPerS: NaN,
    mainWaitMsPerS: NaN,
    mainPreemptionsPerS: NaN,
    named: {},
    namedWait: {},
    otherRunMsPerS: after.size === 0 ? NaN : 0,
  };
  for (const [tid, a] of after) {
    const b = before.get(tid) ?? zero;
    const run = a.runNs - b.runNs;
    if (tid === mainTid) {
      w.mainRunMsPerS = perS(run);
      w.mainWaitMsPerS = perS(a.waitNs - b.waitNs);
      w.mainPreemptionsPerS = (a.involuntary - b.involuntary) / (wallMs / 1000);
      continue;
    }
    const label = named.get(tid);
    if (label !== undefined) {
      w.named[label] = (w.named[label] ?? 0) + perS(run);
      w.namedWait[label] = (w.namedWait[label] ?? 0) + perS(a.waitNs - b.waitNs);
    } else w.otherRunMsPerS += perS(run);
  }
  return w;
}
