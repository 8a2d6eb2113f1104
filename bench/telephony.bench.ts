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
 * ≥ 90 %). How a step is judged (enough sends, what fails it): bench/lib/callStep.ts. The
 * search: coarse steps 10, 50, 100, 200, 300, 400 until the first failing step (1 call only if 10
 * fails), then at most 4 bisection steps (bench/lib/callSearch.ts); no step is retried. The
 * bisection's resolution (10 %) is as coarse as the targets: where a contender's largest pass and
 * first fail straddle ⌈90 % of its reference's N⌉, a last round runs it once at exactly that N
 * (the reference at the same N first, as an anchor). The contenders run in rounds (each one's
 * next step per round, the order rotating), so load drifts hit them all alike; each round opens
 * with a bare 20 ms timer (the machine's floor in that round), reported beside each of the
 * round's steps. Each step reports CPU per call-second of
 * the whole process, the bridge's thread, the peers' thread and the other threads (the detector
 * thread, GC), and with callers the barge-in decisions in the window.
 *
 *   the command in COMMAND below (run from the repository root)
 *
 * The bot's speech is real espeak-ng speech (the committed μ-law fixture, pre-rendered in each line
 * format) played from memory in 20 ms frames, so the figure is the bridge's (pacing, marks,
 * base64, JSON, socket, barge-in), not synthesis: 200 calls of espeak synthesis would not fit on 2 cores.
 */
import { readFileSync } from 'node:fs';
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
import { CallSearch, openTargets, type TargetPair } from './lib/callSearch.js';
import { median, round } from './lib/stats.js';
import { FULL_WINDOW, judgeStep, TARGET_P99_MS, unexplainedUnderruns, type WindowRule, windowClosed } from './lib/callStep.js';
import { processCpuMs, threadCpuMs } from './lib/measure.js';
import type { BenchOptions, BenchResult } from './types.js';

const COMMAND =
  "node --expose-gc --import tsx -e \"import('./bench/telephony.bench.ts').then(m=>m.run({quick:false}))" +
  '.then(r=>console.table(r.map(x=>({s:x.scenario,...x.figures,met:x.met}))))"';
/** Coarse steps (a search stops climbing at its first failing step, then bisects). */
const FULL_STEPS = [10, 50, 100, 200, 300, 400];
const QUICK_STEPS = [10];
/** Tried only when the first coarse step fails (bench/lib/callSearch.ts). */
const FALLBACK_STEP = 1;
/** At most this many bisection steps after the coarse ones (full run; a quick run bisects none). */
const MAX_BISECTIONS = 4;
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
 * No new step starts after this long (the module's limit in bench/run.ts is 12 min; a step takes
 * at most ~30 s on a quiet machine): a search cut by it says so in its notes.
 */
const FULL_BUDGET_MS = 10.5 * 60_000;
/**
 * The detector thread's idle time during the run: longer than the run, so the one thread started
 * by the first warm-up call serves every barge-in step. With the default (30 s) it ends between two
 * barge-in steps (a round of seven contenders takes longer), and a second thread in the same
 * process cannot load onnxruntime-node ("Module did not self-register", seen here 2026-11-28): its
 * calls fall back to the WebRTC VAD, and the steps after the first would measure another detector.
 */
const RUN_DETECTOR_IDLE_MS = 20 * 60_000;
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
    if (callers === 'bargeInOn') {
      await warmUpDetector(
        bridge.url!,
        () => warmup,
        spec.caller,
        () => running,
      );
      dbg('detector thread warm');
    }
    const w = new Worker(new URL('./providerPeers.worker.mjs', import.meta.url), {
      workerData: {
        url: bridge.url,
        count: calls,
        provider,
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
    const wall0 = performance.now();
    const sent = (): number => live().reduce((a, c) => a + c.stats.lateness.count, 0);
    await sleep(spec.window.baseMs);
    while (!windowClosed(performance.now() - wall0, sent(), spec.window)) await sleep(WINDOW_POLL_MS);
    const wallMs = performance.now() - wall0;
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
  const steps = opts.quick ? QUICK_STEPS : FULL_STEPS;
  const window = opts.quick ? QUICK_WINDOW : FULL_WINDOW;
  const spreadMs = opts.quick ? QUICK_SPREAD_MS : FULL_SPREAD_MS;
  const bareSeconds = opts.quick ? QUICK_BARE_SECONDS : FULL_BARE_SECONDS;
  const maxBisections = opts.quick ? 0 : MAX_BISECTIONS;
  const spec = stepSpec(opts);
  configureDetectorThreads({ idleMs: RUN_DETECTOR_IDLE_MS });
  try {
    return await search(opts, spec, steps, window, spreadMs, bareSeconds, maxBisections);
  } finally {
    configureDetectorThreads({ idleMs: DEFAULT_DETECTOR_THREAD_IDLE_MS });
  }
}

/** The rounds, then the summary rows. */
async function search(
  opts: BenchOptions,
  spec: StepSpec,
  steps: number[],
  window: WindowRule,
  spreadMs: number,
  bareSeconds: number,
  maxBisections: number,
): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  const loadBefore = loadavg()[0]!;
  const searches = new Map(CONTENDERS.map((c) => [c.key, new CallSearch(steps, maxBisections, FALLBACK_STEP)]));
  const byN = new Map(CONTENDERS.map((c) => [c.key, new Map<number, StepResult>()])); // passed steps
  const bareP99: number[] = [];
  const backends = new Set<string>(); // the VAD backend of every barge-in ON step
  const startedAt = performance.now();
  let cut = false;
  // Rounds: a bare timer, then each contender still searching runs its next step, the first one
  // rotating each round, so a spell of outside load lands on every contender alike. Bounded: each
  // search ends after its coarse steps plus the fallback and at most `maxBisections`, and no step
  // starts past the budget.
  const overBudget = (): boolean => !opts.quick && performance.now() - startedAt > FULL_BUDGET_MS;
  /**
   * Runs one step and reports it; `search` records its verdict (null: an anchor step, reported
   * only). A step that could not run to its end (phones that could not connect, the step's
   * deadline) is a failed step, reported as such; the other searches go on.
   */
  const runStep = async (
    contender: Contender,
    calls: number,
    bare: number,
    roundNo: number,
    search: CallSearch | null,
    note?: string,
  ): Promise<void> => {
    process.stderr.write(
      `telephony bench: round ${roundNo}, ${contender.key}, ${calls} calls ` +
        `(load ${loadavg()[0]!.toFixed(1)}, bare p99 ${bare.toFixed(1)} ms)${note === undefined ? '' : ` [${note}]`} …\n`,
    );
    let r: StepResult;
    try {
      r = await step(calls, contender, spec);
    } catch (err) {
      search?.record(calls, false);
      out.push({
        scenario: stepScenario(contender, calls),
        figures: { error: (err as Error).message, 'bare timer p99 ms (this round)': round(bare, 2) },
        target: `p99 media-send lateness ≤ ${TARGET_P99_MS} ms`,
        met: false,
        command: COMMAND,
        ...(note === undefined ? {} : { notes: note }),
      });
      return;
    }
    const verdict = judgeStep({
      p99: r.p99,
      sends: r.sends,
      calls,
      liveThroughWindow: r.liveThroughWindow,
      failedUtterances: r.failedUtterances,
      unexplainedUnderruns: r.unexplainedUnderruns,
      detectorsBehind: r.detectorsBehind,
    });
    search?.record(calls, verdict.met);
    if (contender.callers === 'bargeInOn') backends.add(r.backend ?? 'not loaded / mixed');
    if (verdict.met && search !== null) byN.get(contender.key)!.set(calls, r);
    out.push(stepRow(contender, r, bare, verdict, note));
  };
  // Rounds: a bare timer, then each contender still searching runs its next step, the first one
  // rotating each round, so a spell of outside load lands on every contender alike. Bounded: each
  // search ends after its coarse steps plus the fallback and at most `maxBisections`, and no step
  // starts past the budget.
  let roundIndex = 0;
  const checked = new Map<string, string>(); // contender → what its target check was
  for (; ; roundIndex++) {
    const order = CONTENDERS.map((_, i) => CONTENDERS[(i + roundIndex) % CONTENDERS.length]!);
    if (order.every((c) => searches.get(c.key)!.next() === null)) break;
    if (overBudget()) {
      cut = true;
      break;
    }
    const bare = (await bareTimerLateness(bareSeconds)).quantile(0.99);
    bareP99.push(bare);
    for (const contender of order) {
      const search = searches.get(contender.key)!;
      const calls = search.next();
      if (calls === null) continue;
      if (overBudget()) {
        cut = true;
        break;
      }
      await runStep(contender, calls, bare, roundIndex + 1, search);
    }
    if (cut) break;
  }
  // The target round (full run): where a contender's search left the target N open, that is
  // ⌈90 % of its reference's largest N⌉ lies above its largest pass and below its first fail (the
  // 10 % bisection resolution is as coarse as the target), one step at exactly that N decides it,
  // recorded in its search like any step (one trial, no retry). The reference runs the same N
  // first in the same round, as an anchor reported beside it (its own search is not changed).
  if (!opts.quick && !cut) {
    const checks = targetChecks(searches);
    if (checks.length > 0 && !overBudget()) {
      const bare = (await bareTimerLateness(bareSeconds)).quantile(0.99);
      bareP99.push(bare);
      const anchored = new Set<string>(); // reference@N already run as an anchor
      for (const { contender, reference, share, calls } of checks) {
        if (overBudget()) {
          cut = true;
          break;
        }
        const why = `target check: ${calls} = ⌈${share * 100} % of ${reference.label}'s ${searches.get(reference.key)!.largest}⌉`;
        if (!anchored.has(`${reference.key}@${calls}`)) {
          anchored.add(`${reference.key}@${calls}`);
          await runStep(reference, calls, bare, roundIndex + 1, null, `anchor of the ${why} (not part of its own search)`);
        }
        await runStep(contender, calls, bare, roundIndex + 1, searches.get(contender.key)!, why);
        checked.set(contender.key, `the last step (${calls}) was the ${why}`);
      }
    }
  }
  const minutes = (performance.now() - startedAt) / 60_000;
  const bareOver = bareP99.filter((b) => b > TARGET_P99_MS).length;
  out.unshift({
    scenario: `bare setTimeout every 20 ms (absolute schedule), ${bareSeconds} s at the start of each round: the machine's floor`,
    figures: {
      rounds: bareP99.length,
      'p99 lateness ms, per round': bareP99.map((x) => round(x, 2)).join(' / '),
      'p99 lateness ms, median of rounds': round(median(bareP99), 2),
      'p99 lateness ms, worst round': round(bareP99.length === 0 ? NaN : Math.max(...bareP99), 2),
      'rounds over 5 ms': bareOver,
    },
    command: COMMAND,
  });
  const largest = (c: Contender): number => searches.get(c.key)!.largest;
  const twilio = largest(CONTENDERS[0]!);
  const common =
    `calls opened at seeded random times over ${spreadMs} ms; window ≥ ${window.baseMs / 1000} s and ≥ ${window.minSends} sends ` +
    `(at most ${window.capMs / 1000} s); peers in a worker thread on the same machine; bot speech pre-rendered from memory; ` +
    `search ${minutes.toFixed(1)} min${cut ? ' (cut by the run budget: searches may be unfinished)' : ''}; ` +
    `1-min load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after` +
    (bareOver > 0 ? `; the bare timer itself missed ${TARGET_P99_MS} ms in ${bareOver} of ${bareP99.length} rounds` : '');
  for (const c of CONTENDERS) {
    const search = searches.get(c.key)!;
    const n = search.largest;
    const at = byN.get(c.key)!.get(n);
    const isProvider = c.callers === 'silent';
    const share = twilio > 0 ? n / twilio : 0;
    out.push({
      scenario:
        `telephony bridge / ${c.label}: largest N with p99 lateness ≤ ${TARGET_P99_MS} ms ` + `(coarse ${steps.join(', ')}, then bisected)`,
      figures: {
        calls: n,
        'first failing N': search.failed ?? 'none',
        'Twilio calls (same run)': twilio,
        'share of Twilio %': round(share * 100, 2),
        ...(at === undefined ? {} : cpuFigures(at, ' at N')),
        ...(at === undefined || c.callers === 'silent' ? {} : decisionFigures(at, ' at N')),
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
        `${describe(c)}; tried ${search.tried.join(', ')} (in rounds with the other contenders, rotating order` +
        `${checked.has(c.key) ? `; ${checked.get(c.key)!}` : ''}); ${common}`,
    });
  }
  out.push(onOffRow(searches, byN, `VAD backend in the ON steps: ${[...backends].join(', ') || 'none ran'}; ${common}`));
  return out;
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
function onOffRow(searches: Map<string, CallSearch>, byN: Map<string, Map<number, StepResult>>, common: string): BenchResult {
  const on = searches.get(SPEAKING_ON.key)!.largest;
  const off = searches.get(SPEAKING_OFF.key)!.largest;
  const share = off > 0 ? on / off : 0;
  // CPU paired at the largest N both passed (the same calls, the same caller audio).
  const both = [...byN.get(SPEAKING_ON.key)!.keys()].filter((n) => byN.get(SPEAKING_OFF.key)!.has(n));
  const n = both.length > 0 ? Math.max(...both) : undefined;
  const onAt = n === undefined ? undefined : byN.get(SPEAKING_ON.key)!.get(n)!;
  const offAt = n === undefined ? undefined : byN.get(SPEAKING_OFF.key)!.get(n)!;
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
            'process CPU ms per call-second at that N, OFF / ON':
              `${round(offAt.cpuPerCallSecond, 2)} / ` + `${round(onAt.cpuPerCallSecond, 2)}`,
            'bridge thread CPU ms per call-second, OFF / ON':
              `${round(offAt.bridgeCpuPerCallSecond, 2)} / ` + `${round(onAt.bridgeCpuPerCallSecond, 2)}`,
            'other threads (detector, GC) CPU ms per call-second, OFF / ON': `${round(otherCpu(offAt), 2)} / ${round(otherCpu(onAt), 2)}`,
            'bridge loop busy %, OFF / ON': `${round(offAt.busy * 100, 2)} / ${round(onAt.busy * 100, 2)}`,
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

function otherCpu(r: StepResult): number {
  return r.cpuPerCallSecond - r.bridgeCpuPerCallSecond - r.peerCpuPerCallSecond;
}

function cpuFigures(r: StepResult, suffix: string): Record<string, number> {
  return {
    [`process CPU ms per call-second${suffix}`]: round(r.cpuPerCallSecond, 2),
    [`bridge thread CPU ms per call-second${suffix}`]: round(r.bridgeCpuPerCallSecond, 2),
    [`peer thread CPU ms per call-second${suffix}`]: round(r.peerCpuPerCallSecond, 2),
    [`other threads (detector, GC) CPU ms per call-second${suffix}`]: round(otherCpu(r), 2),
  };
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

function stepRow(c: Contender, r: StepResult, bare: number, verdict: { met: boolean; why: string[] }, note?: string): BenchResult {
  return {
    scenario: stepScenario(c, r.calls),
    figures: {
      'p50 lateness ms': round(r.p50, 2),
      'p99 lateness ms': round(r.p99, 2),
      'max lateness ms': round(r.max, 2),
      'bare timer p99 ms (this round)': round(bare, 2),
      'paced sends': r.sends,
      'steady window ms': Math.round(r.windowMs),
      'phone underruns (not from barge-in)': r.unexplainedUnderruns,
      'calls live through the window': `${r.liveThroughWindow}/${r.calls}`,
      'other call warnings': r.warnings,
      'heap MiB': round(r.heapMiB, 2),
      'bridge loop busy %': round(r.busy * 100, 2),
      ...cpuFigures(r, ''),
      'peer loop busy %': round(r.peerBusy * 100, 2),
      ...(c.callers === 'silent' ? {} : decisionFigures(r, '')),
      ...(c.callers === 'bargeInOn' ? { 'VAD backend': r.backend ?? 'not loaded / mixed', 'VAD notices': r.notices.length } : {}),
    },
    anchor: 'bare timer p99 (this round)',
    ratio: round(r.p99 / Math.max(bare, 0.1), 2),
    target: `p99 media-send lateness ≤ ${TARGET_P99_MS} ms`,
    met: verdict.met,
    command: COMMAND,
    ...(verdict.met && r.notices.length === 0 && note === undefined
      ? {}
      : {
          notes: [...(note === undefined ? [] : [note]), ...(verdict.met ? [] : [`failed: ${verdict.why.join('; ')}`]), ...r.notices].join(
            '; ',
          ),
        }),
  };
}

function describeLine(f: LineFormat): string {
  return `${f.encoding}${f.encoding === 'l16' ? ` ${f.byteOrder ?? 'le'}` : ''} ${f.sampleRate / MS_PER_SECOND} kHz`;
}
