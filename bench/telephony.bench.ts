/**
 * Concurrent bridged calls in one process, per provider: N phones speaking that provider's
 * protocol (a worker thread, real ws over loopback, playing in real time and answering
 * acknowledgement requests) each hear a paced utterance from the bridge in the provider's line
 * format (Twilio μ-law 8 kHz, Telnyx A-law 8 kHz, Plivo and Vonage L16 16 kHz, Exotel L16 8 kHz
 * in 3.2 KB batches). The phones open their calls at seeded random times over one second, as real calls arrive.
 * Figure: p99 media-send lateness (time a paced send went out minus the time it was due) in the
 * steady window (every call live), and the largest N within 5 ms per provider, compared with
 * Twilio's in the same run (target ≥ 90 %). The search: coarse steps 1, 10, 50, 100, 200, 300,
 * 400 until the first failing step, then at most 4 bisection steps between the last pass and the
 * first fail (stopping at a gap within 10 % of the failing N); no step is retried. The providers
 * run in rounds (each one's next step per round, the order rotating), so load drifts hit them all
 * alike. A bare 20 ms timer is measured before and after as the machine's floor; each step
 * reports CPU per call-second of the bridge's thread, the peers' thread and the whole process.
 *
 *   the command in COMMAND below (run from the repository root)
 *
 * The speech is real espeak-ng speech (the committed μ-law fixture, pre-rendered in each line
 * format) played from memory in 20 ms frames, so the figure is the bridge's (pacing, marks,
 * base64, JSON, socket), not synthesis: 200 calls of espeak synthesis would not fit on 2 cores.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { Readable } from 'node:stream';
import type { AudioFrame } from '../src/codec/types.js';
import { alawEncode } from '../src/dsp/alaw.js';
import { mulawDecode } from '../src/dsp/mulaw.js';
import type { CallCore } from '../src/telephony/CallCore.js';
import { LatenessHistogram } from '../src/telephony/LatenessHistogram.js';
import type { LineFormat } from '../src/telephony/lineFormat.js';
import { createMediaBridge } from '../src/telephony/MediaBridgeServer.js';
import { PROVIDERS, type ProviderName } from '../src/telephony/mediaStream.js';
import type { SpeechStream } from '../src/telephony/speechSource.js';
import type { UtteranceResult } from '../src/telephony/Utterance.js';
import { seededRandom } from '../test/support/rng.js';
import { CallSearch } from './lib/callSearch.js';
import { processCpuMs, threadCpuMs } from './lib/measure.js';
import type { BenchOptions, BenchResult } from './types.js';

const COMMAND =
  "node --expose-gc --import tsx -e \"import('./bench/telephony.bench.ts').then(m=>m.run({quick:false}))" +
  '.then(r=>console.table(r.map(x=>({s:x.scenario,...x.figures,met:x.met}))))"';
const TARGET_P99_MS = 5;
/** Coarse steps (a search stops climbing at its first failing step, then bisects). */
const FULL_STEPS = [1, 10, 50, 100, 200, 300, 400];
const QUICK_STEPS = [1, 10];
/** At most this many bisection steps after the coarse ones (full run; a quick run bisects none). */
const MAX_BISECTIONS = 4;
const FULL_SECONDS = 5;
const QUICK_SECONDS = 1.5;
const RATE = 8000;
/** After the last call started, before the steady window opens (each call's first lead goes out at once). */
const WARMUP_MS = 300;
/** Calls' connections are opened at seeded random times over this span (full run); quick runs use a shorter one. */
const FULL_SPREAD_MS = 1000;
const QUICK_SPREAD_MS = 300;
/** Seed of the calls' arrival times: every provider and every run gets the same times for the same N (paired). */
const ARRIVAL_SEED = 0x5eed23;

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
/** How often the step looks whether every call has started. */
const POLL_MS = 10;
const FRAME_PERIOD_MS = 20;
const MS_PER_SECOND = 1000;
/** Each provider's share of Twilio's largest N in the same run (issue 23). */
const TARGET_SHARE_OF_TWILIO = 0.9;

/** The line each provider's bench phones open (what its test peer in the suite opens too). */
const BENCH_LINES: Record<ProviderName, LineFormat> = {
  twilio: { encoding: 'mulaw', sampleRate: 8000 },
  telnyx: { encoding: 'alaw', sampleRate: 8000 },
  plivo: { encoding: 'l16', sampleRate: 16000, byteOrder: 'le' },
  vonage: { encoding: 'l16', sampleRate: 16000, byteOrder: 'le' },
  exotel: { encoding: 'l16', sampleRate: 8000, byteOrder: 'le' },
};

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
  /** Share of wall time the bridge's event loop was busy (steady window). */
  busy: number;
  /** Length of the steady window. */
  windowMs: number;
  /** Whether every call was live when the window opened (false: no steady window, the step fails). */
  steady: boolean;
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

/**
 * One step: `calls` phones of `provider`, their connections opened at seeded random times over `spreadMs` (real
 * calls do not all start in the same millisecond; started together, every call's frame is due
 * at the same instant and each timer tick is a burst of `calls` sends). Lateness and CPU count
 * only in the steady window: from `WARMUP_MS` after the last call started until the first call's
 * utterance ended, when every call is live.
 */
export async function step(
  calls: number,
  seconds: number,
  provider: ProviderName = 'twilio',
  spreadMs = FULL_SPREAD_MS,
): Promise<StepResult> {
  const format = BENCH_LINES[provider];
  const audio = lineSpeech(speech(seconds), format);
  const live: CallCore<unknown>[] = [];
  const results: Promise<UtteranceResult>[] = [];
  const bridge = await createMediaBridge({
    provider,
    source: async (_request, { signal }) => new MemorySpeechStream(audio, format, signal),
    onCall(call: CallCore<unknown>) {
      live.push(call);
      call.on('start', () => {
        results.push(call.speak('bench'));
      });
    },
  });
  const worker = new Worker(new URL('./providerPeers.worker.mjs', import.meta.url), {
    workerData: { url: bridge.url, count: calls, provider, openAtMs: arrivalTimes(calls, spreadMs) },
  });
  const dbg = (m: string): void => {
    if (process.env['TEL_BENCH_DEBUG'] !== undefined) process.stderr.write(`  [${provider} ${calls}] ${m}\n`);
  };
  // Bounded: whatever goes wrong, the step ends by this deadline and frees everything.
  const deadlineMs = (seconds * 3 + 30) * 1000 + spreadMs;
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
    const messages: PeerMessage[] = [];
    const waiters: (() => void)[] = [];
    worker.on('message', (m: PeerMessage) => {
      messages.push(m);
      for (const w of waiters.splice(0)) w();
    });
    const next = async (type: PeerMessage['type']): Promise<PeerMessage> => {
      for (;;) {
        const found = messages.find((m) => m.type === type);
        if (found !== undefined) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    };
    const ready = await next('ready');
    if ((ready.failed ?? 0) > 0) throw new Error(`${ready.failed} of ${calls} phones could not connect`);
    dbg('peers ready');
    while (results.length < calls) await new Promise((r) => setTimeout(r, POLL_MS)); // bounded by the deadline
    dbg('all started');
    let firstDone = false;
    void Promise.race(results).then(() => (firstDone = true));
    await new Promise((r) => setTimeout(r, WARMUP_MS));
    // The steady window opens: forget the sends of the ramp-up.
    for (const c of live) c.stats.lateness.reset();
    const steady = !firstDone; // else the calls were still starting when the first one ended
    worker.postMessage('window');
    const peerStart = await next('window');
    const elu0 = performance.eventLoopUtilization();
    const cpu0 = processCpuMs();
    const bridgeCpu0 = threadCpuMs();
    const wall0 = performance.now();
    await Promise.race(results);
    const wallMs = performance.now() - wall0;
    const busy = performance.eventLoopUtilization(elu0).utilization;
    const cpu = processCpuMs() - cpu0;
    const bridgeCpu = threadCpuMs() - bridgeCpu0;
    const merged = new LatenessHistogram();
    for (const c of live) merged.merge(c.stats.lateness);
    const heapMiB = process.memoryUsage().heapUsed / 2 ** 20;
    worker.postMessage('windowEnd');
    const peerEnd = await next('windowEnd');
    dbg(`window ${Math.round(wallMs)} ms${steady ? '' : ' (a call had ended before it opened)'}`);
    const done = await Promise.all(results);
    dbg('all done');
    worker.postMessage('stop');
    const peerStats = await next('stats');
    const callSeconds = (calls * Math.max(wallMs, 1)) / MS_PER_SECOND;
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
      windowMs: wallMs,
      steady,
      cpuPerCallSecond: cpu / callSeconds,
      bridgeCpuPerCallSecond: bridgeCpu / callSeconds,
      peerCpuPerCallSecond: ((peerEnd.cpuMs ?? 0) - (peerStart.cpuMs ?? 0)) / callSeconds,
      peerBusy: peerEnd.busy ?? 0,
    };
  }
}

/** What the phones' worker reports. */
interface PeerMessage {
  type: 'ready' | 'window' | 'windowEnd' | 'stats';
  opened?: number;
  failed?: number;
  mediaBytes?: number;
  underruns?: number;
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

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const steps = opts.quick ? QUICK_STEPS : FULL_STEPS;
  const seconds = opts.quick ? QUICK_SECONDS : FULL_SECONDS;
  const spreadMs = opts.quick ? QUICK_SPREAD_MS : FULL_SPREAD_MS;
  const maxBisections = opts.quick ? 0 : MAX_BISECTIONS;
  const out: BenchResult[] = [];
  const loadBefore = loadavg()[0]!;
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
  const searches = new Map<ProviderName, CallSearch>(PROVIDERS.map((p) => [p, new CallSearch(steps, maxBisections)]));
  const cpu = new Map<ProviderName, StepResult>(); // each provider's step at its largest passing N
  const startedAt = performance.now();
  // Rounds: each provider still searching runs its next step, the first provider rotating each
  // round, so a spell of outside load lands on every provider alike. Bounded: each search ends
  // after its coarse steps plus at most `maxBisections`.
  for (let round = 0; ; round++) {
    const order = PROVIDERS.map((_, i) => PROVIDERS[(i + round) % PROVIDERS.length]!);
    let ran = 0;
    for (const provider of order) {
      const search = searches.get(provider)!;
      const calls = search.next();
      if (calls === null) continue;
      ran++;
      process.stderr.write(`telephony bench: round ${round + 1}, ${provider}, ${calls} calls (load ${loadavg()[0]!.toFixed(1)}) …\n`);
      let r: StepResult;
      try {
        r = await step(calls, seconds, provider, spreadMs);
      } catch (err) {
        // A step that could not run to its end (phones that could not connect, the step's
        // deadline) is a failed step, reported as such; the other searches go on.
        search.record(calls, false);
        out.push({
          scenario: stepScenario(provider, calls, seconds),
          figures: { error: (err as Error).message },
          target: `p99 media-send lateness ≤ ${TARGET_P99_MS} ms`,
          met: false,
          command: COMMAND,
        });
        continue;
      }
      // A call that did not finish, a phone that ran dry, or no steady window (the last call
      // started after the first had ended) fails the step whatever its p99.
      const met = r.p99 <= TARGET_P99_MS && r.completed === calls && r.underruns === 0 && r.steady && r.sends > 0;
      search.record(calls, met);
      if (met && calls === search.largest) cpu.set(provider, r);
      out.push(stepRow(provider, r, bare, seconds, met));
    }
    if (ran === 0) break;
  }
  const minutes = (performance.now() - startedAt) / 60_000;
  const bareAfter = await bareTimerLateness(seconds);
  const twilio = searches.get('twilio')!.largest;
  const floorMissed = Math.max(bare.quantile(0.99), bareAfter.quantile(0.99)) > TARGET_P99_MS;
  for (const provider of PROVIDERS) {
    const search = searches.get(provider)!;
    const n = search.largest;
    const share = twilio > 0 ? n / twilio : 0;
    const at = cpu.get(provider);
    out.push({
      scenario:
        `telephony bridge / ${provider}: largest N with p99 lateness ≤ ${TARGET_P99_MS} ms ` +
        `(coarse ${steps.join(', ')}, then bisected)`,
      figures: {
        calls: n,
        'first failing N': search.failed ?? 'none',
        'Twilio calls (same run)': twilio,
        'share of Twilio %': round(share * 100),
        ...(at === undefined
          ? {}
          : {
              'process CPU ms per call-second at N': round(at.cpuPerCallSecond),
              'bridge thread CPU ms per call-second at N': round(at.bridgeCpuPerCallSecond),
              'peer thread CPU ms per call-second at N': round(at.peerCpuPerCallSecond),
            }),
        'bare timer p99 ms before / after': `${round(bare.quantile(0.99))} / ${round(bareAfter.quantile(0.99))}`,
      },
      anchor: 'Twilio in the same run',
      ratio: round(share),
      target: provider === 'twilio' ? '≥ 1 call' : `≥ ${TARGET_SHARE_OF_TWILIO * 100} % of Twilio's N`,
      met: provider === 'twilio' ? n > 0 : n > 0 && share >= TARGET_SHARE_OF_TWILIO,
      command: COMMAND,
      notes:
        `${describeLine(BENCH_LINES[provider])}; tried ${search.tried.join(', ')} (in rounds with the other providers, rotating order); ` +
        `calls opened at seeded random times over ${spreadMs} ms; peers in a worker thread on the same machine; ` +
        'speech pre-rendered from memory; ' +
        `search ${minutes.toFixed(1)} min; 1-min load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after` +
        (floorMissed ? `; the bare timer itself missed ${TARGET_P99_MS} ms: this run cannot judge lateness` : ''),
    });
  }
  return out;
}

function stepScenario(provider: ProviderName, calls: number, seconds: number): string {
  const line = describeLine(BENCH_LINES[provider]);
  return `telephony bridge / ${provider} (${line}) / ${calls} concurrent calls / ${seconds} s utterance, 200 ms lead`;
}

function stepRow(provider: ProviderName, r: StepResult, bare: LatenessHistogram, seconds: number, met: boolean): BenchResult {
  return {
    scenario: stepScenario(provider, r.calls, seconds),
    figures: {
      'p50 lateness ms': round(r.p50),
      'p99 lateness ms': round(r.p99),
      'max lateness ms': round(r.max),
      'paced sends': r.sends,
      'phone underruns': r.underruns,
      completed: `${r.completed}/${r.calls}`,
      'heap MiB': round(r.heapMiB),
      'bridge loop busy %': round(r.busy * 100),
      'process CPU ms per call-second': round(r.cpuPerCallSecond),
      'bridge thread CPU ms per call-second': round(r.bridgeCpuPerCallSecond),
      'peer thread CPU ms per call-second': round(r.peerCpuPerCallSecond),
      'peer loop busy %': round(r.peerBusy * 100),
      'steady window ms': r.steady ? Math.round(r.windowMs) : 'none (a call ended before the last started)',
    },
    anchor: 'bare timer p99',
    ratio: round(r.p99 / Math.max(bare.quantile(0.99), 0.1)),
    target: `p99 media-send lateness ≤ ${TARGET_P99_MS} ms`,
    met,
    command: COMMAND,
  };
}

function describeLine(f: LineFormat): string {
  return `${f.encoding}${f.encoding === 'l16' ? ` ${f.byteOrder ?? 'le'}` : ''} ${f.sampleRate / MS_PER_SECOND} kHz`;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
