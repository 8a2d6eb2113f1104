/**
 * Timing for side-by-side comparisons on a shared, drifting machine.
 *
 * Why our own loop and not Benchmark.js (`benchmark`): the figures are CPU time per
 * second of audio, allocation per event and latency percentiles, measured *side by side*.
 * Benchmark.js measures wall-clock ops/s only, runs one contender to completion before the next
 * (so a burst of load from another process lands on one side), cannot take async work without
 * its deferred API, and compiles test bodies from source. {@link interleave} instead runs the
 * contenders in alternating rounds (A B, B A, …), each round long enough for the timer, and
 * reports per-round ratios: drift hits both sides of a round alike and cancels in the ratio.
 */
import { readFileSync } from 'node:fs';
import { median, round } from './stats.js';

export type Clock = 'cpu' | 'wall';

/** CPU ms used by this process so far (user + system, all threads: GC and JIT threads too). */
export function processCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const SCHEDSTAT = '/proc/thread-self/schedstat';

function readThreadCpuMs(): number | null {
  try {
    // First field: nanoseconds this thread spent on a CPU (Linux). For the running thread the
    // kernel refreshes it only at a scheduler tick or switch, so a reading can be up to a tick
    // (4–6 ms measured here) stale: fine for samples of 200 ms and more, useless for short spans.
    return Number(readFileSync(SCHEDSTAT, 'latin1').split(' ', 1)[0]) / 1e6;
  } catch {
    return null;
  }
}

/** Whether {@link threadCpuMs} is this thread's own CPU time (else the whole process's). */
export const threadClock = readThreadCpuMs() !== null;

/**
 * CPU ms used by the calling thread so far, for long samples (≥ 200 ms, see above):
 * `/proc/thread-self/schedstat` on Linux, so V8's background GC and compiler threads are not
 * charged to the work measured (Node 20 has no `process.threadCpuUsage`); else the whole
 * process's `process.cpuUsage()`.
 */
export const threadCpuMs: () => number = threadClock ? (): number => readThreadCpuMs()! : processCpuMs;

/** Precise CPU ms of the whole process (getrusage): for short spans. */
export const cpuMs = processCpuMs;

export function wallMs(): number {
  return performance.now();
}

export const gc: () => void = (globalThis as { gc?: () => void }).gc ?? ((): void => undefined);
export const hasGc = (globalThis as { gc?: unknown }).gc !== undefined;

export interface Contender {
  name: string;
  /** One unit of work (e.g. decode the whole input once). Each call must start fresh. */
  run(): unknown;
}

export interface InterleaveOptions {
  rounds: number;
  /** Each contender repeats its unit within a round until it has used this much time (keep this
   * ≥ 200 ms for claims: the process clock counts other threads' bursts too). @defaultValue 200 */
  minSampleMs?: number;
  /** @defaultValue 'cpu' */
  clock?: Clock;
  /** Untimed calls per contender first (JIT, wasm instantiation). @defaultValue 3 */
  warmup?: number;
  /** Hard cap on repeats of one unit within a sample (bounded loops). @defaultValue 10 000 */
  maxRepeats?: number;
}

export interface InterleaveResult {
  /** Median ms per unit, by contender name. */
  ms: Record<string, number>;
  /** Median over rounds of (contender ms / anchor ms); the anchor is the first contender. */
  ratio: Record<string, number>;
  /** Spread of the ratio over rounds: [min, max]. */
  ratioRange: Record<string, [number, number]>;
  rounds: number;
}

async function sample(c: Contender, minMs: number, now: () => number, maxRepeats: number): Promise<number> {
  const t0 = now();
  let runs = 0;
  let used = 0;
  do {
    const r = c.run();
    if (r instanceof Promise) await r;
    runs++;
    used = now() - t0;
  } while (used < minMs && runs < maxRepeats);
  return used / runs;
}

/**
 * Measures contenders side by side in alternating order. The first contender is the anchor of
 * the ratios.
 */
export async function interleave(contenders: Contender[], opts: InterleaveOptions): Promise<InterleaveResult> {
  // The process clock (all threads), not the thread clock: V8's GC and compiler threads work for
  // the code measured, and a user's process pays for them (issue 21).
  const now = (opts.clock ?? 'cpu') === 'cpu' ? processCpuMs : wallMs;
  const minMs = opts.minSampleMs ?? 200;
  const maxRepeats = opts.maxRepeats ?? 10_000;
  for (const c of contenders) {
    for (let i = 0; i < (opts.warmup ?? 3); i++) {
      const r = c.run();
      if (r instanceof Promise) await r;
    }
  }
  const times: number[][] = contenders.map(() => []);
  for (let round = 0; round < opts.rounds; round++) {
    const order = contenders.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    // No forced gc() between samples: on a real stream nothing collects on cue, and a forced full
    // GC before each sample de-optimised the engine's code (hundreds of deopts, reason "weak
    // objects"), so every sample measured re-optimisation (issue 21). Memory is measured in runs
    // of its own (alloc.ts, longStream.ts, concurrentPeak.ts).
    for (const i of order) {
      times[i]!.push(await sample(contenders[i]!, minMs, now, maxRepeats));
    }
  }
  const ms: Record<string, number> = {};
  const ratio: Record<string, number> = {};
  const ratioRange: Record<string, [number, number]> = {};
  contenders.forEach((c, i) => {
    ms[c.name] = median(times[i]!);
    const ratios = times[i]!.map((t, r) => t / times[0]![r]!);
    ratio[c.name] = round(median(ratios), 4);
    ratioRange[c.name] = [round(Math.min(...ratios), 3), round(Math.max(...ratios), 3)];
  });
  return { ms, ratio, ratioRange, rounds: opts.rounds };
}

/** A Promise that resolves on the next turn of the event loop (after I/O callbacks). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
