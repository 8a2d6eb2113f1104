/**
 * Who the bridge's pacing thread waits behind, barge-in OFF against ON (issue 22: capacity ON ≥ 90 %
 * of OFF). Not a `*.bench.ts` module (bench/run.ts does not run it): a probe for
 * native-notes/vad.md, "Who the pacing thread waits behind". Linux, as root (perf's tracepoints).
 *
 *   flock /tmp/bench.lock node --import tsx bench/schedWaitProbe.ts --fixed 80 --rounds 2
 *
 * Each round runs one step of bench/telephony.bench.ts per contender ("twilio, callers speaking,
 * barge-in OFF" and "… ON", the order alternating round by round) and, inside each step's steady
 * window, records `perf sched record -a` for {@link TRACE_SECONDS}, then reads it back
 * (bench/lib/schedTrace.ts): over the pacing thread's waits for a CPU, what ran on its CPU and on
 * the other one, who woke it, who preempted it, and per thread CPU, wait, wakes, preemptions and
 * migrations per second. Every thread of this process is renamed first (Node 20 names them all
 * "node"): `pacing` (the main thread: the bridge's pacing loop), `detector`, `phones` (the bench
 * peers' worker), `startup-k` (the threads present before the first step: V8's platform workers,
 * which run GC and compiler jobs, and Node's own), `libuv` (libuv's pool).
 *
 * `--paired '{"doorbell":"message"}' '{"doorbell":"poll"}'`: instead of OFF against ON, ON against
 * ON, each step after `configureDetectorThreads()` with its options (the running thread switches).
 *
 * `--phones idle|normal|normal,idle`: the phones' thread's scheduling policy (default: the bench's,
 * `PHONES_POLICY`, SCHED_IDLE). With two, every contender runs at each, interleaved in the same
 * round (OFF normal, OFF idle, ON normal, ON idle; the order alternating round by round), and each
 * step prints what the phones' thread did to the pacing thread (its preemptions, the time it held
 * the pacing thread's CPU during its waits) and whether the phones kept up (their timers'
 * lateness, event-loop use, underruns, run-queue wait).
 *
 *   flock /tmp/bench.lock node --import tsx bench/schedWaitProbe.ts --fixed 30,80 --rounds 1 --phones normal,idle
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { analyseWaits, findMainThread, type WaitReport } from './lib/schedTrace.js';
import { CONTENDERS, PHONES_POLICY, step, stepSpec, type PhonesPolicy, type StepSpec } from './telephony.bench.js';

type Contender = (typeof CONTENDERS)[number];
import { configureDetectorThreads, detectorThreads, type DetectorThreadOptions } from '../src/telephony/bargeIn/DetectorThreads.js';
import { arg } from './lib/probeArgs.js';
import { perfFor, stepWithWindowJob } from './lib/stepWindowJob.js';

/** perf records this long inside the steady window (5 s at least, bench/lib/callStep.ts). */
const TRACE_SECONDS = 3;
/**
 * What perf records, system-wide: every switch and migration, and each wake with the waker's call
 * chain (a timer, a `postMessage`'s eventfd, a socket: bench/lib/schedTrace.ts `wakeVia`).
 */
const PERF_RECORD = [
  'record',
  '-a',
  '-e',
  'sched:sched_switch',
  '-e',
  'sched:sched_migrate_task',
  '-e',
  'sched:sched_wakeup_new',
  '-e',
  'sched:sched_waking/call-graph=fp,max-stack=24/',
];
/** perf starts this long after every call started (the window opens 300 ms after, `WARMUP_MS`). */
const TRACE_DELAY_MS = 600;
/** More rounds than this would hold the bench lock for too long on a shared machine. */
const MAX_ROUNDS = 6;
/** A thread's wakers are listed from this many wakes a second. */
const MIN_WAKES_LISTED = 20;
/** Rows of each blame list printed. */
const TOP = 8;

const fixed = (arg('fixed') ?? '80').split(',').map(Number);
const rounds = Math.min(MAX_ROUNDS, Number(arg('rounds') ?? 1));
const paired = arg('paired');
const pairedB = paired === undefined ? undefined : process.argv[process.argv.indexOf('--paired') + 2];
const keep = arg('keep'); // a directory to keep the traces in
const off = CONTENDERS.find((c) => c.key === 'twilio, callers speaking, barge-in OFF')!;
const on = CONTENDERS.find((c) => c.key === 'twilio, callers speaking, barge-in ON')!;
const spec = stepSpec({ quick: false });
const phonesPolicies = (arg('phones') ?? PHONES_POLICY).split(',').map((p): PhonesPolicy => {
  if (p !== 'idle' && p !== 'normal') throw new Error(`--phones: 'idle' or 'normal' (or both, comma-separated), not '${p}'`);
  return p;
});

const self = process.pid;
const comm = (tid: number): string => {
  try {
    return readFileSync(`/proc/self/task/${tid}/comm`, 'latin1').trim();
  } catch {
    return '';
  }
};
const rename = (tid: number, name: string): void => {
  try {
    writeFileSync(`/proc/self/task/${tid}/comm`, name.slice(0, 15));
  } catch {
    // the thread ended
  }
};
const tasks = (): number[] => readdirSync('/proc/self/task').map(Number);

rename(self, 'pacing');
tasks()
  .filter((t) => t !== self)
  .forEach((t, k) => rename(t, `startup-${k + 1}`));
await access('.'); // libuv's pool starts at its first request
for (const t of tasks()) if (comm(t) === 'node') rename(t, 'libuv');

/** Names the threads that appeared during a step: the detector's by id, the rest (the phones' worker) as `phones`. */
function nameNewThreads(): void {
  const detectors = new Set(detectorThreads.threadIds);
  for (const t of tasks()) {
    if (detectors.has(t)) rename(t, 'detector');
    // A new thread inherits its starter's name: the phones' worker was started by the pacing thread.
    else if (t !== self && (comm(t) === 'node' || comm(t) === 'pacing')) rename(t, 'phones');
  }
}

/** Runs a step with a trace of its steady window; resolves with the step and the report. */
type StepResult = Awaited<ReturnType<typeof step>>;
interface Traced {
  p99: number;
  wait: number;
  report: WaitReport;
  step?: StepResult;
  /** The same trace read for the phones' thread's waits. */
  phonesWaits?: WaitReport;
}

async function tracedStep(calls: number, contender: Contender, tag: string, stepSpecFor: StepSpec): Promise<Traced> {
  const file = `${keep ?? '/tmp'}/sched-${tag}.data`;
  const trace = (): Promise<void> => {
    nameNewThreads();
    return perfFor([...PERF_RECORD, '-o', file], TRACE_SECONDS);
  };
  const s = await stepWithWindowJob(() => step(calls, contender, stepSpecFor), `[${contender.key} ${calls}]`, TRACE_DELAY_MS, trace);
  const lines = readTrace(file);
  const report = analyseWaits(lines, self, self);
  // The phones' thread's own waits: behind this process's threads (what a quiet machine has) or other processes'.
  const phonesTid = s.phonesPolicy?.tid;
  const phonesWaits = typeof phonesTid === 'number' ? analyseWaits(lines, self, phonesTid) : undefined;
  return { p99: s.p99, wait: s.threads.mainWaitMsPerS, report, step: s, ...(phonesWaits === undefined ? {} : { phonesWaits }) };
}

/** The label the probe gives the phones' worker thread (`nameNewThreads`). */
const PHONES = 'phones';
/** What the phones' thread did to the pacing thread in a trace, per second, and whether the phones kept up. */
interface PhonesEffect {
  preemptions: number;
  onItsCpuMs: number;
  wokenOntoPhones: number;
}
function phonesEffect(w: WaitReport): PhonesEffect {
  const get = (xs: [string, number][], k: string): number => xs.find(([l]) => l === k)?.[1] ?? 0;
  return {
    preemptions: get(w.preemptedBy, PHONES),
    // "phones on its CPU": the by-pair stretches whose first member (the pacing thread's CPU) is the phones' thread.
    onItsCpuMs: w.byPair.filter(([pair]) => pair.startsWith(`${PHONES} | `)).reduce((a, [, v]) => a + v, 0),
    wokenOntoPhones: get(w.wokenOnto, PHONES),
  };
}
const lagText = (lag: StepResult['phonesLag']): string =>
  `${lag.p99Ms.toFixed(2)} / ${lag.maxMs.toFixed(1)} (${lag.over.map(([ms, n]) => `≥${ms}: ${n}`).join(', ')} of ${lag.count})`;
/**
 * The phones' thread's waits for a CPU, ms per second: behind this process's own threads, behind
 * everything else (other processes, the kernel), and the part of them with no other process on
 * either CPU (the stretches a quiet machine has: "pacing | idle", "detector | pacing", …).
 */
function phonesWaitSplit(w: WaitReport | undefined): string {
  if (w === undefined) return '?';
  const foreign = (label: string): boolean => label.startsWith('other process') || label.startsWith('kernel');
  const own = w.onItsCpu.filter(([l]) => !foreign(l)).reduce((a, [, v]) => a + v, 0);
  const other = w.onItsCpu.filter(([l]) => foreign(l)).reduce((a, [, v]) => a + v, 0);
  const quiet = w.byPair.filter(([pair]) => !pair.split(' | ').some(foreign)).reduce((a, [, v]) => a + v, 0);
  return `${f1(own)} / ${f1(other)} / ${f1(quiet)}`;
}
/** One line per step for the summary at the end. */
const summary: string[] = [];
function summarise(tag: string, calls: number, round: number, load: number, r: Traced): string {
  const e = phonesEffect(r.report);
  const st = r.step;
  const lag = st?.phonesLag;
  const line =
    `| ${tag} | ${calls} | ${round} | ${load.toFixed(1)} | ${f1(r.wait)} | ${f1(e.preemptions)} | ${f1(e.onItsCpuMs)} | ` +
    `${st === undefined ? '?' : f1(st.threads.mainPreemptionsPerS)} | ` +
    `${st === undefined ? '?' : `${f1(st.threads.named['peers'] ?? NaN)} / ${f1(st.threads.namedWait['peers'] ?? NaN)}`} | ` +
    `${phonesWaitSplit(r.phonesWaits)} | ` +
    `${st === undefined ? '?' : (st.peerBusy * 100).toFixed(0)} % | ` +
    `${lag === undefined ? '?' : lagText(lag)} | ` +
    `${st === undefined ? '?' : `${st.unexplainedUnderruns} / ${st.underruns}`} | ${f1(r.p99)} | ` +
    `${st?.phonesPolicy?.applied ?? '?'}, field ${st?.phonesPolicyAtEnd ?? '?'} |`;
  summary.push(line);
  return line;
}
const SUMMARY_HEAD =
  '| step | calls | round | load | pacing wait ms/s (schedstat) | preempted by phones /s (trace) | phones on its CPU ms/s (trace) | ' +
  'pacing preemptions /s (schedstat) | phones CPU / wait ms/s | ' +
  'phones waited behind own threads / other processes / with no other process on either CPU, ms/s (trace) | ' +
  'phones loop busy | phones timers late p99 / max ms | ' +
  'underruns unexplained / all | p99 lateness ms | phones policy, /proc field at end |\n|' +
  ' --- |'.repeat(15);

const f1 = (x: number): string => x.toFixed(1);
function print(tag: string, calls: number, load: number, r: { p99: number; wait: number; report: WaitReport }): void {
  const { report: w } = r;
  const list = (xs: [string, number][], unit: string): string =>
    xs
      .slice(0, TOP)
      .map(([k, v]) => `${k} ${f1(v)}${unit}`)
      .join(', ');
  process.stdout.write(
    `\n== ${tag} N=${calls} (load ${load.toFixed(1)}): p99 ${f1(r.p99)} ms, pacing wait (schedstat, whole window) ${f1(r.wait)} ms/s; ` +
      `trace ${f1(w.seconds)} s\n` +
      `  pacing waits: ${(w.waits.count / w.seconds).toFixed(0)}/s (${(w.waits.fromWake / w.seconds).toFixed(0)} after a wake, ` +
      `${(w.waits.fromPreemption / w.seconds).toFixed(0)} after a preemption), ` +
      `p50 ${w.waits.p50Ms.toFixed(3)} p99 ${w.waits.p99Ms.toFixed(2)} ` +
      `max ${w.waits.maxMs.toFixed(2)} ms\n` +
      `  on its CPU meanwhile (ms/s): ${list(w.onItsCpu, '')}\n` +
      `  on the other CPU meanwhile (ms/s): ${list(w.onOtherCpu, '')}\n` +
      `  by pair, its CPU | the other (ms/s): ${list(w.byPair, '')}\n` +
      `  woken by (/s): ${list(w.wokenBy, '')}\n` +
      `  woken onto a CPU running (/s): ${list(w.wokenOnto, '')}\n` +
      `  preempted by (/s): ${list(w.preemptedBy, '')}\n` +
      `  threads: run / wait ms/s, wakes / preemptions / migrations per s\n`,
  );
  for (const t of w.threads.slice(0, 14)) {
    process.stdout.write(
      `    ${t.label.padEnd(36)} ${f1(t.runMsPerS).padStart(6)} / ${f1(t.waitMsPerS).padStart(6)}   ` +
        `${t.wakesPerS.toFixed(0).padStart(5)} / ${t.preemptionsPerS.toFixed(0).padStart(5)} / ` +
        `${t.migrationsPerS.toFixed(0).padStart(5)}` +
        (t.wakesPerS >= MIN_WAKES_LISTED && !t.label.startsWith('other') ? `; woken by ${list(t.wokenBy.slice(0, 4), '')}\n` : '\n'),
    );
  }
}

/** `--analyse FILE…`: only read back traces kept by an earlier run (`--keep DIR`). */
function readTrace(file: string): string[] {
  const out = spawnSync('perf', ['script', '-i', file, '-F', 'comm,tid,pid,cpu,time,event,trace,ip,sym'], {
    encoding: 'latin1',
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return out.stdout.split('\n');
}
const analyse = process.argv.indexOf('--analyse');
if (analyse >= 0) {
  for (const file of process.argv.slice(analyse + 1)) {
    const lines = readTrace(file);
    const pacing = findMainThread(lines, 'pacing');
    if (pacing === undefined) throw new Error(`${file}: no thread named 'pacing'`);
    print(file, NaN, NaN, { p99: NaN, wait: NaN, report: analyseWaits(lines, pacing[0], pacing[1]) });
  }
  process.exit(0);
}

if (paired !== undefined && pairedB === undefined) throw new Error("usage: --paired '{…a}' '{…b}'");
const base: { tag: string; c: Contender; options?: DetectorThreadOptions }[] =
  paired === undefined || pairedB === undefined
    ? [
        { tag: 'OFF', c: off },
        { tag: 'ON', c: on },
      ]
    : [
        { tag: `ON ${paired}`, c: on, options: JSON.parse(paired) as DetectorThreadOptions },
        { tag: `ON ${pairedB}`, c: on, options: JSON.parse(pairedB) as DetectorThreadOptions },
      ];
const contenders = base.flatMap((b) =>
  phonesPolicies.map((phones) => ({ ...b, tag: phonesPolicies.length > 1 ? `${b.tag} phones ${phones}` : b.tag, phones })),
);
for (let r = 0; r < rounds; r++) {
  for (const calls of fixed) {
    const order = r % 2 === 0 ? contenders : [...contenders].reverse();
    for (const { tag, c, options, phones } of order) {
      if (options !== undefined) configureDetectorThreads(options);
      const load = loadavg()[0]!;
      let res: Traced;
      try {
        res = await tracedStep(calls, c, `${tag.replace(/\W+/g, '_')}-${calls}-${r + 1}`, { ...spec, phones });
      } catch (err) {
        // A step that could not finish (its deadline: the bench counts it as a trial error) ends no round.
        const line = `| ${tag} | ${calls} | ${r + 1} | ${load.toFixed(1)} | step failed: ${(err as Error).message} |`;
        summary.push(line);
        process.stdout.write(`\n== round ${r + 1} ${tag} N=${calls}: ${(err as Error).message}\n`);
        continue;
      }
      print(`round ${r + 1} ${tag}`, calls, load, res);
      if (res.phonesWaits !== undefined) {
        const pw = res.phonesWaits;
        const top = (xs: [string, number][]): string =>
          xs
            .slice(0, TOP)
            .map(([k, v]) => `${k} ${f1(v)}`)
            .join(', ');
        process.stdout.write(`  phones' thread waited (ms/s) behind, on its CPU: ${top(pw.onItsCpu)}\n`);
        process.stdout.write(`    by pair, its CPU | the other: ${top(pw.byPair)}\n`);
      }
      process.stdout.write(`  summary: ${summarise(tag, calls, r + 1, load, res)}\n`);
    }
  }
}
process.stdout.write(`\n${SUMMARY_HEAD}\n${summary.join('\n')}\n`);
// No process.exit(): the idle detector thread must end first (see bench/bargeInTransportPaired.ts).
