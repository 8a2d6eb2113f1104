/**
 * Where the detector thread's CPU goes inside the bridge, against the detector alone on the same
 * audio (issue 22: ≤ 1.5 ms per call-second). Not a `*.bench.ts` module (bench/run.ts does not run
 * it): a probe for native-notes/vad.md, "The detector thread's cost inside the bridge".
 *
 *   flock /tmp/bench.lock node --import tsx bench/detectorCostProbe.ts --fixed 50,80 --rounds 2
 *   flock /tmp/bench.lock node --import tsx bench/detectorCostProbe.ts --alone-only
 *   flock /tmp/bench.lock node --import tsx bench/detectorCostProbe.ts --bridge-only --fixed 90,130 --nice 0,10 --rounds 2
 *   flock /tmp/bench.lock node --import tsx bench/detectorCostProbe.ts --alone-only --paired '{"idleModelHold":0}' --rounds 4
 *
 * Alone: one `createBargeInDetector()` in this thread (defaults), 60 s of caller audio pushed in
 * 20 ms frames, this thread's CPU per call-second and the share of windows that ran Silero, on
 * the three mixes (bench/vad.bench.ts's noisy and quiet mixes, and the telephony bench's caller
 * track, the very frames its phones send), with the bot speaking half of the time (as
 * bench/bargeIn.bench.ts) or all of the time (as the telephony bench's calls: the bot's
 * utterance outlasts the window, and a cut utterance is followed by the next). The bot's audio is
 * the telephony bench's speech.
 *
 * Bridge: one step of bench/telephony.bench.ts per N ("twilio, callers speaking, barge-in ON"):
 * the detector thread's CPU per call-second over the step's steady window (bench/lib/threadStats.ts),
 * and, over the whole step, its Silero runs, rows per run, windows that ran Silero and wakes (the
 * thread's own counters, read at a probe call's close before and after). ~10 s a step.
 *
 * `--nice a,b…`: each round runs every N once per nice value (the order reversed round by round),
 * the detector thread's nice set from this thread (`os.setPriority` on its id) before each step:
 * paired figures for native-notes/vad.md, "The detector thread at a lower priority". The line then
 * also gives the detector thread's run-queue wait (a second and per wake), its calls' decisions
 * and any call whose detector fell behind (audio dropped by its ring).
 */
import { readFileSync } from 'node:fs';
import { loadavg, setPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import { createBargeInDetector, type BargeInDetectorOptions } from '../src/telephony/bargeIn/createBargeInDetector.js';
import { configureDetectorThreads, detectorThreads } from '../src/telephony/bargeIn/DetectorThreads.js';
import type { ModelRunStats } from '../src/telephony/bargeIn/detectorMessages.js';
import { callMix } from './vad.bench.js';
import { probeDetectorThread } from './lib/detectorThreadProbe.js';
import { threadCpuMs } from './lib/measure.js';
import { CONTENDERS, step, stepSpec } from './telephony.bench.js';
import { benchBotLine, benchCallerTrack } from './lib/probeAudio.js';
import { arg } from './lib/probeArgs.js';

const RATE = 8000;
/** 20 ms media frames. */
const FRAME = 160;
const MIX_SECONDS = 60;
/** The bot's turns when it speaks half of the time (bench/bargeIn.bench.ts: 4 s on, 4 s off). */
const BOT_TURN_SAMPLES = 4 * RATE;
/** Detectors taking turns frame by frame in one thread, as on the detector thread (no batch: each window runs at once). */
const ALONE_MANY = 16;
const CONTENDER = 'twilio, callers speaking, barge-in ON';
const DEFAULT_FIXED = [50, 80];
/** More rounds than this would hold the bench lock for too long on a shared machine. */
const MAX_ROUNDS = 6;

const fixed = (arg('fixed') ?? DEFAULT_FIXED.join(',')).split(',').map(Number);
const rounds = Math.min(MAX_ROUNDS, Number(arg('rounds') ?? 1));
const aloneOnly = process.argv.includes('--alone-only');
const bridgeOnly = process.argv.includes('--bridge-only');
const contend = process.argv.includes('--contend');
/** The detector thread's nice values to pair (`--nice 0,10`); none: the thread as configured. */
const niceValues = arg('nice')?.split(',').map(Number) ?? [];
/**
 * `--paired '{…}'`: alone, each row also with these options (the configuration before a change),
 * the two interleaved (which goes first alternates by round), one detector, the bot half of the time.
 */
const paired = arg('paired');
/** The competing thread's buffer: larger than the machine's caches (L2 1 MiB per core, L3 32 MiB). */
const CONTEND_BYTES = 64 * 2 ** 20;

/**
 * `--contend`: a second thread of this process streaming through {@link CONTEND_BYTES} while the
 * detectors run (the other core busy, as the bridge's pacing loop and the phones' worker keep it),
 * against nothing: how much a detector window costs more when the other core works too.
 */
function startContender(): { stop: () => Promise<void> } {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const w = new Worker(
    `const { workerData } = require('node:worker_threads');
     const flag = workerData.flag; const a = new Float64Array(workerData.bytes / 8); let s = 0;
     while (Atomics.load(flag, 0) === 0) for (let i = 0; i < a.length; i += 8) { a[i] += 1; s += a[i]; }`,
    { eval: true, workerData: { flag, bytes: CONTEND_BYTES } },
  );
  return {
    stop: async () => {
      Atomics.store(flag, 0, 1);
      await w.terminate();
    },
  };
}
if (
  fixed.some((n) => !Number.isInteger(n) || n < 1) ||
  !Number.isInteger(rounds) ||
  rounds < 1 ||
  niceValues.some((n) => !Number.isInteger(n) || n < -20 || n > 19)
) {
  throw new Error('usage: --fixed N[,N…] --rounds K (K ≥ 1) [--alone-only | --bridge-only] [--nice a,b…]');
}
const contender = CONTENDERS.find((c) => c.key === CONTENDER);
if (contender === undefined) throw new Error(`bench/telephony.bench.ts has no contender '${CONTENDER}'`);
const spec = stepSpec({ quick: false });

async function alone(
  mix: Uint8Array,
  botAlways: boolean,
  detectors = 1,
  options: BargeInDetectorOptions = {},
): Promise<{ ms: number; modelShare: number }> {
  const all = await Promise.all(
    Array.from({ length: detectors }, () => createBargeInDetector({ ...options, vad: { onNotice: () => undefined } })),
  );
  const bot = benchBotLine(mix.length);
  // Each detector starts at its own place in the mix (frames of different calls differ, as in the bridge).
  const offsets = all.map((_, k) => Math.floor((k * mix.length) / detectors / FRAME) * FRAME);
  const run = (n: number): void => {
    for (let i = 0; i < n; i += FRAME) {
      const speaking = botAlways || Math.floor(i / BOT_TURN_SAMPLES) % 2 === 0;
      for (let k = 0; k < all.length; k++) {
        const detector = all[k]!;
        const at = (i + offsets[k]!) % mix.length;
        if (i % BOT_TURN_SAMPLES === 0) detector.setBotSpeaking(speaking);
        if (speaking) detector.notePlayed(bot.subarray(at, at + FRAME), (i * 1000) / RATE);
        detector.push(mix.subarray(at, at + FRAME));
      }
    }
  };
  run(RATE); // warm the JIT and the session
  for (const d of all) d.reset();
  const t0 = threadCpuMs();
  run(mix.length);
  const ms = threadCpuMs() - t0;
  let windows = 0;
  let modelWindows = 0;
  for (const d of all) {
    windows += d.stats.windows;
    modelWindows += d.stats.modelWindows;
    d.close();
  }
  return { ms: ms / ((detectors * mix.length) / RATE), modelShare: windows === 0 ? 0 : modelWindows / windows };
}

/** A thread's run-queue wait so far, ms (`/proc/self/task/<tid>/schedstat`); 0 for no thread yet, NaN when unreadable. */
function waitMs(tid: number | undefined): number {
  if (tid === undefined) return 0;
  try {
    return Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'latin1').split(' ')[1]) / 1e6;
  } catch {
    return NaN;
  }
}

const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;

if (!bridgeOnly) {
  const mixes: [string, Uint8Array][] = [
    ['noisy mix', callMix(MIX_SECONDS, 'noisy')],
    ['quiet mix', callMix(MIX_SECONDS, 'quiet')],
    ["telephony bench's caller track", benchCallerTrack(MIX_SECONDS * RATE)],
  ];
  for (let r = 0; r < rounds && paired !== undefined; r++) {
    const before = JSON.parse(paired) as BargeInDetectorOptions;
    for (const [name, mix] of mixes) {
      const order: [string, BargeInDetectorOptions][] = [
        ['defaults', {}],
        [paired, before],
      ];
      if (r % 2 === 1) order.reverse();
      for (const [label, o] of order) {
        const a = await alone(mix, false, 1, o);
        process.stdout.write(
          `paired round ${r + 1} ${name.padEnd(32)} ${label.padEnd(22)}: ${a.ms.toFixed(2)} ms/call-s, ` +
            `Silero on ${pct(a.modelShare)} of windows (load ${loadavg()[0]!.toFixed(1)})\n`,
        );
      }
    }
  }
  for (let r = 0; r < rounds && paired === undefined; r++) {
    for (const [name, mix] of mixes) {
      for (const [botAlways, detectors, busy] of contend
        ? ([
            [true, ALONE_MANY, false],
            [true, ALONE_MANY, true],
          ] as const)
        : ([
            [false, 1, false],
            [true, 1, false],
            [true, ALONE_MANY, false],
          ] as const)) {
        const other = busy ? startContender() : null;
        const a = await alone(mix, botAlways, detectors);
        await other?.stop();
        process.stdout.write(
          `alone ${name.padEnd(32)} bot ${botAlways ? 'always' : 'half  '} ${String(detectors).padStart(2)} detector(s)` +
            `${busy ? ', other core streaming memory' : ''}: ${a.ms.toFixed(2)} ms/call-s, ` +
            `Silero on ${pct(a.modelShare)} of windows (load ${loadavg()[0]!.toFixed(1)})\n`,
        );
      }
    }
  }
}

if (!aloneOnly) {
  // Read after each step only: the first step must start the detector thread itself, or
  // bench/telephony.bench.ts does not learn its id (nor report its CPU in the window).
  let before: ModelRunStats | undefined;
  // The first step starts the detector thread at the first nice value; later steps set it on the running thread.
  if (niceValues.length > 0) configureDetectorThreads({ nice: niceValues[0]! });
  const plan: { calls: number; nice: number | undefined }[] = [];
  for (let r = 0; r < rounds; r++) {
    const nices = niceValues.length === 0 ? [undefined] : r % 2 === 0 ? niceValues : [...niceValues].reverse();
    for (const calls of fixed) for (const nice of nices) plan.push({ calls, nice });
  }
  for (const { calls, nice } of plan) {
    const tid = detectorThreads.threadIds[0];
    if (nice !== undefined && tid !== undefined) setPriority(tid, nice);
    const wait0 = waitMs(tid);
    const s = await step(calls, contender, spec);
    const stepWait = waitMs(tid ?? detectorThreads.threadIds[0]) - wait0;
    const after = await probeDetectorThread();
    const d = (k: keyof ModelRunStats): number => ((after?.[k] ?? NaN) as number) - ((before?.[k] ?? 0) as number);
    const detectorMsPerS = s.threads?.named['detector'] ?? NaN;
    const detectorWait = s.threads?.namedWait['detector'] ?? NaN;
    const windows = d('windows');
    process.stdout.write(
      `bridge N=${calls} (load ${loadavg()[0]!.toFixed(1)}): detector thread ${(detectorMsPerS / calls).toFixed(2)} ms/call-s ` +
        `(${detectorMsPerS.toFixed(0)} ms/s) in the window; whole step: Silero on ${pct(d('modelWindows') / windows)} ` +
        `of ${windows} windows, ${(d('rows') / d('runs')).toFixed(2)} rows per run, ${d('runs')} runs, ${d('wakes')} wakes, ` +
        `thread CPU ${d('cpuMs').toFixed(0)} ms; bridge ${s.bridgeCpuPerCallSecond.toFixed(2)} ms/call-s, ` +
        `wait ${s.threads?.mainWaitMsPerS.toFixed(0)} ms/s, p99 ${s.p99.toFixed(1)} ms` +
        (nice === undefined
          ? '\n'
          : `; nice ${nice}: detector wait ${detectorWait.toFixed(0)} ms/s (${(stepWait / d('wakes')).toFixed(2)} ms a wake, ` +
            `mean over the step), decisions ${s.decisions.pauses} pauses / ${s.decisions.clears} clears / ` +
            `${s.decisions.turns} turns, ${s.detectorsBehind} calls behind, backend ${s.backend}\n`),
    );
    before = after;
  }
}
// No process.exit(): the idle detector thread must end first (see bench/bargeInTransportPaired.ts).
