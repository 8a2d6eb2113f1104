/**
 * Scenario 2, decode overhead per format: the engine's CPU per second of audio (SSE body →
 * SpeechPipeline → 20 ms PCM frames read) against the raw codec decoding the same audio directly,
 * side by side in alternating rounds on the process CPU clock (all threads: GC and compiler
 * threads included; bench/lib/measure.ts), with no forced GC anywhere in the timed or warm-up runs.
 *
 *   npm run bench -- decodeOverhead
 *
 * Inputs, "real:" rows (the verdict): SSE bodies recorded from the local service at start-up
 * (bench/lib/realCapture.ts: a 738-character text, ~41 s, for opus and mp3; a short one for pcm
 * and wav), with the service's own paging and changing alignment snapshots, fed to the engine
 * (and to the naive pipeline) in the reads a client meets: 1460 B (a TCP segment) and 16–64 KiB
 * (undici's body chunks), each write waiting for `drain` as a piped body does. "synthetic:" rows
 * are the looped fixtures of formatInputs.ts, whole body in one write, kept for comparison.
 *
 * The raw anchors, each handed the bare audio event by event as a streaming decoder would be:
 * - ogg-opus: libopus (@discordjs/opus, the engine's backend) on each packet (no Ogg parsing);
 * - mp3: mpg123-decoder (wasm) `decode()` on each event's bytes (a fresh decoder per stream);
 *   beside it, the same wasm fed directly without the wrapper's per-frame copies ("wasm direct",
 *   as the engine drives it): the codec's own floor;
 * - pcm / wav: no codec at all, so the anchor is the least any pipeline must do with base64
 *   audio: decode each event's base64 and copy it into 20 ms Int16Array frames.
 * Also for opus: what a user would otherwise pick, the naive event stage (eventsource-parser →
 * JSON.parse → Buffer.from) → prism-media OggDemuxer → prism opus.Decoder (the same libopus).
 */
import { once } from 'node:events';
import { MPEGDecoder } from 'mpg123-decoder';
import prism from 'prism-media';
import { createOpusPacketDecoder } from '../src/codec/opus/backend.js';
import { directMpg123 } from '../src/codec/mp3/mpg123Direct.js';
import { createSpeechPipeline } from '../src/engine/SpeechPipeline.js';
import { formatInputs, type FormatInput } from './lib/formatInputs.js';
import { interleave, type Contender } from './lib/measure.js';
import { sliceReads, tcpReads, undiciReads } from './lib/readSizes.js';
import { describeCapture, LONG_TEXT, recordCaptures, SHORT_TEXT, type RealCapture } from './lib/realCapture.js';
import { round } from './lib/stats.js';
import { createNaiveStage } from './naive.js';
import type { BenchOptions, BenchResult } from './types.js';

const COMMAND = 'npm run bench -- decodeOverhead';
const TARGET_RATIO = 1.1;
/**
 * Ogg Opus must also be measurably cheaper than the naive pipeline (issue 21): at most this
 * fraction of its CPU. 5 % because the medians of the same tree move by ~2 % between runs.
 */
const TARGET_VS_NAIVE = 0.95;
const FRAME_MS = 20;
const OPUS_FRAME_SAMPLES = 960;
/**
 * Rounds of the second interleave, the engine beside the extra contender (prism, or mp3's wasm
 * direct): a figure reported, not a verdict. It is kept apart from the engine-vs-anchor rounds
 * because a third contender in the same rounds moved the engine's ratio: the Ogg Opus 20 ms-page
 * row, same tree, measured 1.089–1.093× raw in three runs of [raw, engine] and 1.106–1.119× in
 * three of [raw, engine, prism] (2026-11-25; a Transform-stream-only third contender did the
 * same, 1.110×, a JSON-and-Buffer-only one did not, 1.089×).
 */
const EXTRA_ROUNDS = 9;

/**
 * The engine: the SSE body written read by read (waiting for `drain` when a write says so, as a
 * piped response body does), every frame read.
 */
async function engine(input: FormatInput, reads: Buffer[]): Promise<number> {
  const p = createSpeechPipeline({ format: input.format, ...(input.format === 'pcm' ? { sampleRate: input.sampleRate } : {}) });
  let samples = 0;
  p.on('data', (f: { sampleCount: number }) => (samples += f.sampleCount));
  const ended = once(p, 'end');
  for (const r of reads) if (!p.write(r)) await once(p, 'drain');
  p.end();
  await ended;
  return samples;
}

function rawOpus(input: FormatInput): number {
  const dec = createOpusPacketDecoder(input.sampleRate, input.channels, 'native');
  let n = 0;
  for (const page of input.packets!) for (const packet of page) n += dec.decode(packet).length;
  dec.free();
  return n;
}

/**
 * The codec floor for mp3: the same wasm driven without MPEGDecoder.decode()'s per-frame copies
 * (src/codec/mp3/mpg123Direct.ts, what the engine does). Reported beside the anchor, not instead
 * of it: the engine can beat the anchor by skipping the wrapper, never this floor.
 */
async function rawMp3Direct(input: FormatInput): Promise<number> {
  const dec = new MPEGDecoder();
  await dec.ready;
  const direct = directMpg123(dec)!;
  let n = 0;
  const onFrame = (_heap: Float32Array, samples: number): void => {
    n += samples;
  };
  for (const p of input.payloads) direct.decode(p, onFrame, () => undefined);
  dec.free();
  return n;
}

async function rawMp3(input: FormatInput): Promise<number> {
  const dec = new MPEGDecoder();
  await dec.ready;
  let n = 0;
  for (const p of input.payloads) n += dec.decode(p).samplesDecoded;
  dec.free();
  return n;
}

/** base64 → bytes → 20 ms Int16Array frames: the floor for any pipeline carrying PCM in JSON. */
function rawPcm(input: FormatInput, b64: string[], headerBytes: number): number {
  const frameBytes = ((input.sampleRate * FRAME_MS) / 1000) * input.channels * 2;
  const carry = new Uint8Array(frameBytes);
  let fill = 0;
  let frames = 0;
  let skip = headerBytes;
  for (const s of b64) {
    const bytes = Buffer.from(s, 'base64');
    let at = Math.min(skip, bytes.length);
    skip -= at;
    while (at < bytes.length) {
      const n = Math.min(frameBytes - fill, bytes.length - at);
      carry.set(bytes.subarray(at, at + n), fill);
      fill += n;
      at += n;
      if (fill === frameBytes) {
        const frame = new Int16Array(frameBytes / 2);
        new Uint8Array(frame.buffer).set(carry);
        frames += frame.length > 0 ? 1 : 0;
        fill = 0;
      }
    }
  }
  return frames;
}

/** What a user would write: naive SSE → prism OggDemuxer → prism opus.Decoder. */
async function prismOpus(input: FormatInput, reads: Buffer[]): Promise<number> {
  const demuxer = new prism.opus.OggDemuxer();
  const decoder = new prism.opus.Decoder({ rate: input.sampleRate, channels: input.channels, frameSize: OPUS_FRAME_SAMPLES });
  let bytes = 0;
  decoder.on('data', (b: Buffer) => (bytes += b.length));
  const ended = once(decoder, 'end');
  demuxer.pipe(decoder);
  const naive = createNaiveStage({ onAudio: (audio) => demuxer.write(audio) });
  for (const r of reads) naive.feed(r);
  demuxer.end();
  await ended;
  return bytes;
}

interface Row {
  input: FormatInput;
  kind: 'real' | 'synthetic';
  /** The body as the engine gets it. */
  reads: Buffer[];
  readLabel: string;
  /** What the input is, for the notes. */
  source: string;
  rounds: number;
  /** Whether to run the third-contender comparison (prism / wasm direct). */
  extra: boolean;
}

const SYNTHETIC_ROUNDS = 9;

function rowsFor(captures: RealCapture[], synthetic: FormatInput[], quick: boolean, rounds: number): Row[] {
  const rows: Row[] = [];
  for (const c of captures) {
    const plans = c.format === 'opus' || c.format === 'mp3' ? [tcpReads(), undiciReads()] : [undiciReads()];
    for (const plan of plans) {
      rows.push({
        input: c,
        kind: 'real',
        reads: sliceReads(c.body, plan),
        readLabel: plan.label,
        source: `captured from the local service: ${describeCapture(c)}`,
        rounds,
        extra: c.format === 'opus' || c.format === 'mp3',
      });
    }
  }
  for (const input of synthetic) {
    rows.push({
      input,
      kind: 'synthetic',
      reads: [input.body],
      readLabel: 'whole body in one write',
      source: 'looped fixture, alignment null',
      rounds: quick ? rounds : SYNTHETIC_ROUNDS,
      extra: false,
    });
  }
  return rows;
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const seconds = opts.quick ? 3 : 20;
  // 25 rounds: the per-round ratio moves ±10 % on this shared machine, and the verdict is on its
  // median. With 15, the median itself moved by ±2–3 % between runs of the same tree (mp3 1.08–1.11,
  // opus 1.09–1.12 on 2026-11-25): more than the distance of those rows from the 1.10 target.
  const rounds = opts.quick ? 2 : 25;
  const extraRounds = opts.quick ? 2 : EXTRA_ROUNDS;
  const minSampleMs = opts.quick ? 20 : 250;
  const results: BenchResult[] = [];
  // A quick run records the short text in every format (the long one takes ~15 s to synthesize
  // on a loaded 2-core machine); a full run the long text for opus and mp3.
  const long = opts.quick ? SHORT_TEXT : LONG_TEXT;
  const captures = await recordCaptures([
    { format: 'opus', text: long },
    { format: 'mp3', text: long },
    { format: 'pcm', text: SHORT_TEXT },
    { format: 'wav', text: SHORT_TEXT },
  ]);
  // Synthetic rows: the quick run keeps one, as a smoke test of the path.
  const synthetic = opts.quick ? [formatInputs(seconds)[3]!] : formatInputs(seconds);
  for (const row of rowsFor(captures, synthetic, opts.quick, rounds)) {
    const { input, reads } = row;
    let raw: Contender;
    if (input.format === 'opus') raw = { name: 'raw', run: () => rawOpus(input) };
    else if (input.format === 'mp3') raw = { name: 'raw', run: () => rawMp3(input) };
    else {
      const b64 = input.payloads.map((p) => Buffer.from(p).toString('base64'));
      raw = { name: 'raw', run: () => rawPcm(input, b64, input.format === 'wav' ? 44 : 0) };
    }
    const eng: Contender = { name: 'engine', run: () => engine(input, reads) };
    // The verdict: the engine and its anchor alone, so no third contender's leftovers land in
    // their samples (see EXTRA_ROUNDS).
    const t = await interleave([raw, eng], { rounds: row.rounds, minSampleMs, clock: 'cpu' });
    const extra: Contender | null = !row.extra
      ? null
      : input.format === 'opus'
        ? { name: 'prism', run: () => prismOpus(input, reads) }
        : input.format === 'mp3'
          ? { name: 'wasmDirect', run: () => rawMp3Direct(input) }
          : null;
    const x = extra === null ? null : await interleave([raw, eng, extra], { rounds: extraRounds, minSampleMs, clock: 'cpu' });
    const perSec = (name: string): number => round((name in t.ms ? t.ms[name]! : x!.ms[name]!) / input.audioSec, 4);
    const ratio = t.ratio['engine']!;
    const vsNaive = input.format === 'opus' && x !== null ? x.ratio['engine']! / x.ratio['prism']! : null;
    const rate = `${input.sampleRate / 1000} kHz`;
    const label =
      input.format === 'opus'
        ? `ogg-opus 48 kHz mono${row.kind === 'synthetic' ? `, ${(input.packetsPerPage ?? 1) * FRAME_MS} ms pages` : ''}`
        : input.format === 'mp3'
          ? `mp3 ${rate} mono${row.kind === 'synthetic' ? ' 64 kb/s' : ''}`
          : `${input.format} ${rate} mono s16le`;
    const anchor =
      input.format === 'opus'
        ? 'raw libopus per packet'
        : input.format === 'mp3'
          ? 'raw mpg123 per event'
          : 'base64 decode + copy into 20 ms frames';
    results.push({
      scenario:
        `${row.kind}: decode overhead / ${label} / ` +
        `${input.audioSec.toFixed(1)} s in ${input.events.length} SSE events / ${row.readLabel}`,
      figures: {
        'engine CPU ms/audio s': perSec('engine'),
        'raw CPU ms/audio s': perSec('raw'),
        'engine × real time': Math.round(1000 / perSec('engine')),
        ...(input.format === 'opus' && x !== null
          ? { 'prism CPU ms/audio s': perSec('prism'), 'engine vs prism ×': round(x!.ratio['engine']! / x!.ratio['prism']!, 3) }
          : {}),
        ...(input.format === 'mp3' && x !== null
          ? {
              'mpg123 wasm direct CPU ms/audio s': perSec('wasmDirect'),
              'engine vs wasm direct ×': round(x!.ratio['engine']! / x!.ratio['wasmDirect']!, 3),
            }
          : {}),
      },
      anchor,
      ratio: round(ratio, 3),
      target: `≤ ${TARGET_RATIO}× the raw codec${vsNaive !== null ? `, and ≤ ${TARGET_VS_NAIVE}× the naive pipeline's CPU` : ''}`,
      // Every target is judged on the real rows; the synthetic ones are reported only.
      ...(opts.quick || row.kind === 'synthetic' ? {} : { met: ratio <= TARGET_RATIO && (vsNaive === null || vsNaive <= TARGET_VS_NAIVE) }),
      command: COMMAND,
      issueScenario: 2,
      notes:
        `${row.source}; ratio = median of ${t.rounds} per-round ratios (range ${t.ratioRange['engine']!.join('–')}); ` +
        `process CPU clock (all threads), no forced GC` +
        (input.format === 'opus' && x !== null
          ? `; prism = naive SSE → OggDemuxer → opus.Decoder, ${round(x!.ratio['prism']!, 3)}× raw`
          : '') +
        (input.format === 'mp3' && x !== null
          ? `; the engine drives mpg123's wasm without MPEGDecoder.decode()'s copies: ` +
            `"wasm direct" (${round(x!.ratio['wasmDirect']!, 3)}× raw) is that floor`
          : '') +
        (x === null ? '' : `; that comparison in ${x.rounds} rounds of its own, the three side by side`),
    });
  }
  return results;
}
