/**
 * Concurrent bridged calls in one process, per provider: N phones speaking that provider's
 * protocol (a worker thread, real ws over loopback, playing in real time and answering
 * acknowledgement requests) each hear a paced utterance from the bridge in the provider's line
 * format (Twilio μ-law 8 kHz, Telnyx A-law 8 kHz, Plivo and Vonage L16 16 kHz, Exotel L16 8 kHz
 * in 3.2 KB batches).
 * Figure: p99 media-send lateness (time a paced send went out minus the time it was due), for
 * N = 1, 5, 10, 25, 50, 100, 200 (stopping early if a call fails or a phone runs dry). The
 * largest N within 5 ms is the result, and each provider's is compared with Twilio's in the same
 * run (target ≥ 90 %); a bare 20 ms timer is measured first as the machine's floor, and the
 * bridge's event-loop utilisation shows how much headroom is left.
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
import type { BenchOptions, BenchResult } from './types.js';

const COMMAND =
  "node --expose-gc --import tsx -e \"import('./bench/telephony.bench.ts').then(m=>m.run({quick:false}))" +
  '.then(r=>console.table(r.map(x=>({s:x.scenario,...x.figures,met:x.met}))))"';
const TARGET_P99_MS = 5;
/** Twilio reached the old top step (200) before providers were compared: the steps go on past it. */
const FULL_STEPS = [1, 10, 50, 100, 200, 300, 400];
const QUICK_STEPS = [1, 10, 50];
const FULL_SECONDS = 5;
const QUICK_SECONDS = 1.5;
const RATE = 8000;
const WARMUP_MS = 300;
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
  /** Share of wall time the bridge's event loop was busy. */
  busy: number;
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

export async function step(calls: number, seconds: number, provider: ProviderName = 'twilio'): Promise<StepResult> {
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
        // Measure after a short warm-up: forget the sends of the first lead.
        setTimeout(() => call.stats.lateness.reset(), WARMUP_MS);
        results.push(call.speak('bench'));
      });
    },
  });
  const worker = new Worker(new URL('./providerPeers.worker.mjs', import.meta.url), {
    workerData: { url: bridge.url, count: calls, provider },
  });
  const dbg = (m: string): void => {
    if (process.env['TEL_BENCH_DEBUG'] !== undefined) process.stderr.write(`  [${provider} ${calls}] ${m}\n`);
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
  const steps = opts.quick ? QUICK_STEPS : FULL_STEPS;
  const seconds = opts.quick ? QUICK_SECONDS : FULL_SECONDS;
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
  const best = new Map<ProviderName, number>();
  for (const provider of PROVIDERS) {
    const line = describeLine(BENCH_LINES[provider]);
    let largest = 0;
    for (const calls of steps) {
      process.stderr.write(`telephony bench: ${provider}, ${calls} calls …\n`);
      const r = await step(calls, seconds, provider);
      const met = r.p99 <= TARGET_P99_MS && r.completed === calls;
      if (met) largest = calls;
      out.push({
        scenario: `telephony bridge / ${provider} (${line}) / ${calls} concurrent calls / ${seconds} s utterance, 200 ms lead`,
        figures: {
          'p50 lateness ms': round(r.p50),
          'p99 lateness ms': round(r.p99),
          'max lateness ms': round(r.max),
          'paced sends': r.sends,
          'phone underruns': r.underruns,
          completed: `${r.completed}/${calls}`,
          'heap MiB': round(r.heapMiB),
          'bridge loop busy %': round(r.busy * 100),
        },
        anchor: 'bare timer p99',
        ratio: round(r.p99 / Math.max(bare.quantile(0.99), 0.1)),
        target: `p99 media-send lateness ≤ ${TARGET_P99_MS} ms`,
        met,
        command: COMMAND,
      });
      // A call that did not finish, or a phone that ran dry, is a real failure: stop there.
      if (r.completed < calls || r.underruns > 0) break;
    }
    best.set(provider, largest);
  }
  const twilio = best.get('twilio') ?? 0;
  for (const provider of PROVIDERS) {
    const n = best.get(provider) ?? 0;
    const share = twilio > 0 ? n / twilio : 0;
    out.push({
      scenario: `telephony bridge / ${provider}: largest N with p99 lateness ≤ ${TARGET_P99_MS} ms (tried ${steps.join(', ')})`,
      figures: {
        calls: n,
        'Twilio calls (same run)': twilio,
        'share of Twilio %': round(share * 100),
        'bare timer p99 ms': round(bare.quantile(0.99)),
      },
      anchor: 'Twilio in the same run',
      ratio: round(share),
      target: provider === 'twilio' ? '≥ 1 call' : `≥ ${TARGET_SHARE_OF_TWILIO * 100} % of Twilio's N`,
      met: provider === 'twilio' ? n > 0 : n > 0 && share >= TARGET_SHARE_OF_TWILIO,
      command: COMMAND,
      notes:
        `${describeLine(BENCH_LINES[provider])}; peers run in a worker thread on the same machine; ` +
        `speech is pre-rendered real speech from memory; ` +
        `1-min load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after`,
    });
  }
  return out;
}

function describeLine(f: LineFormat): string {
  return `${f.encoding}${f.encoding === 'l16' ? ` ${f.byteOrder ?? 'le'}` : ''} ${f.sampleRate / MS_PER_SECOND} kHz`;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
