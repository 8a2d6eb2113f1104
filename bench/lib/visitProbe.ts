/**
 * Scenario 5's loop at one N, contenders paired: how long one stream's visit holds the loop, with
 * lateness and CPU beside it (native-notes/engine-performance.md, "Visit bounds"). Each round runs
 * every contender once, as the concurrency bench runs a step (a child process pinned with
 * `taskset -c 0`, the real capture paced on the real clock, bench/lib/telephonyStreams.ts), in
 * rotated order. Not a bench module (no verdict): on a loaded machine the lateness is direction
 * only; the visit durations' median and p90 and the CPU ratio hold better.
 *
 *   N=80 ROUNDS=2 AHEAD=200,100,60 flock /tmp/bench.lock node --import tsx bench/lib/visitProbe.ts
 *
 * Contenders: `floor`, and the engine (`readFrame()`) at each `AHEAD` decode-ahead in ms, each with
 * every `STARTS` pattern (golden, grid: StreamsSpec.starts).
 * Visits are timed in process CPU (VISIT_CLOCK=wall for wall time).
 * OUT=file.jsonl appends each child's raw result (with its contender and round) for later analysis.
 * CAPTURE=file.sse replays a recorded body instead of recording one from the local service.
 * OLD_TREE=/path/to/checkout adds `old@<ms>` contenders: that checkout's engine at each `AHEAD`
 * (StreamsSpec.engineModule), before/after in one run.
 *
 * WARMUPS=1,8 runs every contender after each of these warm-ups (StreamsSpec.warmupStreams:
 * streams run side by side before the calls start; 1 is the warm-up before 2026-11-29), as
 * `<contender>~w<k>`; the module's default when absent.
 * TRACE=dir runs each child with `--trace-opt --trace-deopt` and its window marked, writing
 * `<dir>/<contender>-<round>.txt` for bench/lib/deoptCount.ts (the trace's own cost lands in the
 * CPU figures: compare traced runs only with traced runs).
 *
 * Each line also gives the window's threads and garbage (StreamsResult.threads and .gc): the
 * streams' thread's CPU and run-queue wait (ms per wall second), the other threads' CPU (V8's GC
 * and compiler helpers), collections and their pauses, and heap bytes allocated, per stream-second.
 */
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LONG_TEXT, recordCaptures } from './realCapture.js';
import { LatencyHistogram, median, round } from './stats.js';
import type { StreamsResult, StreamsSpec } from './telephonyStreams.js';
import { VisitHistogram } from './visitHistogram.js';

const N = Number(process.env['N'] ?? 80);
const ROUNDS = Number(process.env['ROUNDS'] ?? 2);
/** ROUND0=k: the first round's rotation (and round number) is k, so runs of one round each, under the lock in turn, still rotate. */
const ROUND0 = Number(process.env['ROUND0'] ?? 0);
/** Decode-ahead bounds in ms; `200s40`: 200 ms ahead, at most 40 ms decoded per visit (SpeechPipelineOptions.pullSpreadMs). */
const AHEAD = (process.env['AHEAD'] ?? '200,100,60').split(',');
/** Visits timed in process CPU by default (a preempted visit does not read long); VISIT_CLOCK=wall for wall time. */
const VISIT_CLOCK = process.env['VISIT_CLOCK'] === 'wall' ? 'wall' : 'cpu';
/** Visits at least this long are the "bursts" whose share of loop time is reported: 0.3 ms, about five libopus calls here. */
const BURST_US = 300;
const OUT = process.env['OUT'];
/** MODEL=1,2,3,4: replay each run's visits as a queue at these multiples of N (bench/lib/visitQueue.ts). */
const MODEL = process.env['MODEL']?.split(',').map(Number);
/** STARTS=golden,grid: run every contender with each start pattern (StreamsSpec.starts). */
const STARTS = (process.env['STARTS'] ?? 'golden').split(',') as ('golden' | 'grid')[];
const OLD_TREE = process.env['OLD_TREE'];
const WARMUPS = process.env['WARMUPS']?.split(',').map(Number);
const TRACE = process.env['TRACE'];
/** A traced child's stdout is moved to its trace file in pieces of about this many characters (its last line is the result). */
const TRACE_FLUSH_CHARS = 1 << 20;
const streamsProcess = new URL('./streamsProcess.ts', import.meta.url);

function pinned(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function child(spec: StreamsSpec, pin: boolean, traceFile?: string): Promise<StreamsResult> {
  const flags = traceFile === undefined ? [] : ['--trace-opt', '--trace-deopt'];
  const node = [process.execPath, ...flags, '--import', 'tsx', streamsProcess.pathname, JSON.stringify([spec])];
  const [cmd, ...args] = pin ? ['taskset', '-c', '0', ...node] : node;
  return new Promise((resolve, reject) => {
    const c = spawn(cmd!, args, {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: traceFile === undefined ? process.env : { ...process.env, STREAMS_TRACE_MARKS: '1' },
    });
    let out = '';
    /** The result line (`[{…}]`): trace lines may follow it. */
    let result: string | undefined;
    const keepResult = (text: string): void => {
      result = /^\[\{.*$/m.exec(text)?.[0] ?? result;
    };
    c.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (traceFile !== undefined && out.length > TRACE_FLUSH_CHARS) {
        const cut = out.lastIndexOf('\n') + 1;
        keepResult(out.slice(0, cut));
        appendFileSync(traceFile, out.slice(0, cut));
        out = out.slice(cut);
      }
    });
    c.on('error', reject);
    c.on('close', (code) => {
      if (traceFile !== undefined) appendFileSync(traceFile, out);
      keepResult(out);
      return code === 0 && result !== undefined
        ? resolve((JSON.parse(result) as StreamsResult[])[0]!)
        : reject(new Error(`child exited ${code}`));
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'visit-probe-'));
const capturePath = process.env['CAPTURE'] ?? join(dir, 'capture.sse');
if (process.env['CAPTURE'] === undefined) {
  const [cap] = await recordCaptures([{ format: 'opus', text: LONG_TEXT }]);
  writeFileSync(capturePath, cap!.body);
}
const pin = pinned();
const contenders = STARTS.flatMap((st) =>
  ['floor', ...AHEAD.map((a) => `engine@${a}`), ...(OLD_TREE === undefined ? [] : AHEAD.map((a) => `old@${a}`))].flatMap((c) =>
    WARMUPS === undefined ? [`${c}/${st}`] : WARMUPS.map((w) => `${c}/${st}~w${w}`),
  ),
);
/** A contender's name without its warm-up suffix, and the warm-up (StreamsSpec.warmupStreams) it names. */
const warmupOf = (c: string): { base: string; warmup?: number } => {
  const m = /~w(\d+)$/.exec(c);
  return m ? { base: c.slice(0, m.index), warmup: Number(m[1]) } : { base: c };
};
interface Row {
  p99: number;
  cpu: number;
  frame: VisitHistogram;
  feed: VisitHistogram;
  /** Frame and feed visits together: their mean residual (VisitHistogram.residualUs). */
  residual: number;
  /** Queue model p99 lateness (ms) per MODEL multiple. */
  model: number[];
  /** The streams' thread's run-queue wait, ms per second. */
  wait: number;
  /** Every other thread's CPU (GC and compiler helpers), ms per stream-second. */
  helpers: number;
  /** GC pauses, ms per stream-second. */
  gcPause: number;
  /** Heap allocated, KiB per stream-second. */
  heapKiB: number;
}
const rows: Record<string, Row[]> = {};
/** An `AHEAD` entry: `200` (decode-ahead ms), or `200s40` (200 ms ahead, at most 40 ms decoded per visit: pullSpreadMs). */
function boundsOf(entry: string): Pick<StreamsSpec, 'pullAheadMs' | 'pullSpreadMs'> {
  const [ahead, spread] = entry.split('s');
  return { pullAheadMs: Number(ahead), ...(spread === undefined ? {} : { pullSpreadMs: Number(spread) }) };
}
try {
  for (let r = ROUND0; r < ROUND0 + ROUNDS; r++) {
    const order = contenders.map((_, i) => contenders[(i + r) % contenders.length]!);
    for (const full of order) {
      const { base: c, warmup } = warmupOf(full);
      const spec: StreamsSpec = {
        capturePath,
        warmupSec: 1,
        endMarginSec: 0.5,
        startSpreadMs: 1000,
        streams: N,
        visitClock: VISIT_CLOCK,
        ...(MODEL === undefined ? {} : { modelCopies: MODEL }),
        contender: c.startsWith('floor') ? 'floor' : 'engine',
        starts: c.endsWith('/grid') ? 'grid' : 'golden',
        ...(c.startsWith('floor') ? {} : boundsOf(c.slice(c.indexOf('@') + 1, c.indexOf('/')))),
        ...(c.startsWith('old@') ? { engineModule: `${OLD_TREE}/src/engine/SpeechPipeline.ts` } : {}),
        ...(warmup === undefined ? {} : { warmupStreams: warmup }),
      };
      const res = await child(spec, pin, TRACE === undefined ? undefined : join(TRACE, `${full.replace(/[/@~]/g, '_')}-${r}.txt`));
      if (OUT !== undefined) appendFileSync(OUT, JSON.stringify({ contender: full, round: r, n: N, load: loadavg()[0], res }) + '\n');
      const h = new LatencyHistogram();
      h.merge(res.hist);
      const frame = VisitHistogram.from(res.frameVisits);
      const feed = VisitHistogram.from(res.feedVisits);
      const both = VisitHistogram.from(res.frameVisits);
      both.merge(res.feedVisits);
      const streamSec = N * (res.windowMs / 1000);
      const row: Row = {
        p99: h.quantile(0.99),
        cpu: res.cpuMs / (N * (res.windowMs / 1000)),
        frame,
        feed,
        residual: both.residualUs(),
        model: (res.queueModel ?? []).map((m) => m.p99Ms),
        wait: res.threads.mainWaitMsPerS,
        helpers: res.threads.otherRunMsPerS / N,
        gcPause: res.gc.pauseMs / streamSec,
        heapKiB: res.gc.heapBytes / 1024 / streamSec,
      };
      const t = res.threads;
      (rows[full] ??= []).push(row);
      console.log(
        `round ${r} ${full.padEnd(17)} N=${N} p99 ${round(row.p99, 2)} ms cpu/stream-s ${round(row.cpu, 3)} ` +
          `frame visits p50/p90/p99/p99.9/max ${frame.describe()} feed visits ${feed.describe()} ` +
          `loop time in visits ≥ ${BURST_US} µs ${round(both.timeShareAbove(BURST_US) * 100, 1)} % ` +
          `mean residual visit ${round(row.residual, 0)} µs ` +
          `visits/s per stream ${round(both.count / N / (res.windowMs / 1000), 1)} load ${loadavg()[0]!.toFixed(1)}\n    ` +
          `main thread run ${round(t.mainRunMsPerS, 1)} wait ${round(t.mainWaitMsPerS, 1)} ms/s, ` +
          `preempted ${round(t.mainPreemptionsPerS, 0)}/s; ` +
          `helper threads ${round(t.otherRunMsPerS, 1)} ms/s = ${round(row.helpers, 3)} ms per stream-s; ` +
          `GC ${round(res.gc.count / streamSec, 3)}/stream-s (${res.gc.count}, ${res.gc.major} major), ` +
          `pauses ${round(row.gcPause, 4)} ms per stream-s; allocated heap ${round(row.heapKiB, 1)} KiB, ` +
          `external ≥ ${round(res.gc.externalBytes / 1024 / streamSec, 1)} KiB per stream-s` +
          (res.queueModel ?? [])
            .map(
              (m) =>
                `\n    model N=${m.copies * N}: p50 ${round(m.p50Ms, 2)} p99 ${round(m.p99Ms, 2)} ms, ` +
                `utilisation ${round(m.utilisation, 2)}`,
            )
            .join(''),
      );
    }
  }
  console.log(`\nmedians over ${ROUNDS} rounds, N=${N}${pin ? ', taskset -c 0' : ', not pinned'}:`);
  for (const c of contenders) {
    const rs = rows[c]!;
    const floorRows = rows[`floor${c.slice(c.indexOf('/'))}`]!;
    const vsFloor = median(rs.map((x, i) => x.cpu / floorRows[i]!.cpu));
    console.log(
      `${c.padEnd(17)} p99 ${round(median(rs.map((x) => x.p99)), 2)} ms  cpu ${round(median(rs.map((x) => x.cpu)), 3)} ` +
        `(${round(vsFloor, 3)}× floor, paired)  frame-visit p99 ${round(median(rs.map((x) => x.frame.quantile(0.99))), 0)} µs  ` +
        `feed-visit p99 ${round(median(rs.map((x) => x.feed.quantile(0.99))), 0)} µs  ` +
        `mean residual visit ${round(median(rs.map((x) => x.residual)), 0)} µs  ` +
        `wait ${round(median(rs.map((x) => x.wait)), 1)} ms/s  helpers ${round(median(rs.map((x) => x.helpers)), 3)} ms/stream-s  ` +
        `GC pauses ${round(median(rs.map((x) => x.gcPause)), 4)} ms/stream-s  ` +
        `heap ${round(median(rs.map((x) => x.heapKiB)), 1)} KiB/stream-s` +
        (MODEL ?? []).map((m, k) => `  model N=${m * N} p99 ${round(median(rs.map((x) => x.model[k]!)), 2)} ms`).join(''),
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
