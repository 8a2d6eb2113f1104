/**
 * Barge-in by voice under load: N Twilio-like phones (a worker thread, real ws over loopback,
 * playing in real time and echoing marks) each hear a paced utterance from the bridge, while their
 * callers talk. Figure: p99 media-send lateness (time a paced send went out minus the time it was
 * due); a bare 20 ms timer is measured first as the machine's floor. The plain per-provider
 * capacity (no caller audio) is bench/telephony.bench.ts.
 *
 *   the command in COMMAND below (run from the repository root)
 *
 * The speech is real espeak-ng speech (the committed μ-law fixture) played from memory through
 * `BufferedSpeechStream`, so the figure is the bridge's and the detector's, not synthesis.
 *
 * Barge-in by voice (issue 22): every phone also sends its caller's audio (real corpus speech,
 * the caller speaking ~30 % of the time over phone-line noise, `callMix`), and each N runs twice
 * in the same run, barge-in OFF then ON. ON runs the whole detector on every call (VAD, echo gate,
 * policy, turn audio) with `interruptible: false`, so that no call is cut short and both runs
 * send the same audio: the figure is the cost of listening, not of stopping. The result: the
 * largest N within 5 ms with barge-in ON as a share of the same with it OFF (target ≥ 90 %).
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { BufferedSpeechStream } from '../src/telephony/BufferedSpeechStream.js';
import { LatenessHistogram } from '../src/telephony/LatenessHistogram.js';
import { createTwilioBridge } from '../src/telephony/TwilioBridgeServer.js';
import type { TwilioCall } from '../src/telephony/TwilioCall.js';
import type { UtteranceResult } from '../src/telephony/Utterance.js';
import type { BenchOptions, BenchResult } from './types.js';
import { callMix } from './vad.bench.js';

const COMMAND =
  "node --expose-gc --import tsx -e \"import('./bench/bargeInLoad.bench.ts').then(m=>m.run({quick:false}))" +
  '.then(r=>console.table(r.map(x=>({s:x.scenario,...x.figures,met:x.met}))))"';
const TARGET_P99_MS = 5;
/** Barge-in OFF vs ON with callers speaking: each N twice, so fewer steps (a step ends a mode once it misses). */
const BARGE_IN_FULL_STEPS = [1, 5, 10, 25, 50, 75, 100, 150, 200];
const BARGE_IN_QUICK_STEPS = [1, 10];
const FULL_SECONDS = 5;
const QUICK_SECONDS = 1.5;
const RATE = 8000;
const WARMUP_MS = 300;
const FRAME_PERIOD_MS = 20;
/** The caller track the phones loop (each from its own place): 60 s of the noisy 30 % speech mix. */
const CALLER_TRACK_SECONDS = 60;
/** Barge-in ON must keep this share of the OFF capacity (issue 22). */
const TARGET_ON_SHARE = 0.9;

const fixture = new Uint8Array(readFileSync(new URL('../test/fixtures/telephony/greeting.ulaw', import.meta.url)));

function speech(seconds: number): Uint8Array {
  const out = new Uint8Array(Math.round(seconds * RATE));
  for (let off = 0; off < out.length; off += fixture.length) out.set(fixture.subarray(0, Math.min(fixture.length, out.length - off)), off);
  return out;
}

interface StepResult {
  calls: number;
  p50: number;
  p99: number;
  max: number;
  sends: number;
  underruns: number;
  completed: number;
  heapMiB: number;
  /** Share of wall time the bridge's event loop was busy. */
  busy: number;
}

export async function step(calls: number, seconds: number, caller?: { track: Uint8Array; bargeIn: boolean }): Promise<StepResult> {
  const audio = speech(seconds);
  const live: TwilioCall[] = [];
  const results: Promise<UtteranceResult>[] = [];
  const bridge = await createTwilioBridge({
    source: async (_request, { signal }) => new BufferedSpeechStream(audio, [], signal),
    ...(caller?.bargeIn === true ? { bargeIn: { interruptible: false, vad: { onNotice: () => undefined } } } : {}),
    onCall(call) {
      call.inbound.resume(); // a reader of the caller's audio (a recogniser would be here)
      live.push(call);
      call.on('start', () => {
        // Measure after a short warm-up: forget the sends of the first lead.
        setTimeout(() => call.stats.lateness.reset(), WARMUP_MS);
        results.push(call.speak('bench'));
      });
    },
  });
  const worker = new Worker(new URL('./telephonyPeers.worker.mjs', import.meta.url), {
    workerData: { url: bridge.url, count: calls, ...(caller ? { caller: caller.track } : {}) },
  });
  const dbg = (m: string): void => {
    if (process.env['TEL_BENCH_DEBUG'] !== undefined) process.stderr.write(`  [${calls}] ${m}\n`);
  };
  // Bounded: whatever goes wrong, the step ends by this deadline and frees everything.
  const deadlineMs = (seconds * 3 + 30) * 1000;
  let guard: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    guard = setTimeout(() => reject(new Error(`${calls} calls: step did not finish within ${deadlineMs / 1000} s`)), deadlineMs);
    worker.once('error', reject); // the phones' worker crashed
  });
  try {
    return await Promise.race([deadline, measure()]);
  } finally {
    clearTimeout(guard);
    await worker.terminate();
    await bridge.close();
    dbg('freed');
  }

  async function measure(): Promise<StepResult> {
    const messages: { type: string; failed?: number; mediaBytes?: number; underruns?: number }[] = [];
    const waiters: (() => void)[] = [];
    worker.on('message', (m: (typeof messages)[number]) => {
      messages.push(m);
      for (const w of waiters.splice(0)) w();
    });
    const next = async (type: string): Promise<(typeof messages)[number]> => {
      for (;;) {
        const found = messages.find((m) => m.type === type);
        if (found !== undefined) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    };
    const ready = await next('ready');
    if ((ready.failed ?? 0) > 0) throw new Error(`${ready.failed} of ${calls} phones could not connect`);
    dbg('peers ready');
    while (results.length < calls) await new Promise((r) => setTimeout(r, 10));
    dbg('all started');
    const elu0 = performance.eventLoopUtilization();
    const done = await Promise.all(results);
    const busy = performance.eventLoopUtilization(elu0).utilization;
    dbg('all done');
    const merged = new LatenessHistogram();
    for (const c of live) merged.merge(c.stats.lateness);
    const heapMiB = process.memoryUsage().heapUsed / 2 ** 20;
    worker.postMessage('stop');
    const peerStats = await next('stats');
    return {
      calls,
      p50: merged.quantile(0.5),
      p99: merged.quantile(0.99),
      max: merged.maxMs,
      sends: merged.count,
      underruns: peerStats.underruns ?? 0,
      completed: done.filter((r) => r.status === 'completed').length,
      heapMiB,
      busy,
    };
  }
}

/**
 * The anchor: how late a bare Node timer, scheduled against absolute time every 20 ms, fires on
 * this machine right now. The bridge cannot be more punctual than this.
 */
async function bareTimerLateness(seconds: number): Promise<LatenessHistogram> {
  const h = new LatenessHistogram();
  const start = performance.now();
  let due = start + FRAME_PERIOD_MS;
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now();
      h.record(now - due);
      due += FRAME_PERIOD_MS;
      if (now - start >= seconds * 1000) resolve();
      else setTimeout(tick, Math.max(0, due - performance.now()));
    };
    setTimeout(tick, FRAME_PERIOD_MS);
  });
  return h;
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const seconds = opts.quick ? QUICK_SECONDS : FULL_SECONDS;
  const out: BenchResult[] = [];
  const bare = await bareTimerLateness(seconds);
  out.push({
    scenario: `bare setTimeout every 20 ms (absolute schedule), ${seconds} s: the machine's floor`,
    figures: {
      'p50 lateness ms': round(bare.quantile(0.5)),
      'p99 lateness ms': round(bare.quantile(0.99)),
      'max lateness ms': round(bare.maxMs),
    },
    command: COMMAND,
  });
  out.push(...(await bargeInCapacity(opts, seconds, bare.quantile(0.99))));
  return out;
}

/** The same bridge with callers speaking, barge-in OFF then ON at each N (same run). */
/**
 * A loaded machine's own timer lateness can exceed the 5 ms target (other work on the 2 cores):
 * then no N meets it, with barge-in or without. So each mode also goes on while its p99 stays
 * within 5 ms of the bare timer's p99 measured in the same run, and that count is reported too.
 */
async function bargeInCapacity(opts: BenchOptions, seconds: number, bareP99: number): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  const steps = opts.quick ? BARGE_IN_QUICK_STEPS : BARGE_IN_FULL_STEPS;
  const track = callMix(CALLER_TRACK_SECONDS);
  const best = { off: 0, on: 0 };
  const bestOverFloor = { off: 0, on: 0 };
  const alive = { off: true, on: true };
  const loadBefore = loadavg()[0]!;
  for (const calls of steps) {
    for (const mode of ['off', 'on'] as const) {
      if (!alive[mode]) continue;
      process.stderr.write(`bargeInLoad bench: ${calls} calls, callers speaking, barge-in ${mode} …\n`);
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const r = await step(calls, seconds, { track, bargeIn: mode === 'on' });
      const cpu = process.cpuUsage(cpu0);
      const wallS = (performance.now() - t0) / 1000;
      const ok = r.completed === calls && r.underruns === 0;
      const met = ok && r.p99 <= TARGET_P99_MS;
      const overFloor = ok && r.p99 <= bareP99 + TARGET_P99_MS;
      if (met) best[mode] = calls;
      if (overFloor) bestOverFloor[mode] = calls;
      else alive[mode] = false; // lateness only grows with N
      out.push({
        scenario: `telephony bridge / ${calls} calls, callers speaking ~30 % (corpus audio) / barge-in ${mode.toUpperCase()}`,
        figures: {
          'p50 lateness ms': round(r.p50),
          'p99 lateness ms': round(r.p99),
          'max lateness ms': round(r.max),
          'phone underruns': r.underruns,
          completed: `${r.completed}/${calls}`,
          'bridge loop busy %': round(r.busy * 100),
          'process CPU ms per call-second': round((cpu.user + cpu.system) / 1000 / calls / wallS),
          'heap MiB': round(r.heapMiB),
        },
        target: `p99 media-send lateness ≤ ${TARGET_P99_MS} ms`,
        ...(opts.quick ? {} : { met }),
        command: 'npm run bench -- bargeInLoad',
      });
    }
    if (!alive.off && !alive.on) break;
  }
  const share = best.off === 0 ? 0 : best.on / best.off;
  const shareOverFloor = bestOverFloor.off === 0 ? 0 : bestOverFloor.on / bestOverFloor.off;
  out.push({
    scenario:
      `telephony bridge / largest N with p99 ≤ ${TARGET_P99_MS} ms, callers speaking: ` + `barge-in ON vs OFF (tried ${steps.join(', ')})`,
    figures: {
      'calls ON': best.on,
      'calls OFF': best.off,
      'ON / OFF %': round(share * 100),
      'calls ON, p99 ≤ floor + 5 ms': bestOverFloor.on,
      'calls OFF, p99 ≤ floor + 5 ms': bestOverFloor.off,
      'ON / OFF over the floor %': round(shareOverFloor * 100),
      'bare timer p99 ms': round(bareP99),
    },
    target: `ON ≥ ${TARGET_ON_SHARE * 100} % of OFF`,
    ...(opts.quick ? {} : { met: share >= TARGET_ON_SHARE }),
    command: 'npm run bench -- bargeInLoad',
    notes:
      `ON: createBargeInDetector on every call (default gated VAD, echo gate, turns), interruptible false so both runs send the same; ` +
      `the phones (worker thread) send 20 ms caller frames; the OFF figure is capped by the largest N tried; ` +
      `1-min load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after`,
  });
  return out;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
