/**
 * The caller-audio VAD on the labelled corpus (test/fixtures/vad): per backend, detection of
 * utterances ≥ 300 ms per SNR and on the held-out voices, false speech on non-speech and echo
 * clips, onset latency (labelled onset → the sample at which speechStart was decided), and CPU
 * per call-second on a mix where the caller speaks ~30 % of the time. Quick mode: a few clips
 * and a 10 s mix. Figures and the choice of default: native-notes/vad.md.
 *
 *   the command in COMMAND below (run from the repository root)
 */
import { createVad, type VadBackend, type VadEdgeEvent, type VadEvent, type VadOptions } from '../src/telephony/vad/index.js';
import { CORPUS_RATE, loadCorpus, type LoadedClip } from '../test/fixtures/vad/corpus.js';
import { concatBytes } from './lib/audio.js';
import { threadCpuMs } from './lib/measure.js';
import { median, percentile, round, sortedCopy } from './lib/stats.js';
import { mulawDecode } from '../src/dsp/mulaw.js';
import { loadSilero, SileroBatch, SileroVad, SILERO_WINDOW_SAMPLES } from '../src/telephony/vad/silero.js';
import { loadavg } from 'node:os';
import type { BenchOptions, BenchResult } from './types.js';

const COMMAND =
  "node --import tsx -e \"import('./bench/vad.bench.ts').then(m=>m.run({quick:false}))" +
  '.then(r=>console.table(r.map(x=>({s:x.scenario,...x.figures}))))"';
/** Utterances this long or longer must be detected (shorter ones are reported apart). */
export const MIN_DETECT_MS = 300;
/** A speechStart decided up to this long after the labelled offset still counts as detecting it. */
export const LATE_MS = 300;
const SNRS = [20, 10, 5];
const MIX_SPEECH_SHARE = 0.3;
const MIX_SECONDS = { quick: 10, full: 120 };
const BACKENDS: VadBackend[] = ['silero', 'webrtc', 'gated'];
const MS = CORPUS_RATE / 1000;
const PCT = 100;

export interface Evaluation {
  /** Detection rate (%) of ≥ 300 ms utterances, tuning voices, per SNR, and on held-out voices. */
  detect: Record<string, number>;
  heldOut: Record<string, number>;
  shortDetect: number;
  /** speechStart inside the noise lead of a speech clip (% of clips). */
  leadFalse: number;
  /** Non-speech clips (% with any speechStart), and echo clips apart. */
  falseNonSpeech: number;
  falseEcho: number;
  falseByKind: Record<string, number>;
  onsetP50Ms: number;
  onsetP95Ms: number;
}

function runClip(vadEvents: (mulaw: Uint8Array) => VadEvent[], c: LoadedClip): VadEdgeEvent[] {
  return vadEvents(c.mulaw).filter((e): e is VadEdgeEvent => e.type === 'speechStart');
}

export async function evaluate(options: VadOptions, clips: LoadedClip[] = loadCorpus()): Promise<Evaluation> {
  const vad = await createVad({ ...options, onNotice: options.onNotice ?? (() => undefined) });
  const events = (mulaw: Uint8Array): VadEvent[] => {
    vad.reset();
    return [...vad.push(mulaw), ...vad.flush()];
  };
  const rate = (xs: boolean[]): number => (xs.length === 0 ? NaN : round((PCT * xs.filter(Boolean).length) / xs.length, 1));
  const hits: Record<string, boolean[]> = {};
  const held: Record<string, boolean[]> = {};
  const short: boolean[] = [];
  const lead: boolean[] = [];
  const latencies: number[] = [];
  const fp: Record<string, boolean[]> = {};
  for (const c of clips) {
    // Speech over echo, coughs and "mm-hm"s: bench/bargeIn.bench.ts
    if (c.kind === 'doubletalk' || c.kind === 'cough' || c.kind === 'hum') continue;
    const starts = runClip(events, c);
    if (c.kind !== 'speech') {
      (fp[c.kind] ??= []).push(starts.length > 0);
      continue;
    }
    const onset = c.onset!;
    const offset = c.offset!;
    const hit = starts.find((e) => e.detectedAt >= onset && e.detectedAt <= offset + LATE_MS * MS);
    lead.push(starts.some((e) => e.detectedAt < onset));
    if (offset - onset < MIN_DETECT_MS * MS) {
      short.push(hit !== undefined);
      continue;
    }
    const key = `${c.snrDb}dB`;
    (c.heldOut ? (held[key] ??= []) : (hits[key] ??= [])).push(hit !== undefined);
    if (hit && !c.heldOut) latencies.push((hit.detectedAt - onset) / MS);
  }
  vad.close();
  const lat = sortedCopy(latencies);
  const kinds = Object.keys(fp);
  const nonSpeech = kinds.filter((k) => k !== 'echo').flatMap((k) => fp[k]!);
  return {
    detect: Object.fromEntries(SNRS.map((s) => [`${s}dB`, rate(hits[`${s}dB`] ?? [])])),
    heldOut: Object.fromEntries(SNRS.map((s) => [`${s}dB`, rate(held[`${s}dB`] ?? [])])),
    shortDetect: rate(short),
    leadFalse: rate(lead),
    falseNonSpeech: rate(nonSpeech),
    falseEcho: rate(fp['echo'] ?? []),
    falseByKind: Object.fromEntries(kinds.map((k) => [k, rate(fp[k]!)])),
    onsetP50Ms: round(percentile(lat, 0.5), 0),
    onsetP95Ms: round(percentile(lat, 0.95), 0),
  };
}

/**
 * A call, ~30 % caller speech: `'noisy'` line: utterances at 10 dB SNR with pink noise and
 * silence between them; `'quiet'` line: utterances at 20 dB SNR with near-silence between.
 */
export function callMix(seconds: number, line: 'noisy' | 'quiet' = 'noisy'): Uint8Array {
  const clips = loadCorpus();
  const speech = clips.filter((c) => c.kind === 'speech' && c.snrDb === (line === 'noisy' ? 10 : 20));
  const filler = clips.filter((c) => c.kind === 'silence' || (line === 'noisy' && c.kind === 'pink'));
  const out = new Uint8Array(seconds * CORPUS_RATE);
  let at = 0;
  for (let k = 0; at < out.length; k++) {
    const s = speech[k % speech.length]!;
    const n = Math.min(s.mulaw.length, out.length - at);
    out.set(s.mulaw.subarray(0, n), at);
    at += n;
    let gap = Math.round((s.offset! - s.onset!) / MIX_SPEECH_SHARE) - s.mulaw.length;
    for (let f = k; gap > 0 && at < out.length; f++) {
      const fill = filler[f % filler.length]!.mulaw;
      const m = Math.min(fill.length, gap, out.length - at);
      out.set(fill.subarray(0, m), at);
      at += m;
      gap -= m;
    }
  }
  return out;
}

/** CPU ms per second of call audio, pushed in 20 ms media frames as Twilio sends them. */
export async function cpuPerCallSecond(options: VadOptions, mix: Uint8Array): Promise<{ ms: number; modelShare: number }> {
  const vad = await createVad({ ...options, onNotice: () => undefined });
  const frame = 20 * MS;
  vad.push(mix.subarray(0, CORPUS_RATE)); // warm the JIT and the session
  vad.reset();
  const t0 = threadCpuMs();
  for (let i = 0; i < mix.length; i += frame) vad.push(mix.subarray(i, i + frame));
  const ms = threadCpuMs() - t0;
  const { windows, modelWindows } = vad.stats;
  vad.close();
  return { ms: ms / (mix.length / CORPUS_RATE), modelShare: windows === 0 ? 0 : modelWindows / windows };
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const all = loadCorpus();
  const clips = opts.quick ? all.filter((_, i) => i % 8 === 0) : all;
  const seconds = opts.quick ? MIX_SECONDS.quick : MIX_SECONDS.full;
  const noisy = callMix(seconds, 'noisy');
  const quiet = callMix(seconds, 'quiet');
  const results: BenchResult[] = [];
  for (const backend of BACKENDS) {
    const e = await evaluate({ backend }, clips);
    const cpu = await cpuPerCallSecond({ backend }, noisy);
    const cpuQuiet = await cpuPerCallSecond({ backend }, quiet);
    results.push({
      scenario: `vad / ${backend} / corpus of ${clips.length} clips`,
      figures: {
        'detect % 20dB': e.detect['20dB']!,
        'detect % 10dB': e.detect['10dB']!,
        'detect % 5dB': e.detect['5dB']!,
        'held-out % 20/10/5dB': SNRS.map((s) => e.heldOut[`${s}dB`]).join('/'),
        'short <300ms %': e.shortDetect,
        'false % non-speech': e.falseNonSpeech,
        'false % echo': e.falseEcho,
        'onset p50 ms': e.onsetP50Ms,
        'onset p95 ms': e.onsetP95Ms,
        'CPU ms per call-s noisy/quiet': `${round(cpu.ms, 2)}/${round(cpuQuiet.ms, 2)}`,
        'model windows % noisy/quiet': `${round(PCT * cpu.modelShare, 0)}/${round(PCT * cpuQuiet.modelShare, 0)}`,
      },
      command: COMMAND,
      notes: `false speech by kind: ${JSON.stringify(e.falseByKind)}; speechStart in the lead noise: ${e.leadFalse} %`,
    });
  }
  results.push(await sileroRunRow(opts, clips));
  return results;
}

/** Windows per measured sample (thread CPU samples must be ≥ 200 ms, see lib/measure.ts). */
const RUN_WINDOWS = { quick: 300, full: 3000 };
const RUN_ROUNDS = { quick: 1, full: 5 };
/** Streams per batched run measured (the per-window cost flattens near 16). */
const RUN_BATCHES = [8, 32];

/**
 * One Silero run's cost, thread CPU per window, contenders interleaved in rounds: a run made the
 * way silero.ts did before (new feeds, fetches and state tensor per run, outputs allocated by the
 * runtime), one window per run through `SileroVad.process` (tensors made once, outputs bound), and
 * `SileroBatch` with B streams per run. Then the largest probability difference, batched (up to
 * 32 clips per run) against one at a time, over every window of the corpus clips.
 */
async function sileroRunRow(opts: BenchOptions, clips: LoadedClip[]): Promise<BenchResult> {
  const shared = await loadSilero();
  const W = SILERO_WINDOW_SAMPLES[8000];
  const pcm = clips.map((c) => mulawDecode(c.mulaw, new Int16Array(c.mulaw.length)));
  // The clips end to end, as many as the full run's windows need.
  const picked: Uint8Array[] = [];
  for (let n = 0, i = 0; n < RUN_WINDOWS.full * W && i < clips.length; i++) {
    picked.push(clips[i]!.mulaw);
    n += clips[i]!.mulaw.length;
  }
  const mulaw = concatBytes(picked);
  const audio = mulawDecode(mulaw, new Int16Array(mulaw.length));
  const windows = opts.quick ? RUN_WINDOWS.quick : RUN_WINDOWS.full;
  const at = (k: number): Int16Array => audio.subarray((k * W) % (audio.length - W), ((k * W) % (audio.length - W)) + W);
  const { Tensor } = shared.modules.ort;
  const before = (): void => {
    // silero.ts before: per run, a feeds and a fetches object, the state tensor the runtime returned.
    const data = new Float32Array(32 + W);
    const input = new Tensor('float32', data, [1, data.length]);
    const sr = new Tensor('int64', BigInt64Array.from([8000n]), []);
    let state = new Tensor('float32', new Float32Array(256), [2, 1, 128]);
    for (let k = 0; k < windows; k++) {
      data.copyWithin(0, W);
      const w = at(k);
      for (let i = 0; i < W; i++) data[32 + i] = w[i]! / 32768;
      state = shared.session.run({ input, state, sr }, { output: null, stateN: null }, {})['stateN']!;
    }
  };
  const single = (): void => {
    const v = new SileroVad(shared, 8000);
    for (let k = 0; k < windows; k++) v.process(at(k));
  };
  const batched = (b: number) => (): void => {
    const batch = new SileroBatch();
    const vads = Array.from({ length: b }, () => new SileroVad(shared, 8000));
    for (let k = 0; k < windows; k += b) {
      for (let r = 0; r < b; r++) batch.defer(vads[r]!, at(k + r * 7), null);
      batch.run();
    }
  };
  const contenders: [string, () => void][] = [
    ['before', before],
    ['single', single],
    ...RUN_BATCHES.map((b): [string, () => void] => [`batch ${b}`, batched(b)]),
  ];
  for (const [, f] of contenders) f(); // warm
  const samples = new Map<string, number[]>();
  const rounds = opts.quick ? RUN_ROUNDS.quick : RUN_ROUNDS.full;
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? contenders : [...contenders].reverse();
    for (const [name, f] of order) {
      const t0 = threadCpuMs();
      f();
      const ms = (threadCpuMs() - t0) / windows;
      samples.set(name, [...(samples.get(name) ?? []), ms]);
    }
  }
  const per = (name: string): number => round(median(samples.get(name)!), 4);
  // Batched against one at a time, every window of every clip (groups of 32 clips per run).
  let worst = 0;
  let compared = 0;
  const group = RUN_BATCHES.at(-1)!;
  const batch = new SileroBatch();
  for (let g = 0; g < pcm.length; g += group) {
    const members = pcm
      .slice(g, g + group)
      .map((x) => ({ x, got: [] as number[], alone: new SileroVad(shared, 8000), v: new SileroVad(shared, 8000) }));
    const longest = Math.max(...members.map((m) => m.x.length));
    for (let i = 0; i + W <= longest; i += W) {
      for (const m of members) if (i + W <= m.x.length) batch.defer(m.v, m.x.subarray(i, i + W), (p) => m.got.push(p));
      batch.run();
      for (const m of members) {
        if (i + W > m.x.length) continue;
        worst = Math.max(worst, Math.abs(m.alone.process(m.x.subarray(i, i + W)) - m.got.at(-1)!));
        compared++;
      }
    }
  }
  return {
    scenario: `vad / one Silero run (8 kHz, one thread): per-run overhead and batching across streams`,
    figures: {
      'thread CPU ms per window, run as before': per('before'),
      'one per run, tensors reused': per('single'),
      ...Object.fromEntries(RUN_BATCHES.map((b) => [`batched ${b} streams per run`, per(`batch ${b}`)])),
      'largest |p batched - p alone|': worst,
      'windows compared': compared,
    },
    command: COMMAND,
    notes: `${windows} windows per sample, median of ${rounds} interleaved rounds; load average ${round(loadavg()[0]!, 1)}`,
  };
}
