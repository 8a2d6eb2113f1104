/**
 * What barge-in ON costs the bridge's own thread (the main thread: pacing, sockets, the bot's
 * frames), against OFF (issue 22). Not a `*.bench.ts` module (bench/run.ts does not run it): a
 * probe for native-notes/vad.md, "What ON costs the pacing thread".
 *
 *   flock /tmp/bench.lock node --import tsx bench/bridgeCostProbe.ts --fixed 50 --rounds 2
 *   flock /tmp/bench.lock node --perf-basic-prof --import tsx bench/bridgeCostProbe.ts --fixed 50 --perf /tmp/ontax
 *
 * Each round runs one step of bench/telephony.bench.ts per contender ("twilio, callers speaking,
 * barge-in OFF" and "… ON", the order alternating round by round) and prints, per step, the
 * bridge thread's CPU per call-second over the steady window (the step's own figure,
 * `bridgeCpuPerCallSecond`), the process's, the decisions and the load average. One JSON line per
 * step on stdout (for pairing runs of two trees).
 *
 * `--perf DIR`: inside each step's steady window, `perf record -e cpu-clock -g` on the main thread
 * alone for {@link TRACE_SECONDS}, kept as DIR/<contender>-<N>-<round>.data (read back with
 * `perf report -i … --no-children --sort sym`; start node with `--perf-basic-prof` for JS names).
 * `--cpu-prof DIR`: instead, V8's CPU profile of the main thread over the same part of the window
 * (inlined functions attributed to themselves), as DIR/<contender>-<N>-<round>.cpuprofile.
 * `--only OFF|ON`: one contender. `--doorbells message,poll`: ON once per doorbell (`ON:message`,
 * `ON:poll`; `configureDetectorThreads({ doorbell })` before each step).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { configureDetectorThreads, DEFAULT_DETECTOR_DOORBELL, type DetectorDoorbell } from '../src/telephony/bargeIn/DetectorThreads.js';
import { CONTENDERS, step, stepSpec } from './telephony.bench.js';
import { arg } from './lib/probeArgs.js';
import { perfFor, stepWithWindowJob } from './lib/stepWindowJob.js';

/** perf records this long inside the steady window (5 s at least, bench/lib/callStep.ts). */
const TRACE_SECONDS = 3;
/** perf starts this long after every call started (the window opens 300 ms after, `WARMUP_MS`). */
const TRACE_DELAY_MS = 600;
/** The CPU profile's sampling interval (µs): V8's default. */
const PROFILE_INTERVAL_US = 1000;
/** The busy thread's period: the detector thread's tick (DEFAULT_DETECTOR_TICK_MS). */
const BUSY_PERIOD_MS = 5;
/** The busy thread's nice: the detector thread's (DEFAULT_DETECTOR_THREAD_NICE). */
const BUSY_NICE = 10;

/** Starts the `--busy` thread; `stop` ends it. */
function startBusy(mib: number, busyMs: number): { stop: () => Promise<number> } {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const w = new Worker(
    `const { workerData, parentPort } = require('node:worker_threads');
     require('node:os').setPriority(0, workerData.nice);
     const flag = workerData.flag; const a = new Float64Array(workerData.bytes / 8); let i = 0, s = 0;
     while (Atomics.load(flag, 0) === 0) {
       const end = performance.now() + workerData.busyMs;
       while (performance.now() < end) for (let k = 0; k < 4096; k++, i = (i + 8) % a.length) { a[i] += 1; s += a[i]; }
       Atomics.wait(flag, 0, 0, workerData.period - workerData.busyMs);
     }
     parentPort.postMessage(s);`,
    { eval: true, workerData: { flag, bytes: mib * 2 ** 20, busyMs, period: BUSY_PERIOD_MS, nice: BUSY_NICE } },
  );
  return {
    stop: async () => {
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      await new Promise((resolve) => w.once('message', resolve));
      return w.terminate();
    },
  };
}

/** More rounds than this would hold the bench lock for too long on a shared machine. */
const MAX_ROUNDS = 6;

const fixed = (arg('fixed') ?? '50').split(',').map(Number);
const rounds = Math.min(MAX_ROUNDS, Number(arg('rounds') ?? 1));
const perfDir = arg('perf');
const only = arg('only');
const profDir = arg('cpu-prof');
if (fixed.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(rounds) || rounds < 1) {
  throw new Error('usage: --fixed N[,N…] --rounds K [--perf DIR] [--only OFF|ON]');
}
const offContender = CONTENDERS.find((c) => c.key === 'twilio, callers speaking, barge-in OFF')!;
const onContender = CONTENDERS.find((c) => c.key === 'twilio, callers speaking, barge-in ON')!;
/** `--doorbells message,poll`: ON once per doorbell (the detector threads switched before each step). */
const doorbells = (arg('doorbells')?.split(',') ?? []) as DetectorDoorbell[];
/**
 * `--busy MiB,ms`: also OFF with a thread of this process that, every {@link BUSY_PERIOD_MS} (the
 * detector thread's tick), walks MiB of memory for ms (at nice +10, as the detector thread runs):
 * does the bridge's own code cost more per call-second when the other core is busy as the
 * detector thread keeps it, with none of ON's work on the bridge thread?
 */
const busy = arg('busy')?.split(',').map(Number);
const all: { tag: string; c: typeof offContender; doorbell?: DetectorDoorbell; busy?: number[] }[] = [
  { tag: 'OFF', c: offContender },
  ...(busy === undefined ? [] : [{ tag: `OFF+busy ${busy.join(',')}`, c: offContender, busy }]),
  ...(doorbells.length === 0 ? [{ tag: 'ON', c: onContender }] : doorbells.map((d) => ({ tag: `ON:${d}`, c: onContender, doorbell: d }))),
].filter((x) => only === undefined || x.tag === only);
const spec = stepSpec({ quick: false });

/** Runs a step, with perf on the main thread inside its window when asked. */
async function probeStep(calls: number, contender: (typeof all)[number], round: number): Promise<Awaited<ReturnType<typeof step>>> {
  if (perfDir === undefined && profDir === undefined) return step(calls, contender.c, spec);
  const name = `${contender.tag}-${calls}-${round}`;
  const job = (): Promise<void> => {
    if (profDir !== undefined) return profile(`${profDir}/${name}.cpuprofile`);
    const args = ['record', '-e', 'cpu-clock', '-g', '-t', String(process.pid), '-o', `${perfDir}/${name}.data`];
    return perfFor(args, TRACE_SECONDS);
  };
  return stepWithWindowJob(() => step(calls, contender.c, spec), `[${contender.c.key} ${calls}]`, TRACE_DELAY_MS, job);
}

/** V8's CPU profile of the main thread for {@link TRACE_SECONDS}, written to `file`. */
async function profile(file: string): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: PROFILE_INTERVAL_US });
  await session.post('Profiler.start');
  await new Promise((resolve) => setTimeout(resolve, TRACE_SECONDS * 1000));
  const { profile: p } = await session.post('Profiler.stop');
  writeFileSync(file, JSON.stringify(p));
  session.disconnect();
}

for (let round = 0; round < rounds; round++) {
  for (const calls of fixed) {
    const order = round % 2 === 0 ? all : [...all].reverse();
    for (const contender of order) {
      configureDetectorThreads({ doorbell: contender.doorbell ?? DEFAULT_DETECTOR_DOORBELL });
      const busyThread = contender.busy === undefined ? null : startBusy(contender.busy[0]!, contender.busy[1]!);
      const s = await probeStep(calls, contender, round).finally(() => busyThread?.stop());
      const d = s.decisions;
      process.stdout.write(
        JSON.stringify({
          tag: contender.tag,
          calls,
          round,
          bridgeMsPerCallS: +s.bridgeCpuPerCallSecond.toFixed(3),
          processMsPerCallS: +s.cpuPerCallSecond.toFixed(3),
          p99: +s.p99.toFixed(2),
          pauses: d.pauses,
          clears: d.clears,
          falseInterruptions: d.falseInterruptions,
          turns: d.turns,
          windowMs: Math.round(s.windowMs),
          load1: +loadavg()[0]!.toFixed(2),
        }) + '\n',
      );
    }
  }
}
process.exit(0);
