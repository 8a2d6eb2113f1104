/**
 * The event stage (SSE bytes → audio in the ring): SpeechEventScanner vs the naive pipeline
 * (TextDecoder → eventsource-parser → JSON.parse → Buffer.from) on the same input and splits.
 *
 *   node --expose-gc --import tsx -e "import('./bench/eventStage.bench.ts').then(m=>m.run({quick:false})).then(r=>console.table(r.map(x=>({s:x.scenario,...x.figures}))))"
 *
 * Throughput: best of several passes over the whole input, each pass with a fresh stage.
 * Allocation: a window of events in the middle of a stream (steady state), measured with
 * `v8.GCProfiler` (heap: growth + what each GC freed) and `process.memoryUsage().arrayBuffers`
 * (ArrayBuffer bytes; only windows with no GC count).
 */
import * as v8 from 'node:v8';
import { RingBuffer } from '../src/buffer/RingBuffer.js';
import { SpeechEventScanner } from '../src/events/SpeechEventScanner.js';
import { createNaiveStage } from './naive.js';
import type { BenchOptions, BenchResult } from './types.js';

const AUDIO_BYTES_PER_EVENT = 6144; // 8 KiB of base64
const EVENTS_PER_CHUNK_SEQ = 50;
const WORDS_IN_ALIGNMENT = 200;
const RING_CAPACITY = 1 << 20;
const COMMAND =
  'node --expose-gc --import tsx -e "import(\'./bench/eventStage.bench.ts\').then(m=>m.run({quick:false})).then(r=>console.table(r.map(x=>({s:x.scenario,...x.figures}))))"';

/** mulberry32: a seeded PRNG, so every run sees the same input and splits. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ASCII_TEXT = 'The quick brown fox jumps over the lazy dog while the band plays on the pier at dusk.';
const NON_ASCII_TEXT = 'Grüße aus Köln — naïve café déjà vu; こんにちは世界、音声合成のテストです。Привет, мир!';

interface InputSpec {
  events: number;
  nonAscii: boolean;
  alignment: 'null' | 'repeat200';
}

function buildInput(spec: InputSpec): Buffer {
  const rand = rng(42);
  const audio = Buffer.alloc(AUDIO_BYTES_PER_EVENT);
  const text = spec.nonAscii ? NON_ASCII_TEXT : ASCII_TEXT;
  const parts: string[] = [];
  for (let e = 0; e < spec.events; e++) {
    for (let i = 0; i < audio.length; i++) audio[i] = (rand() * 256) | 0;
    const seq = Math.floor(e / EVENTS_PER_CHUNK_SEQ);
    let alignment: unknown = null;
    if (spec.alignment === 'repeat200') {
      const words = text.split(/\s+/);
      const segments = [];
      for (let w = 0; w < WORDS_IN_ALIGNMENT; w++) {
        segments.push({ text: `${words[w % words.length]!.replace(/[.,;!、。]/g, '')}${seq}`, start: w * 0.25, end: w * 0.25 + 0.2 });
      }
      alignment = { audio_duration: WORDS_IN_ALIGNMENT * 0.25, segments };
    }
    const ev = {
      audio_base64: audio.toString('base64'),
      content: text,
      alignment,
      chunk_seq: seq,
      chunk_audio_offset_sec: seq * 12.345,
    };
    parts.push(`data: ${JSON.stringify(ev)}\n\n`);
  }
  return Buffer.from(parts.join(''));
}

function split(input: Buffer, min: number, max: number, seed: number): Buffer[] {
  const rand = rng(seed);
  const out: Buffer[] = [];
  for (let p = 0; p < input.length; ) {
    const n = min + Math.floor(rand() * (max - min + 1));
    out.push(input.subarray(p, p + n));
    p += n;
  }
  return out;
}

interface Stage {
  feed(chunk: Buffer): void;
  events(): number;
}

function scannerStage(): Stage {
  const ring = new RingBuffer(RING_CAPACITY);
  let events = 0;
  const scanner = new SpeechEventScanner({
    ring,
    onEvent() {
      events++;
    },
  });
  return {
    feed(chunk) {
      let pos = 0;
      while (pos < chunk.length) {
        pos += scanner.feed(chunk, pos);
        ring.consume(ring.length); // the consumer takes everything (frames are cut elsewhere)
      }
    },
    events: () => events,
  };
}

function naiveStage(): Stage {
  const s = createNaiveStage();
  return { feed: (c) => s.feed(c), events: () => s.events };
}

function timePasses(make: () => Stage, chunks: Buffer[], passes: number): { seconds: number; events: number } {
  let best = Infinity;
  let events = 0;
  for (let p = 0; p < passes; p++) {
    const stage = make();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < chunks.length; i++) stage.feed(chunks[i]!);
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (s < best) best = s;
    events = stage.events();
  }
  return { seconds: best, events };
}

const gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc;

/** Heap and ArrayBuffer bytes allocated per event over a steady-state window. */
function allocation(make: () => Stage, chunks: Buffer[]): { heap: number; arrayBuffers: number } {
  const heaps: number[] = [];
  const abs: number[] = [];
  const warm = Math.floor(chunks.length / 4);
  // One full pass first, so that the window measures optimised code (baseline code allocates).
  const warmup = make();
  for (const c of chunks) warmup.feed(c);
  for (let attempt = 0; attempt < 8; attempt++) {
    const stage = make();
    for (let i = 0; i < warm; i++) stage.feed(chunks[i]!);
    const window = chunks.slice(warm, warm + Math.max(1, Math.floor(chunks.length / (8 << Math.min(attempt, 5)))));
    gc?.();
    gc?.(); // the second one lets the first one's ArrayBuffer sweeping finish
    const e0 = stage.events();
    const profiler = new v8.GCProfiler();
    const ab0 = process.memoryUsage().arrayBuffers;
    profiler.start();
    const h0 = v8.getHeapStatistics().used_heap_size;
    // An indexed loop: this function runs unoptimised, and for-of would allocate an iterator
    // result per chunk inside the window.
    for (let i = 0; i < window.length; i++) stage.feed(window[i]!);
    const h1 = v8.getHeapStatistics().used_heap_size;
    const stats = profiler.stop();
    const ab1 = process.memoryUsage().arrayBuffers;
    const events = stage.events() - e0;
    if (events === 0) continue;
    let freed = 0;
    for (const g of stats?.statistics ?? []) freed += g.beforeGC.heapStatistics.usedHeapSize - g.afterGC.heapStatistics.usedHeapSize;
    heaps.push((h1 - h0 + freed) / events);
    if ((stats?.statistics.length ?? 0) === 0) abs.push((ab1 - ab0) / events);
    if (abs.length >= 3) break;
  }
  // The least of the windows: JIT compilation and deopts during a window only ever add to it.
  const least = (xs: number[]): number => (xs.length === 0 ? NaN : Math.min(...xs));
  // ArrayBuffers are freed by a concurrent sweeper after a GC, which can shrink a window's delta:
  // take their median.
  const median = (xs: number[]): number => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
  return { heap: least(heaps), arrayBuffers: Math.max(0, median(abs)) };
}

interface Scenario {
  label: string;
  input: InputSpec;
  min: number;
  max: number;
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const events = opts.quick ? 120 : 1000;
  const passes = opts.quick ? 1 : 10;
  const scenarios: Scenario[] = [
    { label: '8 KiB events, ASCII, null alignment / 1–4000 B splits', input: { events, nonAscii: false, alignment: 'null' }, min: 1, max: 4000 },
    // Fewer events at 1–64 B: ~250 chunks per event makes each pass long.
    { label: '8 KiB events, ASCII, null alignment / 1–64 B splits', input: { events: Math.ceil(events / 3), nonAscii: false, alignment: 'null' }, min: 1, max: 64 },
    { label: '8 KiB events, ASCII, null alignment / 16–64 KiB splits', input: { events, nonAscii: false, alignment: 'null' }, min: 16384, max: 65536 },
    { label: '8 KiB events, non-ASCII, null alignment / 1–4000 B splits', input: { events, nonAscii: true, alignment: 'null' }, min: 1, max: 4000 },
    { label: '8 KiB events, 200-word alignment repeated / 1–4000 B splits', input: { events, nonAscii: false, alignment: 'repeat200' }, min: 1, max: 4000 },
    { label: '8 KiB events, non-ASCII, 200-word alignment repeated / 1–4000 B splits', input: { events, nonAscii: true, alignment: 'repeat200' }, min: 1, max: 4000 },
  ];
  const results: BenchResult[] = [];
  for (const sc of scenarios) {
    const input = buildInput(sc.input);
    const chunks = split(input, sc.min, sc.max, 7);
    const mb = input.length / 1e6;
    // Alternate the two, best of each: on a shared machine, load comes and goes.
    let fast = { seconds: Infinity, events: 0 };
    let naive = { seconds: Infinity, events: 0 };
    for (let p = 0; p < passes; p++) {
      const f = timePasses(scannerStage, chunks, 1);
      const n = timePasses(naiveStage, chunks, 1);
      if (f.seconds < fast.seconds) fast = f;
      if (n.seconds < naive.seconds) naive = n;
    }
    if (fast.events !== naive.events) throw new Error(`event count differs: ${fast.events} vs ${naive.events}`);
    const fa = allocation(scannerStage, chunks);
    const na = allocation(naiveStage, chunks);
    const speedup = naive.seconds / fast.seconds;
    const allocRatio = (fa.heap + fa.arrayBuffers) / (na.heap + na.arrayBuffers);
    results.push({
      scenario: `event stage / ${sc.label}`,
      figures: {
        'scanner MB/s': Math.round(mb / fast.seconds),
        'naive MB/s': Math.round(mb / naive.seconds),
        'scanner events/s': Math.round(fast.events / fast.seconds),
        'naive events/s': Math.round(naive.events / naive.seconds),
        'scanner heap B/event': Math.round(fa.heap),
        'naive heap B/event': Math.round(na.heap),
        'scanner ArrayBuffer B/event': Math.round(fa.arrayBuffers),
        'naive ArrayBuffer B/event': Math.round(na.arrayBuffers),
        'speedup ×': Number(speedup.toFixed(2)),
        'alloc ratio': Number(allocRatio.toFixed(3)),
      },
      anchor: 'naive pipeline (TextDecoder → eventsource-parser → JSON.parse → Buffer.from)',
      ratio: Number(speedup.toFixed(2)),
      target: '≥ 3× naive throughput and ≤ ¼ of its allocation per event',
      met: opts.quick ? undefined : speedup >= 3 && allocRatio <= 0.25,
      command: COMMAND,
      notes: `${sc.input.events} events, ${mb.toFixed(1)} MB${gc ? '' : ' (no --expose-gc: allocation figures are noisy)'}`,
    });
  }
  return results;
}
