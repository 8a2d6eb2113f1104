/**
 * Concurrent bridged calls in one process, per contender: N phones speaking a provider's protocol
 * (a worker thread, real ws over loopback, playing in real time and answering acknowledgement
 * requests) each hear a paced utterance from the bridge in the provider's line format (Twilio
 * μ-law 8 kHz, Telnyx A-law 8 kHz, Plivo and Vonage L16 16 kHz, Exotel L16 8 kHz in 3.2 KB
 * batches). The phones open their calls at seeded random times over one second, as real calls arrive.
 *
 * Contenders: the five providers, and two more on Twilio whose callers speak (issue 22): each phone
 * also sends its caller's audio (corpus clips at seeded random moments, the caller's sound ~30 %
 * of the time, bench/lib/callerTrack.ts), with barge-in OFF (the caller's audio is read and
 * dropped) and ON (`bargeIn` with its defaults: the detector on the detector thread, interruptible).
 * With barge-in ON the bot is paused, resumed and cut as the caller speaks over it; an utterance
 * that ends (cut, or at its end) is followed at once by the next, so every call is busy through
 * the window. Same openings, same window, same search for all seven.
 *
 * Figure: p99 media-send lateness (time a paced send went out minus the time it was due) in the
 * steady window (every call live), and the largest N within 5 ms per contender; each provider's
 * N against Twilio's in the same run (target ≥ 90 %), and barge-in ON's N against OFF's (target
 * ≥ 90 %). How a trial is judged (enough sends, what fails it) and how a step's trials are pooled:
 * bench/lib/callStep.ts. The search (bench/lib/callSearch.ts): every contender climbs the same
 * ladder, coarse rungs 50, 140, 400 (10 and then 1 call only while everything below 50 failed),
 * then at most 4 geometric bisections, which bring its largest pass within 7 % of its first fail
 * (8 % with the rounding to whole calls). Each step, a (contender, N), is judged on 3 trials
 * pooled (p99 over all their sends; counts summed), decided before the run: every trial counts,
 * none is retried for its outcome, no best of three; a trial run whose window lost more than 5 % of
 * the VM's CPU time to the host (steal) is void and run again, at most twice (`settleTrial`), and
 * every row gives each trial's steal and the voids. The contenders run in rounds: each round opens with a bare
 * 20 ms timer (the machine's floor in that round, reported beside each of the round's steps), then
 * runs trial 1 of every contender's next step, the order rotating, then trial 2 in the next
 * rotation, then trial 3, so drift of the machine hits every contender alike; contenders whose
 * verdicts have agreed so far run the same N in the same round. Where a contender's largest pass
 * and first fail straddle ⌈90 % of its reference's N⌉, a last round runs it at exactly that N
 * (3 trials), with the reference at the same N interleaved as an anchor. Each step reports CPU
 * per call-second of the whole process, the bridge's thread, the peers' thread and the other
 * threads (the detector thread, GC), per-thread figures from Linux's schedstat (the bridge
 * thread's run-queue wait, the peers', the detector's and V8's helper threads' CPU), and with
 * callers the barge-in decisions in the window.
 *
 *   the command in COMMAND below (run from the repository root)
 *
 * The bot's speech is real espeak-ng speech (the committed μ-law fixture, pre-rendered in each line
 * format) played from memory in 20 ms frames, so the figure is the bridge's (pacing, marks,
 * base64, JSON, socket, barge-in), not synthesis: 200 calls of espeak synthesis would not fit on 2 cores.
 */
import { readFileSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { Readable } from 'node:stream';
import WebSocket from 'ws';
import type { AudioFrame } from '../src/codec/types.js';
import { alawEncode } from '../src/dsp/alaw.js';
import { mulawDecode } from '../src/dsp/mulaw.js';
import type { CallCore } from '../src/telephony/CallCore.js';
import { LatenessHistogram } from '../src/telephony/LatenessHistogram.js';
import type { LineFormat } from '../src/telephony/lineFormat.js';
import { configureDetectorThreads, DEFAULT_DETECTOR_THREAD_IDLE_MS } from '../src/telephony/bargeIn/DetectorThreads.js';
import { createMediaBridge } from '../src/telephony/MediaBridgeServer.js';
import { PROVIDERS, type ProviderName } from '../src/telephony/mediaStream.js';
import type { SpeechStream } from '../src/telephony/speechSource.js';
import type { UtteranceResult } from '../src/telephony/Utterance.js';
import type { VadBackend } from '../src/telephony/vad/types.js';
import { loadCorpus } from '../test/fixtures/vad/corpus.js';
import { seededRandom } from '../test/support/rng.js';
import { callerSounds, callerTrack, lineFiller, CALLER_SPEECH_SHARE } from './lib/callerTrack.js';
import { CallSearch, openTargets, SEARCH_RESOLUTION, trialOrder, type LadderRule, type TargetPair } from './lib/callSearch.js';
import { median, round } from './lib/stats.js';
import {
  FULL_WINDOW,
  poolTrials,
  settleTrial,
  TARGET_P99_MS,
  TRIALS_PER_STEP,
  unexplainedUnderruns,
  type PooledStep,
  type StepOutcome,
  type TrialOutcome,
  type VoidRule,
  VOID_RULE,
  type WindowRule,
  windowClosed,
} from './lib/callStep.js';
import { processCpuMs, threadCpuMs } from './lib/measure.js';
import { hostWindow, sampleHostCpu, type HostWindow } from './lib/hostSteal.js';
import { sampleThreads, threadWindow, type ThreadWindow } from './lib/threadStats.js';
import { describePolicy, SCHED_IDLE, type ThreadPolicyResult } from './lib/threadPolicy.mjs';
import type { BenchOptions, BenchResult } from './types.js';

const COMMAND =
  "node --expose-gc --import tsx -e \"import('./bench/telephony.bench.ts').then(m=>m.run({quick:false}))" +
  '.then(r=>console.table(r.map(x=>({s:x.scenario,...x.figures,met:x.met}))))"';
/**
 * The full run's ladder (bench/lib/callSearch.ts): coarse rungs 2.86× apart (50 → 140 → 400; quiet
 * runs put every contender between 56 and 400), 10 and then 1 call only while everything below
 * 50 failed, then at most 4 geometric bisections, which bring any 2.86× bracket within 7 %.
 */
const FULL_LADDER: LadderRule = { coarse: [50, 140, 400], below: [10, 1], maxFine: 4 };
/** A quick (CI) run: 10 calls, 1 only if 10 fails, no bisection: a smoke run of the module, one trial a step. */
const QUICK_LADDER: LadderRule = { coarse: [10], below: [1], maxFine: 0 };
const QUICK_TRIALS = 1;
/** A quick run's window: short and fixed (a smoke run, judged on few sends). */
const QUICK_WINDOW: WindowRule = { baseMs: 1500, capMs: 1500, minSends: 0 };
const RATE = 8000;
/** After the last call started, before the steady window opens (each call's first lead goes out at once). */
const WARMUP_MS = 300;
/** Calls' connections are opened at seeded random times over this span (full run); quick runs use a shorter one. */
const FULL_SPREAD_MS = 1000;
const QUICK_SPREAD_MS = 300;
/** Seed of the calls' arrival times: every contender and every run gets the same times for the same N (paired). */
const ARRIVAL_SEED = 0x5eed23;
/** Seed of the caller track and of each phone's place in it (the same for barge-in OFF and ON). */
const CALLER_SEED = 0xca11e5;
/** The caller track the phones loop, each from its own seeded place: 60 s (longer than any step's calls). */
const CALLER_TRACK_SECONDS = 60;
/** The bare timer that opens each round runs this long (250 ticks in a full run). */
const FULL_BARE_SECONDS = 5;
const QUICK_BARE_SECONDS = 1;
/** An utterance outlasts the openings, the warm-up and the longest window by this much. */
const UTTERANCE_MARGIN_MS = 2000;
/** How often a lengthened window looks whether it holds enough sends. */
const WINDOW_POLL_MS = 100;
/** How often the step looks whether every call has started (and its detector loaded). */
const POLL_MS = 10;
/**
 * No new trial starts after this long (the module's limit in bench/run.ts is 27 min; a trial takes
 * 7–9 s at N ≥ 10 and at most ~30 s at 1 call): a round cut by it leaves its unfinished steps
 * unjudged (reported, not recorded in their searches), and every summary row says so.
 */
const FULL_BUDGET_MS = 23 * 60_000;
/**
 * The detector thread's idle time during the run: longer than the run, so the one thread started
 * by the first warm-up call serves every barge-in step. With the default (30 s) it ends between two
 * barge-in steps (a round of seven contenders takes longer), and a second thread in the same
 * process cannot load onnxruntime-node ("Module did not self-register", seen here 2026-11-28): its
 * calls fall back to the WebRTC VAD, and the steps after the first would measure another detector.
 */
const RUN_DETECTOR_IDLE_MS = 40 * 60_000;
const FRAME_PERIOD_MS = 20;
const MS_PER_SECOND = 1000;
/** Each provider's share of Twilio's largest N in the same run (issue 23). */
const TARGET_SHARE_OF_TWILIO = 0.9;
/** Barge-in ON's share of OFF's largest N, callers speaking (issue 22). */
const TARGET_ON_SHARE = 0.9;

/** The line each provider's bench phones open (what its test peer in the suite opens too). */
const BENCH_LINES: Record<ProviderName, LineFormat> = {
  twilio: { encoding: 'mulaw', sampleRate: 8000 },
  telnyx: { encoding: 'alaw', sampleRate: 8000 },
  plivo: { encoding: 'l16', sampleRate: 16000, byteOrder: 'le' },
  vonage: { encoding: 'l16', sampleRate: 16000, byteOrder: 'le' },
  exotel: { encoding: 'l16', sampleRate: 8000, byteOrder: 'le' },
};

/** Whether the phones' callers speak, and whether the bridge listens (barge-in). */
type Callers = 'silent' | 'bargeInOff' | 'bargeInOn';

interface Contender {
  key: string;
  label: string;
  provider: ProviderName;
  callers: Callers;
}

const SPEAKING_OFF: Contender = {
  key: 'twilio, callers speaking, barge-in OFF',
  label: 'Twilio, callers speaking, barge-in OFF',
  provider: 'twilio',
  callers: 'bargeInOff',
};
const SPEAKING_ON: Contender = {
  key: 'twilio, callers speaking, barge-in ON',
  label: 'Twilio, callers speaking, barge-in ON (detector thread, the default)',
  provider: 'twilio',
  callers: 'bargeInOn',
};
export const CONTENDERS: readonly Contender[] = [
  ...PROVIDERS.map((p): Contender => ({ key: p, label: p, provider: p, callers: 'silent' })),
  SPEAKING_OFF,
  SPEAKING_ON,
];

/**
 * When each of `calls` phones connects, in ms after the peers' worker starts: seeded uniform
 * random times over `spreadMs` (one call: at once), as real calls arrive. Evenly spaced openings
 * (i * spreadMs / N) put every call's 20 ms send schedule on the same phase whenever spreadMs / N
 * is a multiple of the frame (N = 50 over 1 s: every call 20 ms after the last), so each timer
 * tick sent N frames in one burst and the lateness measured that alignment, not the bridge.
 */
function arrivalTimes(calls: number, spreadMs: number): number[] {
  const random = seededRandom(ARRIVAL_SEED);
  return Array.from({ length: calls }, () => (calls > 1 ? random() * spreadMs : 0));
}

const fixture = new Uint8Array(readFileSync(new URL('../test/fixtures/telephony/greeting.ulaw', import.meta.url)));

function speech(seconds: number): Uint8Array {
  const out = new Uint8Array(Math.round(seconds * RATE));
  for (let off = 0; off < out.length; off += fixture.length) out.set(fixture.subarray(0, Math.min(fixture.length, out.length - off)), off);
  return out;
}

/** The callers' audio for the phones: the track as base64 20 ms frames, and the seed of each phone's place in it. */
interface CallerAudio {
  frames: string[];
  sounds: number;
  share: number;
}

function callerAudio(): CallerAudio {
  const clips = loadCorpus();
  const track = callerTrack(callerSounds(clips), lineFiller(clips), CALLER_TRACK_SECONDS * RATE, CALLER_SEED);
  const frameBytes = (RATE * FRAME_PERIOD_MS) / MS_PER_SECOND;
  const frames: string[] = [];
  for (let at = 0; at + frameBytes <= track.mulaw.length; at += frameBytes) {
    frames.push(Buffer.from(track.mulaw.buffer, track.mulaw.byteOffset + at, frameBytes).toString('base64'));
  }
  return { frames, sounds: track.sounds, share: track.soundSamples / track.mulaw.length };
}

/** Each phone's first frame in the caller track: seeded, the same for the same N whatever the contender. */
function callerStarts(calls: number, frames: number): number[] {
  const random = seededRandom(CALLER_SEED + calls);
  return Array.from({ length: calls }, () => Math.floor(random() * frames));
}

/** Barge-in decisions in the window (from the calls' events). */
interface Decisions {
  pauses: number;
  falseInterruptions: number;
  clears: number;
  turns: number;
}

interface StepResult {
  calls: number;
  p50: number;
  p99: number;
  max: number;
  sends: number;
  /** Phone underruns, all, and those the bridge did not cause on purpose (bench/lib/callStep.ts). */
  underruns: number;
  unexplainedUnderruns: number;
  liveThroughWindow: number;
  failedUtterances: number;
  detectorsBehind: number;
  /** Other warnings the calls raised (not `BARGE_IN_BEHIND`). */
  warnings: number;
  decisions: Decisions;
  /** The VAD backend of the calls' detectors (barge-in ON), and the notices the VAD gave. */
  backend: VadBackend | null;
  notices: string[];
  heapMiB: number;
  /** Share of wall time the bridge's event loop was busy (steady window). */
  busy: number;
  /** Length of the steady window. */
  windowMs: number;
  /** Process CPU (all threads) in the measuring window, ms per call-second of audio. */
  cpuPerCallSecond: number;
  /** The bridge's own thread (main thread) CPU in the window, ms per call-second. */
  bridgeCpuPerCallSecond: number;
  /** The peers' worker thread CPU in the window, ms per call-second. */
  peerCpuPerCallSecond: number;
  /** Share of wall time the peers' event loop was busy in the window. */
  peerBusy: number;
  /** The phones' thread's scheduling policy as set when it started (null: the worker did not say). */
  phonesPolicy: ThreadPolicyResult | null;
  /** Its `policy` field in /proc at the window's end (5: SCHED_IDLE; null: not readable). */
  phonesPolicyAtEnd: number | null;
  /** How late the phones' timers fired in the window (bench/lib/lagHistogram.mjs): whether the phones kept up. */
  phonesLag: PhonesLag;
  /** Every paced send's lateness in the window, all calls merged (a step's trials are pooled from these). */
  lateness: LatenessHistogram;
  /**
   * Where the process's threads spent the window (bench/lib/threadStats.ts): the bridge's (main)
   * thread's CPU and run-queue wait, the peers' worker and the detector thread by name, the rest
   * (V8's GC and compiler helpers, libuv's pool) together.
   */
  threads: ThreadWindow;
  /** What the host took from the VM in the window (steal, bench/lib/hostSteal.ts): decides whether the trial is void. */
  host: HostWindow;
}

/** Labels of the threads whose ids the bench learns, in {@link ThreadWindow.named}. */
const PEERS_THREAD = 'peers';
const DETECTOR_THREAD = 'detector';
/**
 * The barge-in detector thread's id and the ids of any threads it started (onnxruntime's pool):
 * the threads that appeared while the first barge-in ON step's warm-up call started the detector
 * thread and loaded its model (no other thread starts then: the peers' worker starts after the
 * warm-up, and libuv's pool is started before it, see `startThreadPool`). The detector thread lives
 * through the run (`RUN_DETECTOR_IDLE_MS`), so the ids hold for every later step.
 */
const detectorThreadIds = new Set<number>();

/**
 * Starts libuv's thread pool (its threads start together, at the first request that needs one), so
 * that it never starts inside a warm-up whose new threads are taken for the detector's.
 */
async function startThreadPool(): Promise<void> {
  await access('.');
}

/** The speech in a line's engine format: G.711 codes, or s16 at the line rate (8 kHz samples repeated for 16 kHz). */
function lineSpeech(mulaw: Uint8Array, format: LineFormat): Uint8Array | Int16Array {
  if (format.encoding === 'mulaw') return mulaw;
  const pcm = mulawDecode(mulaw);
  if (format.encoding === 'alaw') return alawEncode(pcm);
  const factor = format.sampleRate / RATE;
  const out = new Int16Array(pcm.length * factor);
  for (let i = 0; i < out.length; i++) out[i] = pcm[Math.floor(i / factor)]!;
  return out;
}

/** Pre-rendered line speech in 20 ms frames (views, no copies), no words: what the engine would hand the call. */
class MemorySpeechStream extends Readable implements SpeechStream {
  readonly playhead = { advanceTo: (): void => {} };
  readonly alignment = { timeline: (): [] => [] };
  readonly alignmentFinal = true;
  private offset = 0;
  private readonly frame: number;

  constructor(
    private readonly samples: Uint8Array | Int16Array,
    private readonly format: LineFormat,
    signal: AbortSignal,
  ) {
    super({ objectMode: true, highWaterMark: 4 });
    this.frame = (format.sampleRate * FRAME_PERIOD_MS) / MS_PER_SECOND;
    signal.addEventListener('abort', () => this.destroy(), { once: true });
  }

  override _read(): void {
    if (this.offset >= this.samples.length) {
      this.push(null);
      return;
    }
    const n = Math.min(this.frame, this.samples.length - this.offset);
    const frame: AudioFrame = {
      samples: this.samples.subarray(this.offset, this.offset + n),
      encoding: this.samples instanceof Int16Array ? 's16le' : this.format.encoding === 'alaw' ? 'alaw' : 'mulaw',
      sampleRate: this.format.sampleRate,
      channels: 1,
      startSample: this.offset,
      sampleCount: n,
    };
    this.offset += n;
    this.push(frame);
  }
}

/** What a step needs besides N and the contender. */
export interface StepSpec {
  spreadMs: number;
  window: WindowRule;
  /** The bot's speech per provider, long enough for the openings, the warm-up and the longest window. */
  speech: (provider: ProviderName) => Uint8Array | Int16Array;
  caller: CallerAudio;
  /** The phones' worker script (omitted: bench/providerPeers.worker.mjs); a probe may pair two versions of it. */
  peersWorker?: URL;
  /**
   * The phones' thread's scheduling policy (omitted: {@link PHONES_POLICY}); bench/schedWaitProbe.ts
   * pairs it with 'normal', the policy every row before 2026-11-29 was measured with.
   */
  phones?: PhonesPolicy;
}

/** `BENCH_PHONES_POLICY=normal npm run bench -- telephony.bench` measures with the phones as before 2026-11-29 ~12:00 UTC. */
const PHONES_POLICY_ENV = 'BENCH_PHONES_POLICY';
/**
 * The phones' thread runs under SCHED_IDLE (bench/lib/threadPolicy.mjs) for every contender: the
 * phones stand for peers across the network, whose CPU is not the bridge machine's. At the normal
 * policy, with barge-in ON (the detector thread holding the other CPU) the phones' thread shared
 * the pacing thread's CPU and preempted it 500–700 times a second, 85–98 ms of each second's wait
 * (OFF: 7–23 preemptions, 1–3 ms), an artefact of the harness that fell on ON only
 * (native-notes/vad.md, "The quiet check").
 */
export const PHONES_POLICY: PhonesPolicy = process.env[PHONES_POLICY_ENV] === 'normal' ? 'normal' : 'idle';
/** What the rows' notes say of the phones' thread under {@link PHONES_POLICY} 'idle'. */
const PHONES_IDLE_NOTE =
  "under SCHED_IDLE (they stand for remote peers: the row's phones' thread policy figure says what was set; " +
  'rows measured before 2026-11-29 ~12:00 UTC had them at the normal policy)';
/** 'idle': SCHED_IDLE (nice 19 where it cannot be set); 'normal': the process's policy. */
export type PhonesPolicy = 'idle' | 'normal';

/**
 * A row notes that the phones fell behind when a trial's phones' timers fired this late at p99 (a
 * frame: an acknowledgement or a caller's frame a whole frame late). Reported, not judged: their
 * underruns, if any, are judged as before (bench/lib/callStep.ts).
 */
const PHONES_BEHIND_P99_MS = FRAME_PERIOD_MS;

/** How late the phones' timers fired in the window (acknowledgements held until played, callers' frames). */
export interface PhonesLag {
  count: number;
  p99Ms: number;
  maxMs: number;
  /** [ms, timers that late or later]. */
  over: [number, number][];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * One step: `calls` phones of the contender, their connections opened at seeded random times over
 * `spreadMs` (real calls do not all start in the same millisecond; started together, every call's
 * frame is due at the same instant and each timer tick is a burst of `calls` sends). Lateness and
 * CPU count only in the steady window: from `WARMUP_MS` after the last call started (and, with
 * barge-in, its detector loaded) for the window rule's length, while every call is live.
 */
export async function step(calls: number, contender: Contender, spec: StepSpec): Promise<StepResult> {
  const { provider, callers } = contender;
  const format = BENCH_LINES[provider];
  const audio = spec.speech(provider);
  const phones = new Map<CallCore<unknown>, number>(); // call → phone index
  const heldBack = new Array<number>(calls).fill(0); // per phone: barge-in pauses and clears
  const decisions: Decisions = { pauses: 0, falseInterruptions: 0, clears: 0, turns: 0 };
  const behind = new Set<CallCore<unknown>>();
  const closedEarly = new Set<CallCore<unknown>>();
  let warmup: CallCore<unknown> | null = null;
  const notices = new Set<string>(); // the VAD's notices (a fallback from Silero says so here)
  let started = 0;
  let failedUtterances = 0;
  let warnings = 0;
  let running = true; // the calls speak again when an utterance ends, until the window closes
  let measuring = false; // the window is open: decisions count
  const bridge = await createMediaBridge({
    provider,
    source: async (_request, { signal }) => new MemorySpeechStream(audio, format, signal),
    ...(callers === 'bargeInOn'
      ? { bargeIn: { detectorThread: 'worker' as const, vad: { onNotice: (m: string) => void notices.add(m) } } }
      : {}),
    onCall(call: CallCore<unknown>, request) {
      const phone = new URL(request.url ?? '/', 'ws://bench').searchParams.get('phone');
      if (callers !== 'silent') call.inbound.resume(); // a reader of the caller's audio (a recogniser would be here)
      if (phone === 'warmup') {
        warmup = call;
        return;
      }
      const index = Number(phone);
      phones.set(call, index);
      call.on('warning', (w) => (w.code === 'BARGE_IN_BEHIND' ? behind.add(call) : warnings++));
      call.on('bargeInPause', () => {
        heldBack[index]!++;
        if (measuring) decisions.pauses++;
      });
      call.on('falseInterruption', () => void (measuring && decisions.falseInterruptions++));
      call.on('bargeIn', () => {
        heldBack[index]!++;
        if (measuring) decisions.clears++;
      });
      call.on('callerSpeechStarted', () => void (measuring && decisions.turns++));
      call.once('close', () => void (running && closedEarly.add(call)));
      const talk = (): void => {
        void call.speak('bench').then((r: UtteranceResult) => {
          if (!running) return;
          if (r.status === 'failed') failedUtterances++;
          // Cut by the caller, or at its end: the bot goes on speaking (a call that closed or
          // cancelled its queue stops here; the window counts it as not live).
          else if (r.status === 'completed' || r.status === 'interrupted') talk();
        });
      };
      call.once('start', () => {
        started++;
        talk();
      });
    },
  });
  const dbg = (m: string): void => {
    if (process.env['TEL_BENCH_DEBUG'] !== undefined) process.stderr.write(`  [${contender.key} ${calls}] ${m}\n`);
  };
  const peers: { worker: Worker | null } = { worker: null };
  // Bounded: whatever goes wrong, the step ends by this deadline and frees everything.
  const deadlineMs = spec.spreadMs + WARMUP_MS + spec.window.capMs + 60_000;
  let guard: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    guard = setTimeout(() => reject(new Error(`${calls} calls: step did not finish within ${deadlineMs / 1000} s`)), deadlineMs);
  });
  try {
    return await Promise.race([deadline, measure()]);
  } finally {
    running = false;
    clearTimeout(guard);
    await peers.worker?.terminate();
    await bridge.close();
    dbg('freed');
  }

  async function measure(): Promise<StepResult> {
    await startThreadPool();
    const beforeWarmUp = callers === 'bargeInOn' && detectorThreadIds.size === 0 ? sampleThreads() : null;
    if (callers === 'bargeInOn') {
      await warmUpDetector(
        bridge.url!,
        () => warmup,
        spec.caller,
        () => running,
      );
      dbg('detector thread warm');
    }
    if (beforeWarmUp !== null) for (const tid of sampleThreads().keys()) if (!beforeWarmUp.has(tid)) detectorThreadIds.add(tid);
    const w = new Worker(spec.peersWorker ?? new URL('./providerPeers.worker.mjs', import.meta.url), {
      workerData: {
        url: bridge.url,
        count: calls,
        provider,
        phones: spec.phones ?? PHONES_POLICY,
        openAtMs: arrivalTimes(calls, spec.spreadMs),
        ...(callers === 'silent'
          ? {}
          : { caller: { frames: spec.caller.frames, startFrame: callerStarts(calls, spec.caller.frames.length) } }),
      },
    });
    peers.worker = w;
    const crashed = new Promise<never>((_, reject) => w.once('error', reject)); // the phones' worker crashed
    crashed.catch(() => undefined);
    const messages: PeerMessage[] = [];
    const waiters: (() => void)[] = [];
    w.on('message', (m: PeerMessage) => {
      messages.push(m);
      for (const f of waiters.splice(0)) f();
    });
    const next = async (type: PeerMessage['type']): Promise<PeerMessage> => {
      for (;;) {
        const found = messages.find((m) => m.type === type);
        if (found !== undefined) return found;
        await Promise.race([crashed, new Promise<void>((resolve) => waiters.push(resolve))]);
      }
    };
    const ready = await next('ready');
    if ((ready.failed ?? 0) > 0) throw new Error(`${ready.failed} of ${calls} phones could not connect`);
    const named = new Map<number, string>([...detectorThreadIds].map((tid) => [tid, DETECTOR_THREAD]));
    if (ready.tid !== undefined && Number.isFinite(ready.tid)) named.set(ready.tid, PEERS_THREAD);
    dbg('peers ready');
    const live = (): CallCore<unknown>[] => [...phones.keys()];
    // Bounded by the deadline (after it, `running` is false and the loop ends): every call
    // started, and with barge-in every detector loaded.
    while (running && (started < calls || (callers === 'bargeInOn' && live().some((c) => c.bargeInBackend === null)))) {
      await sleep(POLL_MS);
    }
    dbg('all started');
    await sleep(WARMUP_MS);
    // The steady window opens: forget the sends of the ramp-up.
    for (const c of live()) c.stats.lateness.reset();
    const liveAtOpen = live().filter((c) => !closedEarly.has(c));
    measuring = true;
    w.postMessage('window');
    const peerStart = await next('window');
    const elu0 = performance.eventLoopUtilization();
    const cpu0 = processCpuMs();
    const bridgeCpu0 = threadCpuMs();
    const threads0 = sampleThreads();
    const host0 = sampleHostCpu();
    const wall0 = performance.now();
    const sent = (): number => live().reduce((a, c) => a + c.stats.lateness.count, 0);
    await sleep(spec.window.baseMs);
    while (!windowClosed(performance.now() - wall0, sent(), spec.window)) await sleep(WINDOW_POLL_MS);
    const wallMs = performance.now() - wall0;
    const threads = threadWindow(threads0, sampleThreads(), wallMs, named);
    const host = hostWindow(host0, sampleHostCpu(), wallMs);
    const busy = performance.eventLoopUtilization(elu0).utilization;
    const cpu = processCpuMs() - cpu0;
    const bridgeCpu = threadCpuMs() - bridgeCpu0;
    measuring = false;
    const merged = new LatenessHistogram();
    for (const c of live()) merged.merge(c.stats.lateness);
    const liveThroughWindow = liveAtOpen.filter((c) => !closedEarly.has(c)).length;
    const heapMiB = process.memoryUsage().heapUsed / 2 ** 20;
    const backends = new Set(live().map((c) => c.bargeInBackend));
    const backend = backends.size === 1 ? live()[0]!.bargeInBackend : null;
    if (backends.size > 1) notices.add(`calls' VAD backends differ: ${[...backends].join(', ')}`);
    w.postMessage('windowEnd');
    const peerEnd = await next('windowEnd');
    dbg(`window ${Math.round(wallMs)} ms, ${merged.count} sends`);
    running = false;
    w.postMessage('stop');
    const peerStats = await next('stats');
    const callSeconds = (calls * Math.max(wallMs, 1)) / MS_PER_SECOND;
    const underrunsByPhone = peerStats.underrunsByPhone ?? [];
    return {
      calls,
      p50: merged.quantile(0.5),
      p99: merged.quantile(0.99),
      max: merged.maxMs,
      sends: merged.count,
      underruns: peerStats.underruns ?? 0,
      unexplainedUnderruns: unexplainedUnderruns(underrunsByPhone, heldBack),
      liveThroughWindow,
      failedUtterances,
      detectorsBehind: behind.size,
      warnings,
      decisions,
      backend,
      notices: [...notices],
      heapMiB,
      busy,
      windowMs: wallMs,
      cpuPerCallSecond: cpu / callSeconds,
      bridgeCpuPerCallSecond: bridgeCpu / callSeconds,
      peerCpuPerCallSecond: ((peerEnd.cpuMs ?? 0) - (peerStart.cpuMs ?? 0)) / callSeconds,
      peerBusy: peerEnd.busy ?? 0,
      phonesPolicy: ready.policy ?? null,
      phonesPolicyAtEnd: peerEnd.policyAtEnd ?? null,
      phonesLag: peerEnd.lag ?? { count: 0, p99Ms: NaN, maxMs: NaN, over: [] },
      lateness: merged,
      threads,
      host,
    };
  }
}

/** The warm-up call's caller audio: 1 s of the track, sent at once so the detector's VAD runs before the window. */
const WARMUP_CALLER_FRAMES = 50;

/**
 * Before the phones open: one Twilio call on the step's bridge that starts, sends a second of
 * caller audio and waits until its detector has loaded and answered, so the detector thread's
 * start and its model load (~100–200 ms of CPU) happen before the window, as on a bridge that has
 * been taking calls. The thread stays up between calls (its idle time, 30 s), so the step's calls
 * join it warm.
 */
async function warmUpDetector(
  url: string,
  call: () => CallCore<unknown> | null,
  caller: CallerAudio,
  running: () => boolean,
): Promise<void> {
  const ws = new WebSocket(`${url}?phone=warmup`);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const sid = 'MZwarmup';
  ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
  ws.send(
    JSON.stringify({
      event: 'start',
      sequenceNumber: '1',
      streamSid: sid,
      start: {
        streamSid: sid,
        callSid: 'CAwarmup',
        accountSid: 'AC',
        tracks: ['inbound'],
        customParameters: {},
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    }),
  );
  for (let k = 0; k < WARMUP_CALLER_FRAMES; k++) {
    const media = { track: 'inbound', chunk: String(k + 1), timestamp: String(k * FRAME_PERIOD_MS), payload: caller.frames[k]! };
    ws.send(JSON.stringify({ event: 'media', sequenceNumber: String(k + 2), streamSid: sid, media }));
  }
  while (call()?.bargeInBackend == null) {
    if (!running()) throw new Error('the warm-up call did not load its detector before the deadline');
    await sleep(POLL_MS); // bounded by the step's deadline
  }
  await call()!.bargeInSettled();
  const closed = new Promise<void>((resolve) => call()!.once('close', () => resolve()));
  ws.close();
  await closed;
}

/** What the phones' worker reports. */
interface PeerMessage {
  type: 'ready' | 'window' | 'windowEnd' | 'stats';
  opened?: number;
  failed?: number;
  mediaBytes?: number;
  underruns?: number;
  /** Per phone index. */
  underrunsByPhone?: number[];
  /** The worker thread's CPU ms so far. */
  cpuMs?: number;
  /** The worker's event-loop use since 'window'. */
  busy?: number;
  /** The worker's own thread id ('ready'; NaN where Linux's /proc is missing). */
  tid?: number;
  /** 'ready': what its scheduling policy was set to. */
  policy?: ThreadPolicyResult;
  /** 'windowEnd': its policy field read back then. */
  policyAtEnd?: number | null;
  /** 'windowEnd': how late its timers fired over the window. */
  lag?: PhonesLag;
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

/** What every step of a run shares: openings, window, the bot's speech per line, the callers' audio (also for a profile of one step). */
export function stepSpec(opts: BenchOptions): StepSpec {
  const spreadMs = opts.quick ? QUICK_SPREAD_MS : FULL_SPREAD_MS;
  const window = opts.quick ? QUICK_WINDOW : FULL_WINDOW;
  const utteranceSeconds = (spreadMs + WARMUP_MS + window.capMs + UTTERANCE_MARGIN_MS) / MS_PER_SECOND;
  const rendered = new Map<ProviderName, Uint8Array | Int16Array>();
  return {
    spreadMs,
    window,
    speech: (p) => rendered.get(p) ?? rendered.set(p, lineSpeech(speech(utteranceSeconds), BENCH_LINES[p])).get(p)!,
    caller: callerAudio(),
  };
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  return runWithRule(opts, {});
}

/**
 * The module with parts of its rule replaced (a shorter ladder, fewer trials): for a probe that
 * must show the module runs end to end in a few minutes on a shared machine. `npm run bench` runs
 * {@link run}.
 */
export async function runWithRule(opts: BenchOptions, override: Partial<RunRule>): Promise<BenchResult[]> {
  const spec = stepSpec(opts);
  const rule: RunRule = {
    ladder: opts.quick ? QUICK_LADDER : FULL_LADDER,
    trials: opts.quick ? QUICK_TRIALS : TRIALS_PER_STEP,
    bareSeconds: opts.quick ? QUICK_BARE_SECONDS : FULL_BARE_SECONDS,
    voidRule: VOID_RULE,
    ...override,
  };
  configureDetectorThreads({ idleMs: RUN_DETECTOR_IDLE_MS });
  try {
    return await search(opts, spec, rule);
  } finally {
    configureDetectorThreads({ idleMs: DEFAULT_DETECTOR_THREAD_IDLE_MS });
  }
}

/** The search's settings for a run (full or quick). */
export interface RunRule {
  ladder: LadderRule;
  /** Trials per (contender, N), pooled (bench/lib/callStep.ts `poolTrials`). */
  trials: number;
  bareSeconds: number;
  /** When a trial is void and run again (host steal over its window; bench/lib/callStep.ts `settleTrial`). */
  voidRule: VoidRule;
}

/** A trial that could not run to its end (phones that could not connect, the step's deadline). */
interface TrialError {
  error: string;
}

/** One (contender, N) of a round: its trials in the order run, pooled. */
interface JudgedStep {
  contender: Contender;
  calls: number;
  trials: (StepResult | TrialError)[];
  pooled: PooledStep<LatenessHistogram>;
  /** The trials that ran to their end, combined (null: none did). */
  combined: StepResult | null;
  bare: number;
  /** Per trial slot, in the order run: runs voided and run again before the kept one. */
  voids: number[];
  /** Trial slots whose every run was void (the last run counts, as it came out). */
  disturbed: number;
}

/** What a round runs: a contender at N, recorded in `search` (null: an anchor, reported only). */
interface Plan {
  contender: Contender;
  calls: number;
  search: CallSearch | null;
  note?: string;
}

const isResult = (t: StepResult | TrialError): t is StepResult => !('error' in t);

/** The rounds, then the summary rows. */
async function search(opts: BenchOptions, spec: StepSpec, rule: RunRule): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  const loadBefore = loadavg()[0]!;
  const searches = new Map(CONTENDERS.map((c) => [c.key, new CallSearch(rule.ladder)]));
  const judged = new Map(CONTENDERS.map((c) => [c.key, new Map<number, JudgedStep>()])); // the search's own steps, by N
  const bareP99: number[] = [];
  const bareSteal: number[] = []; // host steal share during each round's bare timer
  let voidsInRun = 0;
  let disturbedInRun = 0;
  const backends = new Set<string>(); // the VAD backend of every barge-in ON trial
  const startedAt = performance.now();
  let cut = false;
  const overBudget = (): boolean => !opts.quick && performance.now() - startedAt > FULL_BUDGET_MS;

  /**
   * One round: a bare timer, then trial 1 of every planned step, the order rotating, then trial 2
   * in the next rotation, and so on; then each step is judged on its trials pooled and recorded in
   * its search. A round cut by the budget leaves its steps unjudged (reported, not recorded).
   */
  const runRound = async (plans: Plan[], roundNo: number): Promise<void> => {
    const host0 = sampleHostCpu();
    const bare0 = performance.now();
    const bare = (await bareTimerLateness(rule.bareSeconds)).quantile(0.99);
    const bareHost = hostWindow(host0, sampleHostCpu(), performance.now() - bare0);
    bareP99.push(bare);
    bareSteal.push(bareHost.stealShare);
    process.stderr.write(
      `telephony bench: round ${roundNo + 1}, bare timer p99 ${bare.toFixed(1)} ms, host steal ${percent(bareHost.stealShare)}\n`,
    );
    const trials = plans.map((): (StepResult | TrialError)[] => []);
    const voids = plans.map((): number[] => []);
    const disturbed = plans.map(() => 0);
    const indices = plans.map((_, i) => i);
    for (let t = 0; t < rule.trials && !cut; t++) {
      for (const i of trialOrder(indices, roundNo, t)) {
        if (overBudget()) {
          cut = true;
          break;
        }
        const p = plans[i]!;
        const label = `round ${roundNo + 1}, trial ${t + 1}/${rule.trials}, ${p.contender.key}, ${p.calls} calls`;
        process.stderr.write(
          `telephony bench: ${label} (load ${loadavg()[0]!.toFixed(1)}, bare p99 ${bare.toFixed(1)} ms)` +
            `${p.note === undefined ? '' : ` [${p.note}]`} …\n`,
        );
        // A run whose window lost more than the rule's share to the host is void and run again
        // (at most twice); which run counts depends only on the steal, never on its lateness.
        const settled = await settleTrial(
          async (): Promise<StepResult | TrialError> => {
            try {
              const r = await step(p.calls, p.contender, spec);
              process.stderr.write(`  ${trialLine(r)}\n`);
              return r;
            } catch (err) {
              return { error: (err as Error).message };
            }
          },
          (r) => (isResult(r) ? r.host.stealShare : NaN),
          rule.voidRule,
          (_r, share) =>
            process.stderr.write(`  void: host steal ${percent(share)} > ${percent(rule.voidRule.stealShare)} of the window; run again\n`),
          () => !overBudget(), // no rerun starts past the run's budget either
        );
        trials[i]!.push(settled.trial);
        voids[i]!.push(settled.voids);
        voidsInRun += settled.voids;
        if (settled.disturbed) {
          disturbed[i]!++;
          disturbedInRun++;
          process.stderr.write(`  every run was void: the last counts, flagged\n`);
        }
      }
    }
    plans.forEach((p, i) => {
      const run = trials[i]!;
      if (run.length < rule.trials) {
        out.push(unjudgedRow(p, run, rule.trials, bare, voids[i]!));
        return;
      }
      const pooled = poolTrials(
        run.map((r): TrialOutcome<LatenessHistogram> => (isResult(r) ? { lateness: r.lateness, outcome: trialOutcome(r) } : r)),
        () => new LatenessHistogram(),
      );
      p.search?.record(p.calls, pooled.met);
      const done = run.filter(isResult);
      if (p.contender.callers === 'bargeInOn') for (const r of done) backends.add(r.backend ?? 'not loaded / mixed');
      const s: JudgedStep = {
        contender: p.contender,
        calls: p.calls,
        trials: run,
        pooled,
        combined: combine(done, pooled),
        bare,
        voids: voids[i]!,
        disturbed: disturbed[i]!,
      };
      if (p.search !== null) judged.get(p.contender.key)!.set(p.calls, s);
      out.push(stepRow(s, p.note));
    });
  };

  // Rounds: each contender still searching runs its next N, K trials interleaved with the other
  // contenders' (bench/lib/callSearch.ts `trialOrder`). Bounded: each search ends within its
  // ladder's step bound, and no trial starts past the budget.
  let roundIndex = 0;
  for (; ; roundIndex++) {
    const plans = CONTENDERS.flatMap((c): Plan[] => {
      const s = searches.get(c.key)!;
      const calls = s.next();
      return calls === null ? [] : [{ contender: c, calls, search: s }];
    });
    if (plans.length === 0) break;
    if (overBudget()) {
      cut = true;
      break;
    }
    await runRound(plans, roundIndex);
    if (cut) break;
  }
  // The target round (full run): where a contender's search left the target N open (⌈90 % of its
  // reference's largest N⌉ lies above its largest pass and below its first fail), K trials at
  // exactly that N decide it, recorded in its search like any step; the reference runs the same
  // N in the same round, interleaved trial by trial, as an anchor reported beside it (its own
  // search is not changed).
  const checked = new Map<string, string>(); // contender → what its target check was
  if (!opts.quick && !cut) {
    const checks = targetChecks(searches);
    if (checks.length > 0 && !overBudget()) {
      const plans: Plan[] = [];
      const anchored = new Set<string>(); // reference@N already planned as an anchor
      for (const { contender, reference, share, calls } of checks) {
        const why = `target check: ${calls} = ⌈${share * 100} % of ${reference.label}'s ${searches.get(reference.key)!.largest}⌉`;
        if (!anchored.has(`${reference.key}@${calls}`)) {
          anchored.add(`${reference.key}@${calls}`);
          plans.push({ contender: reference, calls, search: null, note: `anchor of the ${why} (not part of its own search)` });
        }
        plans.push({ contender, calls, search: searches.get(contender.key)!, note: why });
        checked.set(contender.key, `the last step (${calls}) was the ${why}`);
      }
      await runRound(plans, roundIndex);
      // A check the budget cut was not judged: its search does not hold it.
      for (const { contender, calls } of checks) if (searches.get(contender.key)!.tried.at(-1) !== calls) checked.delete(contender.key);
    }
  }
  const minutes = (performance.now() - startedAt) / 60_000;
  const bareOver = bareP99.filter((b) => b > TARGET_P99_MS).length;
  out.unshift({
    scenario: `bare setTimeout every 20 ms (absolute schedule), ${rule.bareSeconds} s at the start of each round: the machine's floor`,
    figures: {
      rounds: bareP99.length,
      'p99 lateness ms, per round': bareP99.map((x) => round(x, 2)).join(' / '),
      'p99 lateness ms, median of rounds': round(median(bareP99), 2),
      'p99 lateness ms, worst round': round(bareP99.length === 0 ? NaN : Math.max(...bareP99), 2),
      'rounds over 5 ms': bareOver,
      'host steal % during the bare timer, per round': bareSteal.map((x) => round(x * 100, 2)).join(' / '),
      'trial runs voided for host steal and run again': voidsInRun,
      'trials kept with every run void': disturbedInRun,
    },
    notes:
      `a trial run is void when the host took more than ${rule.voidRule.stealShare * 100} % of the VM's CPU time (steal, /proc/stat) ` +
      `over its window; it is run again at most ${rule.voidRule.maxReruns} times, the first run within the limit counts ` +
      `(when every run was void, the last), whatever its lateness`,
    command: COMMAND,
  });
  const largest = (c: Contender): number => searches.get(c.key)!.largest;
  const twilio = largest(CONTENDERS[0]!);
  const { ladder } = rule;
  const ladderText =
    `ladder ${ladder.coarse.join(', ')}` +
    `${ladder.below.length === 0 ? '' : ` (${ladder.below.join(' then ')} only while all below ${ladder.coarse[0]} fail)`}, ` +
    `then ≤ ${ladder.maxFine} geometric bisections to within ${Math.round(SEARCH_RESOLUTION * 100)} %; ` +
    `${trialsText(rule.trials)} a step, pooled`;
  const common =
    `calls opened at seeded random times over ${spec.spreadMs} ms; window per trial ≥ ${spec.window.baseMs / 1000} s and ≥ ` +
    `${spec.window.minSends} sends (at most ${spec.window.capMs / 1000} s); peers in a worker thread on the same machine, ` +
    `${(spec.phones ?? PHONES_POLICY) === 'idle' ? PHONES_IDLE_NOTE : 'at the normal policy'}; ` +
    `bot speech pre-rendered from memory; search ${minutes.toFixed(1)} min` +
    `${cut ? ' (cut by the run budget: searches may be unfinished)' : ''}; ` +
    `1-min load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after` +
    (bareOver > 0 ? `; the bare timer itself missed ${TARGET_P99_MS} ms in ${bareOver} of ${bareP99.length} rounds` : '') +
    `; ${voidsInRun} trial run(s) voided for host steal over ${rule.voidRule.stealShare * 100} % and run again` +
    (disturbedInRun > 0 ? `, ${disturbedInRun} trial(s) kept with every run void` : '');
  for (const c of CONTENDERS) {
    const search = searches.get(c.key)!;
    const n = search.largest;
    const steps = judged.get(c.key)!;
    const at = steps.get(n);
    const fail = search.failed === null ? undefined : steps.get(search.failed);
    const isProvider = c.callers === 'silent';
    const share = twilio > 0 ? n / twilio : 0;
    out.push({
      scenario:
        `telephony bridge / ${c.label}: largest N with p99 lateness ≤ ${TARGET_P99_MS} ms ` + `(${trialsText(rule.trials)} a step, pooled)`,
      figures: {
        calls: n,
        'first failing N': search.failed ?? 'none',
        'Twilio calls (same run)': twilio,
        'share of Twilio %': round(share * 100, 2),
        ...(at === undefined ? {} : trialFigures(at, ' at N')),
        ...(fail === undefined ? {} : trialFigures(fail, ' at the first failing N')),
        ...(at?.combined == null ? {} : cpuFigures(at.combined, ' at N')),
        ...(at?.combined == null ? {} : threadFigures(at.combined, ' at N')),
        ...(at === undefined ? {} : phonesFigures(at, ' at N')),
        ...(at?.combined == null || c.callers === 'silent' ? {} : decisionFigures(at.combined, ' at N')),
      },
      anchor: 'Twilio in the same run',
      ratio: round(share, 2),
      ...(isProvider
        ? {
            target: c.provider === 'twilio' ? '≥ 1 call' : `≥ ${TARGET_SHARE_OF_TWILIO * 100} % of Twilio's N`,
            met: c.provider === 'twilio' ? n > 0 : n > 0 && share >= TARGET_SHARE_OF_TWILIO,
          }
        : {}),
      command: COMMAND,
      notes:
        `${describe(c)}; tried ${triedText(search, steps)} (in rounds with the other contenders, trials interleaved, rotating order` +
        `${checked.has(c.key) ? `; ${checked.get(c.key)!}` : ''}); ${ladderText}; ${common}`,
    });
  }
  out.push(onOffRow(searches, judged, `VAD backend in the ON trials: ${[...backends].join(', ') || 'none ran'}; ${ladderText}; ${common}`));
  return out;
}

/** The search's steps in order: N, passed or failed, and the trials that passed on their own ("50 ✓ 3/3, 140 ✗ 1/3"). */
function triedText(search: CallSearch, steps: Map<number, JudgedStep>): string {
  return search.tried
    .map((n, i) => {
      const s = steps.get(n);
      return `${n} ${search.verdicts[i] ? '✓' : '✗'}${s === undefined ? '' : ` ${s.pooled.trialsPassed}/${s.pooled.trials}`}`;
    })
    .join(', ');
}

const trialsText = (n: number): string => `${n} trial${n === 1 ? '' : 's'}`;

/** What bench/lib/callStep.ts `judgeStep` reads of one trial. */
function trialOutcome(r: StepResult): StepOutcome {
  return {
    p99: r.p99,
    sends: r.sends,
    calls: r.calls,
    liveThroughWindow: r.liveThroughWindow,
    failedUtterances: r.failedUtterances,
    unexplainedUnderruns: r.unexplainedUnderruns,
    detectorsBehind: r.detectorsBehind,
  };
}

/**
 * A step's trials as one: counts summed, lateness from the pooled histogram, and every rate (CPU
 * per call-second, busy share, per-thread ms per second) the mean weighted by each trial's window,
 * which is the rate over all the windows together (every trial has the same N).
 */
function combine(rs: readonly StepResult[], pooled: PooledStep<LatenessHistogram>): StepResult | null {
  if (rs.length === 0) return null;
  const total = rs.reduce((a, r) => a + r.windowMs, 0);
  const mean = (f: (r: StepResult) => number): number => rs.reduce((a, r) => a + f(r) * r.windowMs, 0) / total;
  const sum = (f: (r: StepResult) => number): number => rs.reduce((a, r) => a + f(r), 0);
  const names = new Set(rs.flatMap((r) => Object.keys(r.threads.named)));
  const backends = new Set(rs.map((r) => r.backend));
  return {
    calls: rs[0]!.calls,
    p50: pooled.lateness.quantile(0.5),
    p99: pooled.lateness.quantile(0.99),
    max: pooled.lateness.maxMs,
    sends: pooled.lateness.count,
    underruns: sum((r) => r.underruns),
    unexplainedUnderruns: sum((r) => r.unexplainedUnderruns),
    liveThroughWindow: sum((r) => r.liveThroughWindow),
    failedUtterances: sum((r) => r.failedUtterances),
    detectorsBehind: sum((r) => r.detectorsBehind),
    warnings: sum((r) => r.warnings),
    decisions: {
      pauses: sum((r) => r.decisions.pauses),
      falseInterruptions: sum((r) => r.decisions.falseInterruptions),
      clears: sum((r) => r.decisions.clears),
      turns: sum((r) => r.decisions.turns),
    },
    backend: backends.size === 1 ? rs[0]!.backend : null,
    notices: [...new Set(rs.flatMap((r) => r.notices))],
    heapMiB: Math.max(...rs.map((r) => r.heapMiB)),
    busy: mean((r) => r.busy),
    windowMs: total,
    cpuPerCallSecond: mean((r) => r.cpuPerCallSecond),
    bridgeCpuPerCallSecond: mean((r) => r.bridgeCpuPerCallSecond),
    peerCpuPerCallSecond: mean((r) => r.peerCpuPerCallSecond),
    peerBusy: mean((r) => r.peerBusy),
    phonesPolicy: rs[0]!.phonesPolicy,
    phonesPolicyAtEnd: rs.every((r) => r.phonesPolicyAtEnd === rs[0]!.phonesPolicyAtEnd) ? rs[0]!.phonesPolicyAtEnd : NaN,
    phonesLag: {
      count: sum((r) => r.phonesLag.count),
      p99Ms: Math.max(...rs.map((r) => r.phonesLag.p99Ms)),
      maxMs: Math.max(...rs.map((r) => r.phonesLag.maxMs)),
      over: (rs[0]!.phonesLag.over ?? []).map(([ms]): [number, number] => [
        ms,
        sum((r) => r.phonesLag.over.find(([m]) => m === ms)?.[1] ?? 0),
      ]),
    },
    lateness: pooled.lateness,
    threads: {
      mainRunMsPerS: mean((r) => r.threads.mainRunMsPerS),
      mainWaitMsPerS: mean((r) => r.threads.mainWaitMsPerS),
      mainPreemptionsPerS: mean((r) => r.threads.mainPreemptionsPerS),
      named: Object.fromEntries([...names].map((n) => [n, mean((r) => r.threads.named[n] ?? 0)])),
      namedWait: Object.fromEntries([...names].map((n) => [n, mean((r) => r.threads.namedWait[n] ?? 0)])),
      otherRunMsPerS: mean((r) => r.threads.otherRunMsPerS),
    },
    host: { stealShare: mean((r) => r.host.stealShare), stealMsPerS: mean((r) => r.host.stealMsPerS) },
  };
}

/**
 * The targets a finished search cannot decide (bench/lib/callSearch.ts `openTargets`): each
 * provider against Twilio, barge-in ON against OFF.
 */
function targetChecks(searches: Map<string, CallSearch>): (TargetPair<Contender> & { calls: number })[] {
  const twilio = CONTENDERS[0]!;
  const pairs: TargetPair<Contender>[] = [
    ...CONTENDERS.filter((c) => c.callers === 'silent' && c !== twilio).map((c) => ({
      contender: c,
      reference: twilio,
      share: TARGET_SHARE_OF_TWILIO,
    })),
    { contender: SPEAKING_ON, reference: SPEAKING_OFF, share: TARGET_ON_SHARE },
  ];
  return openTargets(pairs, (c) => searches.get(c.key)!);
}

/** Barge-in ON against OFF, callers speaking: the largest N of each and their CPU and decisions. */
function onOffRow(searches: Map<string, CallSearch>, judged: Map<string, Map<number, JudgedStep>>, common: string): BenchResult {
  const on = searches.get(SPEAKING_ON.key)!.largest;
  const off = searches.get(SPEAKING_OFF.key)!.largest;
  const share = off > 0 ? on / off : 0;
  // CPU paired at the largest N both passed (the same calls, the same caller audio, the same rounds).
  const passed = (c: Contender): Map<number, StepResult> =>
    new Map([...judged.get(c.key)!].flatMap(([n, s]) => (s.pooled.met && s.combined !== null ? [[n, s.combined] as const] : [])));
  const onSteps = passed(SPEAKING_ON);
  const offSteps = passed(SPEAKING_OFF);
  const both = [...onSteps.keys()].filter((n) => offSteps.has(n));
  const n = both.length > 0 ? Math.max(...both) : undefined;
  const onAt = n === undefined ? undefined : onSteps.get(n)!;
  const offAt = n === undefined ? undefined : offSteps.get(n)!;
  const pair = (f: (r: StepResult) => number, digits = 2): string => `${round(f(offAt!), digits)} / ${round(f(onAt!), digits)}`;
  return {
    scenario: `telephony bridge / Twilio, callers speaking: barge-in ON (detector thread) vs OFF, largest N with p99 ≤ ${TARGET_P99_MS} ms`,
    figures: {
      'calls ON': on,
      'calls OFF': off,
      'ON / OFF %': round(share * 100, 2),
      ...(onAt === undefined || offAt === undefined
        ? {}
        : {
            'N both passed': n!,
            'process CPU ms per call-second at that N, OFF / ON': pair((r) => r.cpuPerCallSecond),
            "process CPU without the phones' thread ms per call-second, OFF / ON": pair(bridgeSideCpu),
            "phones' thread CPU ms per call-second, OFF / ON": pair((r) => r.peerCpuPerCallSecond),
            "phones' timers late p99 ms (worst trial), OFF / ON": pair((r) => r.phonesLag.p99Ms),
            'bridge thread CPU ms per call-second, OFF / ON': pair((r) => r.bridgeCpuPerCallSecond),
            'other threads (detector, GC) CPU ms per call-second, OFF / ON': pair(otherCpu),
            'bridge thread run-queue wait ms/s, OFF / ON': pair((r) => r.threads.mainWaitMsPerS, 1),
            'detector thread(s) CPU ms/s, OFF / ON': pair((r) => r.threads.named[DETECTOR_THREAD] ?? NaN, 1),
            'V8 helper and other threads CPU ms/s, OFF / ON': pair((r) => r.threads.otherRunMsPerS, 1),
            'bridge loop busy %, OFF / ON': pair((r) => r.busy * 100),
            ...decisionFigures(onAt, ' (ON)'),
          }),
    },
    anchor: 'barge-in OFF in the same run',
    ratio: round(share, 2),
    target: `ON ≥ ${TARGET_ON_SHARE * 100} % of OFF`,
    met: off > 0 && share >= TARGET_ON_SHARE,
    command: COMMAND,
    notes:
      `ON: bargeIn with its defaults (detector thread, interruptible; the bot speaks again at once when cut); ` +
      `OFF: the same caller audio read and dropped; a step with any call's detector behind (BARGE_IN_BEHIND) fails; ${common}`,
  };
}

/** Process CPU per call-second less the phones' thread's: what the bridge machine would spend (the phones are remote). */
function bridgeSideCpu(r: StepResult): number {
  return r.cpuPerCallSecond - r.peerCpuPerCallSecond;
}

function otherCpu(r: StepResult): number {
  return r.cpuPerCallSecond - r.bridgeCpuPerCallSecond - r.peerCpuPerCallSecond;
}

function cpuFigures(r: StepResult, suffix: string): Record<string, number> {
  return {
    [`process CPU ms per call-second${suffix}`]: round(r.cpuPerCallSecond, 2),
    [`process CPU without the phones' thread ms per call-second${suffix}`]: round(bridgeSideCpu(r), 2),
    [`bridge thread CPU ms per call-second${suffix}`]: round(r.bridgeCpuPerCallSecond, 2),
    [`peer thread CPU ms per call-second${suffix}`]: round(r.peerCpuPerCallSecond, 2),
    [`other threads (detector, GC) CPU ms per call-second${suffix}`]: round(otherCpu(r), 2),
  };
}

/**
 * Per-thread figures of the window, ms per wall second (bench/lib/threadStats.ts): the bridge's
 * thread run-queue wait (ready to run, both cores held by other threads), its CPU and preemptions;
 * the peers' worker; the detector thread (once its id is known: from the first barge-in ON step);
 * every other thread (V8's GC and compiler helpers, libuv's pool).
 */
function threadFigures(r: StepResult, suffix: string): Record<string, number> {
  const t = r.threads;
  return {
    [`bridge thread run-queue wait ms/s${suffix}`]: round(t.mainWaitMsPerS, 2),
    [`bridge thread CPU ms/s${suffix}`]: round(t.mainRunMsPerS, 2),
    [`bridge thread preemptions /s${suffix}`]: round(t.mainPreemptionsPerS, 1),
    [`peers thread CPU ms/s${suffix}`]: round(t.named[PEERS_THREAD] ?? NaN, 2),
    [`peers thread run-queue wait ms/s${suffix}`]: round(t.namedWait[PEERS_THREAD] ?? NaN, 2),
    ...(t.named[DETECTOR_THREAD] === undefined ? {} : { [`detector thread(s) CPU ms/s${suffix}`]: round(t.named[DETECTOR_THREAD], 2) }),
    [`V8 helper and other threads CPU ms/s${suffix}`]: round(t.otherRunMsPerS, 2),
  };
}

/**
 * The phones' thread: its policy (set when it started, and its /proc `policy` field read back at
 * each trial's window end: 5 is SCHED_IDLE), and whether it kept up: its timers' lateness (an
 * acknowledgement held until its audio played, a caller's frame), per trial and counted over all.
 */
function phonesFigures(s: JudgedStep, suffix: string): Record<string, string | number> {
  const r = s.combined;
  if (r === null) return {};
  const over = r.phonesLag.over.map(([ms, n]) => `${n} ≥ ${ms} ms`).join(', ');
  return {
    [`phones' thread policy${suffix}`]: r.phonesPolicy === null ? 'not reported' : describePolicy(r.phonesPolicy),
    [`phones' thread policy field at window end, per trial (${SCHED_IDLE} = SCHED_IDLE)${suffix}`]: perTrial(
      s.trials,
      (t) => t.phonesPolicyAtEnd ?? NaN,
    ),
    [`phones' timers late p99 ms, per trial${suffix}`]: perTrial(s.trials, (t) => t.phonesLag.p99Ms),
    [`phones' timers late, all trials${suffix}`]: `${over || 'none'} of ${r.phonesLag.count} (max ${round(r.phonesLag.maxMs, 1)} ms)`,
  };
}

/** The pooled verdict's figures: pooled p99, trials that passed on their own, each trial's p99. */
function trialFigures(s: JudgedStep, suffix: string): Record<string, string | number> {
  return {
    [`p99 lateness ms, pooled${suffix}`]: round(s.pooled.outcome.p99, 2),
    [`trials passed${suffix}`]: `${s.pooled.trialsPassed}/${s.pooled.trials}`,
    [`p99 lateness ms per trial${suffix}`]: s.pooled.trialP99.map((x) => (Number.isFinite(x) ? round(x, 2) : 'error')).join(' / '),
    [`host steal % per trial${suffix}`]: perTrial(s.trials, (r) => r.host.stealShare * 100),
    [`bridge thread run-queue wait ms/s per trial${suffix}`]: perTrial(s.trials, (r) => r.threads.mainWaitMsPerS),
    [`trial runs voided for host steal${suffix}`]: s.voids.reduce((a, v) => a + v, 0),
    ...(s.disturbed === 0 ? {} : { [`trials kept with every run void${suffix}`]: s.disturbed }),
  };
}

/** One figure of each trial that ran to its end ('error' for one that did not), in the order run. */
function perTrial(trials: readonly (StepResult | TrialError)[], f: (r: StepResult) => number): string {
  return trials.map((t) => (isResult(t) ? round(f(t), 2) : 'error')).join(' / ');
}

const percent = (share: number): string => (Number.isFinite(share) ? `${(share * 100).toFixed(2)} %` : 'n/a');

/** A trial's line on stderr: its verdict figures and what the machine did meanwhile. */
function trialLine(r: StepResult): string {
  return (
    `p99 ${r.p99.toFixed(2)} ms over ${r.sends} sends; host steal ${percent(r.host.stealShare)} ` +
    `(${r.host.stealMsPerS.toFixed(1)} ms/s); bridge thread run-queue wait ${r.threads.mainWaitMsPerS.toFixed(1)} ms/s, ` +
    `CPU ${r.threads.mainRunMsPerS.toFixed(0)} ms/s`
  );
}

function decisionFigures(r: StepResult, suffix: string): Record<string, string | number> {
  const d = r.decisions;
  const counts = `${d.pauses} / ${d.falseInterruptions} / ${d.clears} / ${d.turns}`;
  return {
    [`barge-in pauses / false interruptions / clears / caller turns in the window${suffix}`]: counts,
    [`calls whose detector fell behind${suffix}`]: r.detectorsBehind,
  };
}

function describe(c: Contender): string {
  const line = describeLine(BENCH_LINES[c.provider]);
  if (c.callers === 'silent') return line;
  return (
    `${line}; each caller speaks ~${CALLER_SPEECH_SHARE * 100} % of the time (corpus utterances at 20 and 10 dB, coughs, ` +
    `"mm-hm"s, at seeded random moments over line noise)`
  );
}

function stepScenario(c: Contender, calls: number): string {
  return `telephony bridge / ${c.label} (${describeLine(BENCH_LINES[c.provider])}) / ${calls} concurrent calls / 200 ms lead`;
}

/** A step's row: its trials pooled (figures over all its windows) beside each trial's own p99. */
function stepRow(s: JudgedStep, note?: string): BenchResult {
  const r = s.combined;
  const errors = s.trials.filter((t): t is TrialError => !isResult(t)).map((t) => t.error);
  const lagging = s.trials.filter(isResult).filter((t) => t.phonesLag.p99Ms > PHONES_BEHIND_P99_MS).length;
  const behind =
    lagging === 0
      ? ''
      : `the phones fell behind in ${lagging} trial(s): their timers over ${PHONES_BEHIND_P99_MS} ms late at p99 ` +
        `(acknowledgements and callers' frames late; under SCHED_IDLE they get only the CPU the machine leaves)`;
  return {
    scenario: stepScenario(s.contender, s.calls),
    figures: {
      ...trialFigures(s, ''),
      'bare timer p99 ms (this round)': round(s.bare, 2),
      ...(r === null
        ? {}
        : {
            'p50 lateness ms, pooled': round(r.p50, 2),
            'max lateness ms': round(r.max, 2),
            'paced sends, pooled': r.sends,
            'steady window ms, all trials': Math.round(r.windowMs),
            'phone underruns (not from barge-in)': r.unexplainedUnderruns,
            'calls live through the window, all trials': `${r.liveThroughWindow}/${r.calls * s.trials.filter(isResult).length}`,
            'other call warnings': r.warnings,
            'heap MiB, largest': round(r.heapMiB, 2),
            'bridge loop busy %': round(r.busy * 100, 2),
            ...cpuFigures(r, ''),
            ...threadFigures(r, ''),
            'peer loop busy %': round(r.peerBusy * 100, 2),
            ...phonesFigures(s, ''),
            ...(s.contender.callers === 'silent' ? {} : decisionFigures(r, '')),
            ...(s.contender.callers === 'bargeInOn'
              ? { 'VAD backend': r.backend ?? 'not loaded / mixed', 'VAD notices': r.notices.length }
              : {}),
          }),
    },
    anchor: 'bare timer p99 (this round)',
    ratio: round(s.pooled.outcome.p99 / Math.max(s.bare, 0.1), 2),
    target: `p99 media-send lateness ≤ ${TARGET_P99_MS} ms, ${trialsText(s.trials.length)} pooled`,
    met: s.pooled.met,
    command: COMMAND,
    ...(s.pooled.met && (r?.notices.length ?? 0) === 0 && note === undefined && errors.length === 0 && s.disturbed === 0 && behind === ''
      ? {}
      : {
          notes: [
            ...(note === undefined ? [] : [note]),
            ...(behind === '' ? [] : [behind]),
            ...(s.pooled.met ? [] : [`failed: ${s.pooled.why.join('; ')}`]),
            ...(s.disturbed === 0
              ? []
              : [`${s.disturbed} trial(s) kept though every run was void (host steal over the limit) or the budget allowed no rerun`]),
            ...(r?.notices ?? []),
          ].join('; '),
        }),
  };
}

/** A step the run budget cut before its last trial: its trials so far, not judged and not recorded in its search. */
function unjudgedRow(
  p: Plan,
  run: readonly (StepResult | TrialError)[],
  trials: number,
  bare: number,
  voids: readonly number[],
): BenchResult {
  return {
    scenario: stepScenario(p.contender, p.calls),
    figures: {
      'trials run': `${run.length}/${trials}`,
      'p99 lateness ms per trial': run.map((t) => (isResult(t) ? round(t.p99, 2) : 'error')).join(' / ') || 'none',
      'bare timer p99 ms (this round)': round(bare, 2),
      'host steal % per trial': perTrial(run, (r) => r.host.stealShare * 100) || 'none',
      'trial runs voided for host steal': voids.reduce((a, v) => a + v, 0),
    },
    command: COMMAND,
    notes: `cut by the run budget before its last trial: not judged, not part of its search${p.note === undefined ? '' : `; ${p.note}`}`,
  };
}

function describeLine(f: LineFormat): string {
  return `${f.encoding}${f.encoding === 'l16' ? ` ${f.byteOrder ?? 'le'}` : ''} ${f.sampleRate / MS_PER_SECOND} kHz`;
}
