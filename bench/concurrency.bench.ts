/**
 * Scenario 5, concurrency: N real-time telephony streams in one process — Ogg Opus 48 kHz in,
 * 8 kHz μ-law 20 ms frames out (libopus decoding at 8 kHz natively), fed and read on the real
 * clock (bench/lib/telephonyStreams.ts). The largest N whose p99 frame lateness is ≤ 5 ms:
 *
 * 1. on one core: the streams in one thread of a child process pinned with `taskset -c 0`
 *    (unpinned when taskset is missing, said in the notes);
 * 2. with a worker_threads pool across both cores: N/2 streams in each of 2 workers.
 *
 * N doubles from 50 until a step misses, then bisects; a missed step is tried twice (the better
 * trial counts), since a burst of other work on a shared machine can spoil one trial. Beside the largest passing N the same
 * timers run with no pipeline at all ("bare clock"): on a shared machine part of the lateness is
 * the scheduler's, not ours, and the bare clock shows how much.
 *
 *   npm run bench -- concurrency
 */
import { execFileSync, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { LatencyHistogram, round } from './lib/stats.js';
import type { StreamsResult, StreamsSpec } from './lib/telephonyStreams.js';
import type { BenchOptions, BenchResult } from './types.js';

const COMMAND = 'npm run bench -- concurrency';
const TARGET_P99_MS = 5;
const TARGET_PER_CORE = 200;
const START_N = 50;
const MAX_N = 1600;
const MAX_STEPS = 6;
const streamsProcess = new URL('./lib/streamsProcess.ts', import.meta.url);
const streamsWorker = new URL('./lib/streamsWorker.mjs', import.meta.url);

interface Step {
  n: number;
  p50: number;
  p99: number;
  max: number;
  frames: number;
  underruns: number;
  errors: string[];
  cpuMsPerStreamSec: number;
  rssMiB: number;
  pass: boolean;
}

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function toStep(n: number, spec: StreamsSpec, parts: StreamsResult[]): Step {
  const h = new LatencyHistogram();
  for (const p of parts) h.merge(p.hist);
  const cpu = parts.reduce((a, p) => a + p.cpuMs, 0);
  const errors = parts.flatMap((p) => p.errors);
  const p99 = h.quantile(0.99);
  return {
    n,
    p50: h.quantile(0.5),
    p99,
    max: h.maxMs,
    frames: h.count,
    underruns: parts.reduce((a, p) => a + p.underruns, 0),
    errors,
    cpuMsPerStreamSec: cpu / (n * spec.seconds),
    rssMiB: Math.max(...parts.map((p) => p.rssMiB)),
    pass: p99 <= TARGET_P99_MS && errors.length === 0 && h.count > 0,
  };
}

/** One thread, in a child process pinned to core 0. */
function oneCore(spec: StreamsSpec, pin: boolean): Promise<StreamsResult> {
  const node = [process.execPath, '--expose-gc', '--import', 'tsx', streamsProcess.pathname, JSON.stringify([spec])];
  const [cmd, ...args] = pin ? ['taskset', '-c', '0', ...node] : node;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd!, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`streams child exited with ${code}`));
      else resolve((JSON.parse(out.trim().split('\n').at(-1)!) as StreamsResult[])[0]!);
    });
  });
}

/** A pool of `workers` worker threads sharing the streams. */
async function pool(spec: StreamsSpec, workers: number): Promise<StreamsResult[]> {
  return Promise.all(
    Array.from({ length: workers }, (_, w) => {
      const share = Math.floor(spec.streams / workers) + (w < spec.streams % workers ? 1 : 0);
      return new Promise<StreamsResult>((resolve, reject) => {
        const worker = new Worker(streamsWorker, { workerData: { ...spec, streams: share } });
        worker.once('message', (m: StreamsResult) => {
          resolve(m);
          void worker.terminate();
        });
        worker.once('error', reject);
      });
    }),
  );
}

async function search(
  measure: (n: number) => Promise<Step>,
  startN: number,
  maxSteps: number,
  log: (s: Step) => void,
): Promise<{ best: Step | null; fail: Step | null; steps: Step[] }> {
  const steps: Step[] = [];
  let best: Step | null = null;
  let fail: Step | null = null;
  let n = startN;
  while (steps.length < maxSteps && n <= MAX_N) {
    const s = await measure(n);
    steps.push(s);
    log(s);
    if (s.pass) {
      best = s;
      if (fail) break;
      n *= 2;
    } else {
      fail = s;
      break;
    }
  }
  // Bisect between the last pass and the first miss, to within an eighth (steps of 10 streams).
  while (steps.length < maxSteps && fail !== null) {
    const lo = best?.n ?? 0;
    if (fail.n - lo <= Math.max(10, lo / 8)) break;
    const mid = Math.round((lo + fail.n) / 20) * 10;
    if (mid <= lo || mid >= fail.n) break;
    const s = await measure(mid);
    steps.push(s);
    log(s);
    if (s.pass) best = s;
    else fail = s;
  }
  return { best, fail, steps };
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const base: Omit<StreamsSpec, 'streams'> = opts.quick
    ? { seconds: 2.5, warmupSec: 0.3, leadSec: 0.5, eventSec: 0.2 }
    : { seconds: 5, warmupSec: 1, leadSec: 0.5, eventSec: 0.2 };
  const pin = hasTaskset();
  const workers = Math.max(2, Math.min(availableParallelism(), 2));
  const log =
    (label: string) =>
    (s: Step): void => {
      process.stderr.write(
        `  concurrency ${label}: N=${s.n} p50=${round(s.p50, 2)} p99=${round(s.p99, 2)} ` +
          `max=${round(s.max, 1)} ms ${s.pass ? 'pass' : 'MISS'}${s.errors.length ? ` errors: ${s.errors[0]}` : ''}\n`,
      );
    };
  // A miss is tried once more and the better trial kept: on a shared machine a burst of other
  // work can spoil one 5-second trial; a real limit misses twice.
  const twice =
    (measure: (n: number) => Promise<Step>) =>
    async (n: number): Promise<Step> => {
      const first = await measure(n);
      if (first.pass || opts.quick) return first;
      const second = await measure(n);
      return second.p99 < first.p99 ? second : first;
    };
  const measureOne = twice(async (n: number): Promise<Step> =>
    toStep(n, { ...base, streams: n }, [await oneCore({ ...base, streams: n }, pin)]),
  );
  const measurePool = twice(async (n: number): Promise<Step> =>
    toStep(n, { ...base, streams: n }, await pool({ ...base, streams: n }, workers)),
  );
  const bareOne = async (n: number): Promise<Step> =>
    toStep(n, { ...base, streams: n }, [await oneCore({ ...base, streams: n, bare: true }, pin)]);
  const measureThread = twice(async (n: number): Promise<Step> =>
    toStep(n, { ...base, streams: n }, [await oneCore({ ...base, streams: n }, false)]),
  );
  const bareThread = async (n: number): Promise<Step> =>
    toStep(n, { ...base, streams: n }, [await oneCore({ ...base, streams: n, bare: true }, false)]);
  const barePool = async (n: number): Promise<Step> =>
    toStep(n, { ...base, streams: n }, await pool({ ...base, streams: n, bare: true }, workers));

  const results: BenchResult[] = [];
  const modes = [
    {
      label: `one core (one thread${pin ? ', taskset -c 0' : ', not pinned: taskset missing'})`,
      measure: measureOne,
      bare: bareOne,
      target: TARGET_PER_CORE,
      quickN: 10,
    },
    // For reference: the same single JS thread, not pinned (V8's GC and compiler helper threads
    // may then run on the other core), no target of its own.
    ...(pin
      ? [
          {
            label: 'one JS thread, not pinned (GC/compiler helpers free to use the other core)',
            measure: measureThread,
            bare: bareThread,
            target: 0,
            quickN: 10,
          },
        ]
      : []),
    {
      label: `worker_threads pool (${workers} workers, both cores)`,
      measure: measurePool,
      bare: barePool,
      target: TARGET_PER_CORE * workers,
      quickN: 20,
    },
  ];
  for (const mode of modes) {
    if (opts.quick) {
      if (mode.target === 0) continue;
      const s = await mode.measure(mode.quickN);
      log(mode.label)(s);
      results.push({
        ...stepResult(`concurrency / ${mode.label} / ${s.n} streams (smoke run)`, s, null, undefined, true),
        target: `≥ ${mode.target} streams with p99 ≤ ${TARGET_P99_MS} ms`,
      });
      continue;
    }
    const { best, fail, steps } = await search(mode.measure, START_N, MAX_STEPS, log(mode.label));
    const at = best ?? fail!;
    const bare = await mode.bare(at.n);
    log(`${mode.label} bare clock`)(bare);
    const largest = best?.n ?? 0;
    results.push({
      ...stepResult(`concurrency / ${mode.label} / largest N with p99 frame lateness ≤ ${TARGET_P99_MS} ms`, at, bare, largest, false),
      ...(mode.target > 0
        ? {
            target:
              `≥ ${mode.target} streams with p99 ≤ ${TARGET_P99_MS} ms` +
              `${mode.target > TARGET_PER_CORE ? ` (${TARGET_PER_CORE} per core)` : ''}`,
            met: largest >= mode.target,
          }
        : {}),
      notes:
        `steps: ${steps.map((s) => `${s.n}${s.pass ? '✓' : '✗'} p99 ${round(s.p99, 1)} ms`).join(', ')}; ` +
        `bare clock at N=${bare.n}: p99 ${round(bare.p99, 2)} ms (the machine's own timer lateness)` +
        (fail ? `; first miss N=${fail.n}: p99 ${round(fail.p99, 1)} ms` : ''),
    });
  }
  return results;
}

function stepResult(scenario: string, s: Step, bare: Step | null, largest: number | undefined, quick: boolean): BenchResult {
  return {
    scenario,
    figures: {
      ...(largest !== undefined ? { 'largest N': largest } : {}),
      [`N measured`]: s.n,
      'p50 lateness ms': round(s.p50, 2),
      'p99 lateness ms': round(s.p99, 2),
      'max lateness ms': round(s.max, 1),
      'CPU ms per stream-second': round(s.cpuMsPerStreamSec, 3),
      'streams per CPU-second (CPU bound)': Math.round(1000 / s.cpuMsPerStreamSec),
      underruns: s.underruns,
      'RSS MiB': round(s.rssMiB, 1),
      ...(bare ? { 'bare-clock p99 ms': round(bare.p99, 2) } : {}),
    },
    ...(bare ? { anchor: 'bare clock (same timers, no pipeline) p99', ratio: round(s.p99 / Math.max(bare.p99, 0.05), 2) } : {}),
    command: COMMAND,
    issueScenario: 5,
    ...(quick ? { notes: 'smoke run: one step, no search, no verdict' } : {}),
  };
}
