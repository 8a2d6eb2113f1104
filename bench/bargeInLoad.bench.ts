/**
 * Barge-in by voice, what the detectors cost the loop that feeds them (issue 22): a bare 20 ms
 * timer as the machine's floor; handing a 20 ms frame to a detector thread (clone, copy, transfer);
 * ten calls' detectors fed in real time by one event loop, on a detector thread and inline; and
 * fifty calls fed the bridge's way (each call's frames in turns of their own) with the detector
 * thread's tick off (one message per turn) and on (native-notes/vad.md, "Detector thread on a tick").
 *
 *   the command in COMMAND below (run from the repository root)
 *
 * The bridge's capacity with callers speaking (largest N at p99 media-send lateness ≤ 5 ms, barge-in
 * ON against OFF) is measured in bench/telephony.bench.ts, beside the providers: the same openings,
 * window, step rule and search (native-notes/vad.md, "Barge-in ON vs OFF in the telephony bench").
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { LatenessHistogram } from '../src/telephony/LatenessHistogram.js';
import {
  configureDetectorThreads,
  DEFAULT_DETECTOR_TICK_MS,
  DEFAULT_DETECTOR_TRANSPORT,
  detectorThreads,
  type DetectorTransport,
} from '../src/telephony/bargeIn/DetectorThreads.js';
import type { ModelRunStats } from '../src/telephony/bargeIn/detectorMessages.js';
import { VoiceBargeIn, type DetectorThread } from '../src/telephony/VoiceBargeIn.js';
import { MULAW_8K } from '../src/telephony/lineFormat.js';
import type { BenchOptions, BenchResult } from './types.js';
import { processCpuMs, threadClock, threadCpuMs } from './lib/measure.js';
import { sampleThreads, threadWindow } from './lib/threadStats.js';
import { PerformanceObserver } from 'node:perf_hooks';
import { callMix } from './vad.bench.js';

const COMMAND =
  "node --expose-gc --import tsx -e \"import('./bench/bargeInLoad.bench.ts').then(m=>m.run({quick:false}))" +
  '.then(r=>console.table(r.map(x=>({s:x.scenario,...x.figures,met:x.met}))))"';
const FULL_SECONDS = 5;
const QUICK_SECONDS = 1.5;
const FRAME_PERIOD_MS = 20;
/** The caller track the loop-cost rows feed (each call from its own place): 60 s of the noisy 30 % speech mix. */
const CALLER_TRACK_SECONDS = 60;

const fixture = new Uint8Array(readFileSync(new URL('../test/fixtures/telephony/greeting.ulaw', import.meta.url)));

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
  out.push(...(await frameHandoff(opts)));
  out.push(...(await detectorLoopCost(opts, seconds)));
  out.push(...(await detectorTick(opts)));
  out.push(...(await detectorTransport(opts)));
  return out;
}

/** Frames posted per handoff variant (bounded; ~1 s of 160 calls' inbound and played frames). */
const HANDOFF_FRAMES = 20_000;
const HANDOFF_QUICK_FRAMES = 2_000;
const HANDOFF_ROUNDS = 3;

/**
 * Handing a 20 ms μ-law frame (160 bytes) to a detector thread: what the posting thread pays per
 * frame. A frame arrives as a view on a pooled 8 KiB Buffer (base64 decode); posting the view
 * clones the whole pool, so the call copies it first and then either clones the copy or transfers it.
 * Paired: the variants alternate, HANDOFF_ROUNDS times each, the median reported.
 */
async function frameHandoff(opts: BenchOptions): Promise<BenchResult[]> {
  const worker = new Worker('require("node:worker_threads").parentPort.on("message", () => {});', { eval: true });
  const frames = opts.quick ? HANDOFF_QUICK_FRAMES : HANDOFF_FRAMES;
  const payload = Buffer.from(fixture.subarray(0, 160)).toString('base64');
  const variants = {
    'clone the pooled view (what not to do)': (f: Uint8Array) => worker.postMessage({ t: 'in', id: 1, pcm: f, atMs: 0 }),
    'copy, then clone the copy': (f: Uint8Array) => worker.postMessage({ t: 'in', id: 1, pcm: f.slice(), atMs: 0 }),
    'copy, then transfer the copy': (f: Uint8Array) => {
      const own = f.slice();
      worker.postMessage({ t: 'in', id: 1, pcm: own, atMs: 0 }, [own.buffer]);
    },
  };
  const times = new Map<string, { wall: number[]; cpu: number[] }>();
  for (let round = 0; round < HANDOFF_ROUNDS; round++) {
    for (const [name, post] of Object.entries(variants)) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < frames; i++) post(Buffer.from(payload, 'base64'));
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const t = times.get(name) ?? { wall: [], cpu: [] };
      t.wall.push((wall * 1000) / frames);
      t.cpu.push((cpu.user + cpu.system) / frames);
      times.set(name, t);
      await new Promise((r) => setTimeout(r, 50)); // let the thread drain before the next variant
    }
  }
  await worker.terminate();
  const median = (x: number[]): number => [...x].sort((a, b) => a - b)[Math.floor(x.length / 2)]!;
  return [...times].map(([name, t]) => ({
    scenario: `barge-in frame handoff to a detector thread: ${name} (160-byte frames, ${frames} per round)`,
    figures: {
      'posting thread µs per frame': round(median(t.wall)),
      'process CPU µs per frame': round(median(t.cpu)),
      '1-min load average': round(loadavg()[0]!),
    },
    command: 'npm run bench -- bargeInLoad',
  }));
}

/** Calls fed at once in the loop-cost rows, and how many times each mode runs (alternating). */
const LOOP_COST_CALLS = 10;
const LOOP_COST_ROUNDS = 2;
/** The played frame is noted this far ahead of the inbound one (the pacer's lead). */
const LOOP_COST_LEAD_MS = 200;

/**
 * What the detectors cost the event loop that feeds them, without sockets: LOOP_COST_CALLS calls'
 * VoiceBargeIn each get a 20 ms caller frame (the noisy ~30 % speech mix) and a played-frame note
 * every 20 ms on an absolute schedule, worker and inline alternating in the same run. Figures: the
 * share of wall time that loop was busy (`eventLoopUtilization`), its 20 ms timer's p99 lateness,
 * process CPU (both threads), and the decisions (the same count in both modes, or the comparison
 * is void).
 */
async function detectorLoopCost(opts: BenchOptions, seconds: number): Promise<BenchResult[]> {
  const track = callMix(CALLER_TRACK_SECONDS);
  const frames = Math.round((seconds * 1000) / FRAME_PERIOD_MS);
  const rows = new Map<DetectorThread, { busy: number[]; p99: number[]; cpu: number[]; decisions: number[]; dropped: number }>();
  await warmDetectorThread();
  for (let round = 0; round < LOOP_COST_ROUNDS; round++) {
    for (const mode of ['worker', 'inline'] as const) {
      process.stderr.write(`bargeInLoad bench: detector loop cost, ${LOOP_COST_CALLS} calls, ${mode} …\n`);
      let decisions = 0;
      let ready = 0;
      const count = (): void => void decisions++;
      const actions = { pause: count, resume: count, interrupt: count, turnStarted: count, turnEnded: count, warning: count };
      const voices = Array.from({ length: LOOP_COST_CALLS }, () => {
        const v = new VoiceBargeIn(
          { detectorThread: mode, interruptible: false, vad: { onNotice: () => undefined } },
          MULAW_8K,
          actions,
          () => ready++,
        );
        v.setLine(MULAW_8K, 0);
        return v;
      });
      for (let i = 0; i < WARM_POLLS && ready < voices.length; i++) await new Promise((r) => setTimeout(r, WARM_POLL_MS));
      const lateness = new LatenessHistogram();
      const cpu0 = process.cpuUsage();
      const elu0 = performance.eventLoopUtilization();
      const t0 = performance.now();
      for (let f = 0; f < frames; f++) {
        const due = t0 + (f + 1) * FRAME_PERIOD_MS;
        await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
        lateness.record(performance.now() - due);
        const now = performance.now() - t0;
        voices.forEach((v, i) => {
          const at = (f * FRAME_BYTES + i * CALL_STAGGER) % (track.length - FRAME_BYTES);
          v.played(track.subarray(at, at + FRAME_BYTES), now + LOOP_COST_LEAD_MS);
          v.inbound(track.subarray(at, at + FRAME_BYTES), now);
        });
      }
      const busy = performance.eventLoopUtilization(elu0).utilization;
      await Promise.all(voices.map((v) => v.settled()));
      const cpu = process.cpuUsage(cpu0);
      const r = rows.get(mode) ?? { busy: [], p99: [], cpu: [], decisions: [], dropped: 0 };
      r.busy.push(busy);
      r.p99.push(lateness.quantile(0.99));
      r.cpu.push((cpu.user + cpu.system) / 1000 / LOOP_COST_CALLS / seconds);
      r.decisions.push(decisions);
      r.dropped += voices.reduce((a, v) => a + v.droppedSamples, 0);
      rows.set(mode, r);
      for (const v of voices) v.close();
      await Promise.all(voices.map((v) => v.settled()));
    }
  }
  const mean = (x: number[]): number => x.reduce((a, b) => a + b, 0) / Math.max(1, x.length);
  return [...rows].map(([mode, r]) => ({
    scenario: `barge-in detectors fed by one event loop: ${LOOP_COST_CALLS} calls, 20 ms frames in real time, ${seconds} s / ${mode}`,
    figures: {
      'feeding loop busy %': round(mean(r.busy) * 100),
      'its 20 ms timer p99 lateness ms': round(mean(r.p99)),
      'process CPU ms per call-second': round(mean(r.cpu)),
      'decisions per run': r.decisions.join(' / '),
      'caller samples dropped': r.dropped,
      '1-min load average': round(loadavg()[0]!),
    },
    command: 'npm run bench -- bargeInLoad',
    notes: `${LOOP_COST_ROUNDS} runs per mode, alternating; ${opts.quick ? 'quick' : 'full'} run`,
  }));
}
const FRAME_BYTES = 160;
/** Each call reads the caller track from its own place (a prime, as the phones do). */
const CALL_STAGGER = 7919;

/**
 * Starts the detector thread (and Silero in it) before the first step, as a bridge does with its
 * first call: the steps measure calls, not the thread's one-time start. It stays between steps
 * (idle for less than DEFAULT_DETECTOR_THREAD_IDLE_MS).
 */
async function warmDetectorThread(): Promise<void> {
  let ready = false;
  const ignore = (): void => undefined;
  const actions = { pause: ignore, resume: ignore, interrupt: ignore, turnStarted: ignore, turnEnded: ignore, warning: ignore };
  const voice = new VoiceBargeIn({ vad: { onNotice: ignore } }, MULAW_8K, actions, () => (ready = true));
  for (let i = 0; i < WARM_POLLS && !ready; i++) await new Promise((r) => setTimeout(r, WARM_POLL_MS));
  voice.close();
  await voice.settled();
}
const WARM_POLLS = 2000;
const WARM_POLL_MS = 5;

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

/** Calls in the tick rows (the quiet capacity run put barge-in ON at 56; 50 calls is where the thread's cost was read). */
const TICK_CALLS = 50;
const TICK_QUICK_CALLS = 10;
/** The ticks compared, ms: 0 is one message per turn (before the tick), then the default and its neighbours. */
const TICKS_MS = [0, 2, DEFAULT_DETECTOR_TICK_MS, 10];
const TICK_ROUNDS = 2;
const TICK_SECONDS = 6;
const TICK_QUICK_SECONDS = 1.5;

interface TickSample {
  wakes: number;
  posts: number;
  runs: number;
  rows: number;
  detectorCpu: number;
  bridgeCpu: number;
  processCpu: number;
  p99: number;
  decisions: number;
  dropped: number;
  /** Messages the threads sent back (answers) in the window. */
  answers: number;
  /** The main (feeding) thread's CPU and run-queue wait, ms per wall second (/proc schedstat). */
  mainRunMsPerS: number;
  mainWaitMsPerS: number;
  /** Every thread but the main and the detector thread (V8's GC and compiler helpers, libuv's pool), ms per wall second. */
  helpersMsPerS: number;
  /** Main-thread GC pauses (perf_hooks 'gc' entries), ms per wall second. */
  gcPauseMsPerS: number;
}

/**
 * The detector thread's tick, paired: {@link TICK_CALLS} calls' VoiceBargeIn (detector thread,
 * defaults, the bot speaking, callers on the noisy ~30 % speech mix), each fed by 20 ms timers of
 * its own (the caller's frame, and the bot's frame half a period later, as a socket and a pacer),
 * phases spread over the 20 ms, so each turn of the loop carries one or a few calls' frames, as
 * in a bridge; the ticks of {@link TICKS_MS} alternate in the same process,
 * {@link TICK_ROUNDS} rounds. Per tick: the thread's wakes per second (its own count), Silero
 * windows per run, the detector thread's CPU per call-second (its own clock, /proc), the feeding
 * (bridge) thread's, the process's, the feeding timers' p99 lateness, decisions, samples dropped.
 */
async function detectorTick(opts: BenchOptions): Promise<BenchResult[]> {
  const calls = opts.quick ? TICK_QUICK_CALLS : TICK_CALLS;
  const seconds = opts.quick ? TICK_QUICK_SECONDS : TICK_SECONDS;
  const track = callMix(CALLER_TRACK_SECONDS);
  configureDetectorThreads({ threads: 1 });
  await warmDetectorThread();
  const samples = new Map<number, TickSample[]>();
  for (let round = 0; round < TICK_ROUNDS; round++) {
    const order = round % 2 === 0 ? TICKS_MS : [...TICKS_MS].reverse();
    for (const tickMs of order) {
      process.stderr.write(`bargeInLoad bench: detector tick ${tickMs} ms, ${calls} calls, round ${round + 1} …\n`);
      configureDetectorThreads({ tickMs });
      const s = await tickRound(calls, seconds, track);
      samples.set(tickMs, [...(samples.get(tickMs) ?? []), s]);
    }
  }
  configureDetectorThreads({ tickMs: DEFAULT_DETECTOR_TICK_MS });
  const mean = (x: number[]): number => x.reduce((a, b) => a + b, 0) / Math.max(1, x.length);
  const callSeconds = calls * seconds;
  return [...samples].map(([tickMs, r]) => ({
    scenario:
      `barge-in detector thread fed the bridge's way: ${calls} calls, each call's frames in turns of their own, ` +
      `${seconds} s / tick ${tickMs === 0 ? '0 (one message per turn, before the tick)' : `${tickMs} ms`}`,
    figures: {
      'detector thread wakes per second': round(mean(r.map((x) => x.wakes / seconds))),
      'messages to the thread per second': round(mean(r.map((x) => x.posts / seconds))),
      'Silero windows per run': round(mean(r.map((x) => x.rows / Math.max(1, x.runs)))),
      'detector thread CPU ms per call-second': round(mean(r.map((x) => x.detectorCpu / callSeconds))),
      'bridge thread CPU ms per call-second': round(mean(r.map((x) => x.bridgeCpu / callSeconds))),
      'process CPU ms per call-second': round(mean(r.map((x) => x.processCpu / callSeconds))),
      'feeding timers p99 lateness ms': round(mean(r.map((x) => x.p99))),
      'decisions per run': r.map((x) => x.decisions).join(' / '),
      'caller samples dropped': r.reduce((a, x) => a + x.dropped, 0),
      'worst added delay to the detector ms': tickMs,
      '1-min load average': round(loadavg()[0]!),
    },
    command: 'npm run bench -- bargeInLoad',
    notes:
      `${TICK_ROUNDS} rounds, ticks alternating (${TICKS_MS.join(', ')} ms, order reversed every other round); ` +
      `thread CPU from /proc/thread-self/schedstat${threadClock ? '' : ' (not readable here: process CPU instead)'}; ` +
      `${opts.quick ? 'quick' : 'full'} run`,
  }));
}

/** The detector thread's counters now: a probe call opened and closed on it (in order behind everything posted before). */
async function threadStats(): Promise<ModelRunStats> {
  return new Promise((resolve, reject) => {
    const id = detectorThreads.attach({
      message: (m) => {
        if (m.t === 'ready') detectorThreads.post(id, { t: 'close', id });
        if (m.t === 'closed') {
          detectorThreads.release(id);
          resolve(m.model ?? { runs: 0, rows: 0 });
        }
        if (m.t === 'failed') reject(new Error(m.error.message));
      },
      failed: (e) => reject(new Error(e.message)),
    });
    detectorThreads.post(id, { t: 'open', id, options: { vad: { backend: 'webrtc' } } });
  });
}

/** A call's bot frame is sent this long after its caller frame arrives (half a frame: other turns). */
const PACER_OFFSET_MS = FRAME_PERIOD_MS / 2;

/** The wakes of the probe that reads the counters after a round (its open and its close). */
const PROBE_WAKES = 2;

async function tickRound(calls: number, seconds: number, track: Uint8Array): Promise<TickSample> {
  let decisions = 0;
  let ready = 0;
  const voices: VoiceBargeIn[] = [];
  const count = (): void => void decisions++;
  const frames = Math.round((seconds * 1000) / FRAME_PERIOD_MS);
  for (let i = 0; i < calls; i++) {
    const actions = {
      pause: count,
      resume: count,
      turnStarted: count,
      turnEnded: count,
      warning: count,
      // The cut utterance is followed by the next: the bot speaks again.
      interrupt: (): void => {
        decisions++;
        voices[i]!.setBotSpeaking(false);
        voices[i]!.setBotSpeaking(true);
      },
    };
    const v = new VoiceBargeIn({ detectorThread: 'worker', vad: { onNotice: () => undefined } }, MULAW_8K, actions, (link) => {
      ready++;
      link.setBotSpeaking(true);
    });
    v.setLine(MULAW_8K, 0);
    v.setBotSpeaking(true);
    voices.push(v);
  }
  for (let i = 0; i < WARM_POLLS && ready < voices.length; i++) await new Promise((r) => setTimeout(r, WARM_POLL_MS));
  await Promise.all(voices.map((v) => v.settled()));
  const before = await threadStats();
  const posts0 = detectorThreads.posts;
  const answers0 = detectorThreads.answers;
  const lateness = new LatenessHistogram();
  let gcMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcMs += e.duration;
  });
  gc.observe({ entryTypes: ['gc'] });
  const threads0 = sampleThreads();
  const bridge0 = threadCpuMs();
  const cpu0 = processCpuMs();
  const t0 = performance.now();
  await Promise.all(
    voices.map(
      (v, i) =>
        new Promise<void>((resolve) => {
          // The caller's frames (the socket) and the bot's (the pacer) come in turns of their own.
          const phase = (i * FRAME_PERIOD_MS) / calls;
          let f = 0;
          let sent = 0;
          const next = (): void => {
            const due = t0 + phase + (f + 1) * FRAME_PERIOD_MS;
            setTimeout(feed, Math.max(0, due - performance.now()));
            setTimeout(play, Math.max(0, due + PACER_OFFSET_MS - performance.now()));
          };
          const play = (): void => {
            const at = (sent++ * FRAME_BYTES + i * CALL_STAGGER) % (fixture.length - FRAME_BYTES);
            v.played(fixture.subarray(at, at + FRAME_BYTES), performance.now() - t0 + LOOP_COST_LEAD_MS);
            if (sent === frames) resolve();
          };
          const feed = (): void => {
            const now = performance.now();
            lateness.record(now - (t0 + phase + (f + 1) * FRAME_PERIOD_MS));
            const at = (f * FRAME_BYTES + i * CALL_STAGGER) % (track.length - FRAME_BYTES);
            v.inbound(track.subarray(at, at + FRAME_BYTES), now - t0);
            if (++f < frames) next();
          };
          next();
        }),
    ),
  );
  await Promise.all(voices.map((v) => v.settled()));
  const bridgeCpu = threadCpuMs() - bridge0;
  const processCpu = processCpuMs() - cpu0;
  const window = threadWindow(
    threads0,
    sampleThreads(),
    performance.now() - t0,
    new Map(before.tid === undefined ? [] : [[before.tid, 'detector']]),
  );
  gc.disconnect();
  const wallS = (performance.now() - t0) / 1000;
  const posts = detectorThreads.posts - posts0;
  const answers = detectorThreads.answers - answers0;
  const after = await threadStats();
  const dropped = voices.reduce((a, v) => a + v.droppedSamples, 0);
  for (const v of voices) v.close();
  await Promise.all(voices.map((v) => v.settled()));
  return {
    // Less the second probe's own open and close (two wakes after the window).
    wakes: (after.wakes ?? 0) - (before.wakes ?? 0) - PROBE_WAKES,
    posts,
    runs: after.runs - before.runs,
    rows: after.rows - before.rows,
    detectorCpu: (after.cpuMs ?? Number.NaN) - (before.cpuMs ?? Number.NaN),
    bridgeCpu,
    processCpu,
    p99: lateness.quantile(0.99),
    decisions,
    dropped,
    answers,
    mainRunMsPerS: window.mainRunMsPerS,
    mainWaitMsPerS: window.mainWaitMsPerS,
    helpersMsPerS: window.otherRunMsPerS,
    gcPauseMsPerS: gcMs / wallS,
  };
}

/** Calls in the transport rows: where the detector thread's cost was read (50) and the ON step that waited for a core (80). */
const TRANSPORT_CALLS = [50, 80];
const TRANSPORT_QUICK_CALLS = [10];
const TRANSPORTS: DetectorTransport[] = ['messages', 'shared'];
const TRANSPORT_ROUNDS = 2;

/**
 * How a call's audio reaches its detector thread, paired: a message per frame batched per tick
 * (`'messages'`, before) against the call's ring in shared memory (`'shared'`,
 * src/telephony/bargeIn/frameRing.ts), the same feed as the tick rows (each call's frames in
 * turns of their own, the bot speaking, callers on the ~30 % speech mix, the default tick), at
 * {@link TRANSPORT_CALLS} calls, transports alternating (order reversed every other round).
 * Per-thread CPU and the main thread's run-queue wait from bench/lib/threadStats.ts: the
 * load-robust figures (the feeding timers' p99 is reported for direction only).
 */
export async function detectorTransport(opts: BenchOptions): Promise<BenchResult[]> {
  const seconds = opts.quick ? TICK_QUICK_SECONDS : TICK_SECONDS;
  const track = callMix(CALLER_TRACK_SECONDS);
  configureDetectorThreads({ threads: 1, tickMs: DEFAULT_DETECTOR_TICK_MS });
  await warmDetectorThread();
  const out: BenchResult[] = [];
  for (const calls of opts.quick ? TRANSPORT_QUICK_CALLS : TRANSPORT_CALLS) {
    const samples = new Map<DetectorTransport, TickSample[]>();
    for (let round = 0; round < TRANSPORT_ROUNDS; round++) {
      for (const transport of round % 2 === 0 ? TRANSPORTS : [...TRANSPORTS].reverse()) {
        process.stderr.write(`bargeInLoad bench: detector transport ${transport}, ${calls} calls, round ${round + 1} …\n`);
        configureDetectorThreads({ transport });
        samples.set(transport, [...(samples.get(transport) ?? []), await tickRound(calls, seconds, track)]);
      }
    }
    configureDetectorThreads({ transport: DEFAULT_DETECTOR_TRANSPORT });
    const callSeconds = calls * seconds;
    const each = (r: TickSample[], f: (x: TickSample) => number): string => r.map((x) => round(f(x))).join(' · ');
    for (const [transport, r] of samples) {
      out.push({
        scenario:
          `barge-in audio to the detector thread: ${calls} calls fed the bridge's way, ${seconds} s, ` +
          `tick ${DEFAULT_DETECTOR_TICK_MS} ms / ` +
          (transport === 'shared' ? 'shared-memory ring per call (default)' : 'a message per frame (before the ring)'),
        figures: {
          'bridge thread CPU ms per call-second': each(r, (x) => x.bridgeCpu / callSeconds),
          'bridge thread run-queue wait ms per s': each(r, (x) => x.mainWaitMsPerS),
          'V8 helper threads CPU ms per s': each(r, (x) => x.helpersMsPerS),
          'main-thread GC pauses ms per s': each(r, (x) => x.gcPauseMsPerS),
          'detector thread CPU ms per call-second': each(r, (x) => x.detectorCpu / callSeconds),
          'process CPU ms per call-second': each(r, (x) => x.processCpu / callSeconds),
          'detector thread wakes per second': each(r, (x) => x.wakes / seconds),
          'answers from the thread per second': each(r, (x) => x.answers / seconds),
          'Silero windows per run': each(r, (x) => x.rows / Math.max(1, x.runs)),
          'feeding timers p99 lateness ms (direction only under load)': each(r, (x) => x.p99),
          'decisions per run': r.map((x) => x.decisions).join(' / '),
          'caller samples dropped': r.reduce((a, x) => a + x.dropped, 0),
          '1-min load average': round(loadavg()[0]!),
        },
        command: 'npm run bench -- bargeInLoad',
        notes:
          `${TRANSPORT_ROUNDS} rounds (figures "first · second"), transports alternating; thread figures from /proc schedstat ` +
          `(bench/lib/threadStats.ts); ${opts.quick ? 'quick' : 'full'} run`,
      });
    }
  }
  return out;
}
