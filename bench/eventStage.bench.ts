/**
 * Scenario 1, the event stage (SSE bytes → audio in the ring): SpeechEventScanner against the
 * naive pipeline (TextDecoder → eventsource-parser → JSON.parse → Buffer.from, bench/naive.ts) on
 * the same input and the same splits.
 *
 *   npm run bench -- eventStage
 *
 * - Throughput (MB/s of SSE body, events/s): the two stages side by side in alternating rounds
 *   (bench/lib/measure.ts `interleave`, process CPU clock: all threads), each pass over the whole input with a fresh
 *   stage; the ratio is the median of the per-round ratios.
 * - Allocation per event, steady state (bench/lib/alloc.ts): heap (growth + what GCs freed) and
 *   ArrayBuffer bytes, over a window in the middle of a long stream. Three alignment kinds, each
 *   its own input: null; a 200-word snapshot repeated byte for byte (one chunk_seq, so every event
 *   in the window is a repeat); a 200-word snapshot that changes on every event (reported apart:
 *   it may allocate in proportion to its size).
 * - Real captures (test/fixtures/captures/real, recorded from the local service): opus and pcm in
 *   1460 B and 16 KiB reads, with the share of events the scanner read on its fast path.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_RING_CAPACITY, INITIAL_RING_BYTES, RingBuffer } from '../src/buffer/RingBuffer.js';
import { SpeechEventScanner } from '../src/events/SpeechEventScanner.js';
import { allocationPerUnit, type AllocationProbe } from './lib/alloc.js';
import { interleave } from './lib/measure.js';
import { round } from './lib/stats.js';
import { createNaiveStage } from './naive.js';
import type { BenchOptions, BenchResult } from './types.js';
import { seededRandom as rng } from '../test/support/rng.js';

const AUDIO_BYTES_PER_EVENT = 6144; // 8 KiB of base64
const EVENTS_PER_CHUNK_SEQ = 50;
const WORDS_IN_ALIGNMENT = 200;
/** The synthetic rows' earlier target: reported beside them, no longer judged (issue 21). */
const SYNTHETIC_SPEEDUP = 5;
/** Issue 21: on real captures, at 1460 B and 16 KiB reads, the stage is ≥ 4× the naive one. */
const REAL_SPEEDUP_TARGET = 4;
/** Whole passes of each contender before the timed rounds. With `interleave`'s default of 3, the
 * first row measured (1–64 B reads) read ~10 % low in two processes out of three (3.83 and 3.85×
 * against 4.15–4.31× for the same row measured again in the same process); with 12 the first
 * measurement matched the later ones (4.15–4.23 against 4.14–4.37×). */
const WARMUP_PASSES = 12;
const QUICK_WARMUP_PASSES = 3;
const HEAP_TARGET_BYTES = 1024;
const COMMAND = 'npm run bench -- eventStage';

const ASCII_TEXT = 'The quick brown fox jumps over the lazy dog while the band plays on the pier at dusk.';
const NON_ASCII_TEXT = 'Grüße aus Köln — naïve café déjà vu; こんにちは世界、音声合成のテストです。Привет, мир!';

type AlignmentKind = 'null' | 'repeat200' | 'changed200';

interface InputSpec {
  events: number;
  nonAscii: boolean;
  alignment: AlignmentKind;
  /** Events per chunk_seq (a new snapshot at the start of each). */
  perChunk?: number;
}

function snapshot(text: string, seq: number, shift: number): unknown {
  const words = text.split(/\s+/);
  const segments = [];
  for (let w = 0; w < WORDS_IN_ALIGNMENT; w++) {
    const start = w * 0.25 + shift;
    segments.push({
      text: `${words[w % words.length]!.replace(/[.,;!、。]/g, '')}${seq}`,
      start: +start.toFixed(3),
      end: +(start + 0.2).toFixed(3),
    });
  }
  return { audio_duration: +(WORDS_IN_ALIGNMENT * 0.25 + shift).toFixed(3), segments };
}

function buildInput(spec: InputSpec): Buffer {
  const rand = rng(42);
  const audio = Buffer.alloc(AUDIO_BYTES_PER_EVENT);
  const text = spec.nonAscii ? NON_ASCII_TEXT : ASCII_TEXT;
  const perChunk = spec.perChunk ?? EVENTS_PER_CHUNK_SEQ;
  const parts: string[] = [];
  for (let e = 0; e < spec.events; e++) {
    for (let i = 0; i < audio.length; i++) audio[i] = (rand() * 256) | 0;
    const seq = Math.floor(e / perChunk);
    const alignment = spec.alignment === 'null' ? null : snapshot(text, seq, spec.alignment === 'changed200' ? (e % perChunk) * 0.001 : 0);
    const ev = { audio_base64: audio.toString('base64'), content: text, alignment, chunk_seq: seq, chunk_audio_offset_sec: seq * 12.345 };
    parts.push(`data: ${JSON.stringify(ev)}\n\n`);
  }
  return Buffer.from(parts.join(''));
}

function split(input: Buffer, min: number, max: number, seed: number): Buffer[] {
  const rand = rng(seed);
  const out: Buffer[] = [];
  for (let p = 0; p < input.length;) {
    const n = min + Math.floor(rand() * (max - min + 1));
    out.push(input.subarray(p, p + n));
    p += n;
  }
  return out;
}

interface Stage {
  feed(chunk: Buffer): void;
  events(): number;
  /** Events the scanner read on its fast path (the naive stage has none). */
  fastEvents(): number;
}

/**
 * The scanner as `SpeechPipeline` drives it: the same ring (64 KiB that grows on demand up to
 * 1 MiB, not an eager 1 MiB per stream), the same entry point (`feed(chunk, offset)` until the
 * chunk is taken), and a consumer that reads each event's audio (one byte of it, as the naive side
 * reads its Buffer) and takes everything (frames are cut elsewhere).
 */
function scannerStage(): Stage {
  const ring = new RingBuffer(DEFAULT_RING_CAPACITY, INITIAL_RING_BYTES);
  let events = 0;
  let checksum = 0;
  const scanner = new SpeechEventScanner({
    ring,
    onEvent(meta) {
      // This event's audio is the ring's last audioBytes readable bytes (the consumer drains the
      // ring after every feed, so none of it was taken yet).
      if (meta.audioBytes > 0 && ring.length >= meta.audioBytes) {
        const storage = ring.buffer;
        const at = ring.readIndex + ring.length - meta.audioBytes;
        checksum ^= storage[at >= storage.length ? at - storage.length : at]!;
      }
      events++;
    },
  });
  return {
    feed(chunk) {
      let pos = 0;
      while (pos < chunk.length) {
        pos += scanner.feed(chunk, pos);
        ring.consume(ring.length);
      }
    },
    events: () => events + (checksum & 0),
    fastEvents: () => scanner.pathCounts.fast,
  };
}

function naiveStage(): Stage {
  const s = createNaiveStage();
  return { feed: (c) => s.feed(c), events: () => s.events, fastEvents: () => 0 };
}

function wholePass(make: () => Stage, chunks: Buffer[]): number {
  return feedAll(make, chunks).events();
}

function feedAll(make: () => Stage, chunks: Buffer[]): Stage {
  const stage = make();
  for (const c of chunks) stage.feed(c);
  return stage;
}

function probe(make: () => Stage, chunks: Buffer[]): () => AllocationProbe {
  return () => {
    const stage = make();
    let i = 0;
    return {
      step() {
        const before = stage.events();
        stage.feed(chunks[i++ % chunks.length]!);
        return stage.events() - before;
      },
    };
  };
}

interface Scenario {
  label: string;
  input: InputSpec;
  min: number;
  max: number;
}

const SPLITS: [string, number, number][] = [
  ['1–64 B splits', 1, 64],
  ['1–4000 B splits', 1, 4000],
  ['16–64 KiB splits', 16384, 65536],
];

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const events = opts.quick ? 120 : 600;
  const rounds = opts.quick ? 2 : 6;
  const minSampleMs = opts.quick ? 20 : 200;
  const warmup = opts.quick ? QUICK_WARMUP_PASSES : WARMUP_PASSES;
  const scenarios: Scenario[] = [];
  for (const [label, min, max] of SPLITS) {
    scenarios.push({
      label: `8 KiB events, ASCII, null alignment / ${label}`,
      input: { events, nonAscii: false, alignment: 'null' },
      min,
      max,
    });
    scenarios.push({
      label: `8 KiB events, non-ASCII, null alignment / ${label}`,
      input: { events, nonAscii: true, alignment: 'null' },
      min,
      max,
    });
  }
  scenarios.push({
    label: '8 KiB events, ASCII, 200-word snapshot repeated / 1–4000 B splits',
    input: { events, nonAscii: false, alignment: 'repeat200' },
    min: 1,
    max: 4000,
  });
  scenarios.push({
    label: '8 KiB events, non-ASCII, 200-word snapshot repeated / 1–64 B splits',
    input: { events, nonAscii: true, alignment: 'repeat200' },
    min: 1,
    max: 64,
  });
  scenarios.push({
    label: '8 KiB events, non-ASCII, 200-word snapshot repeated / 16–64 KiB splits',
    input: { events, nonAscii: true, alignment: 'repeat200' },
    min: 16384,
    max: 65536,
  });

  const results: BenchResult[] = [];
  for (const sc of scenarios) {
    const input = buildInput(sc.input);
    const chunks = split(input, sc.min, sc.max, 7);
    const mb = input.length / 1e6;
    const check = [wholePass(scannerStage, chunks), wholePass(naiveStage, chunks)];
    if (check[0] !== check[1] || check[0] !== sc.input.events) throw new Error(`event count differs: ${check.join(' vs ')}`);
    const t = await interleave(
      [
        { name: 'naive', run: () => wholePass(naiveStage, chunks) },
        { name: 'scanner', run: () => wholePass(scannerStage, chunks) },
      ],
      { rounds, minSampleMs, clock: 'cpu', warmup },
    );
    // Allocation: one chunk_seq for the whole stream, so after the first event every snapshot in
    // the window is a byte-identical repeat (or every one null).
    const allocInput = split(buildInput({ ...sc.input, perChunk: sc.input.events }), sc.min, sc.max, 11);
    const steps = allocInput.length;
    const allocOpts = { warmSteps: Math.floor(steps / 4), windowSteps: Math.max(1, Math.floor(steps / 2)) };
    const fa = await allocationPerUnit(probe(scannerStage, allocInput), allocOpts);
    const na = await allocationPerUnit(probe(naiveStage, allocInput), allocOpts);
    const speedup = 1 / t.ratio['scanner']!;
    results.push({
      scenario: `event stage / ${sc.label}`,
      figures: {
        'scanner MB/s': Math.round(mb / (t.ms['scanner']! / 1000)),
        'naive MB/s': Math.round(mb / (t.ms['naive']! / 1000)),
        'scanner events/s': Math.round(sc.input.events / (t.ms['scanner']! / 1000)),
        'naive events/s': Math.round(sc.input.events / (t.ms['naive']! / 1000)),
        'scanner heap B/event': Math.round(fa.heapPerUnit),
        'scanner ArrayBuffer B/event': round(fa.arrayBuffersPerUnit, 1),
        'naive heap B/event': Math.round(na.heapPerUnit),
        'naive ArrayBuffer B/event': round(na.arrayBuffersPerUnit, 1),
      },
      anchor: 'naive (throughput)',
      ratio: round(speedup, 2),
      // Synthetic inputs: reported, no verdict (the real-capture rows below carry the targets).
      target: `synthetic: reported only (was ≥ ${SYNTHETIC_SPEEDUP}×; the real rows are judged)`,
      command: COMMAND,
      issueScenario: 1,
      notes:
        `${sc.input.events} events, ${mb.toFixed(1)} MB; ` +
        `speedup range over ${t.rounds} rounds ${(1 / t.ratioRange['scanner']![1]).toFixed(2)}` +
        `–${(1 / t.ratioRange['scanner']![0]).toFixed(2)}×; process CPU clock (all threads)`,
    });
  }

  // A snapshot that changes on every event: allocation in proportion to its size, reported apart.
  for (const nonAscii of [false, true]) {
    const input = buildInput({ events, nonAscii, alignment: 'changed200', perChunk: events });
    const chunks = split(input, 1, 4000, 13);
    const snapshotBytes = JSON.stringify(snapshot(nonAscii ? NON_ASCII_TEXT : ASCII_TEXT, 0, 0.001)).length;
    const allocOpts = { warmSteps: Math.floor(chunks.length / 4), windowSteps: Math.max(1, Math.floor(chunks.length / 2)) };
    const fa = await allocationPerUnit(probe(scannerStage, chunks), allocOpts);
    const na = await allocationPerUnit(probe(naiveStage, chunks), allocOpts);
    const t = await interleave(
      [
        { name: 'naive', run: () => wholePass(naiveStage, chunks) },
        { name: 'scanner', run: () => wholePass(scannerStage, chunks) },
      ],
      { rounds, minSampleMs, clock: 'cpu', warmup },
    );
    results.push({
      scenario:
        `event stage / 8 KiB events, ${nonAscii ? 'non-ASCII' : 'ASCII'}, ` + `200-word snapshot CHANGED on every event / 1–4000 B splits`,
      figures: {
        'scanner heap B/event': Math.round(fa.heapPerUnit),
        'scanner heap B per snapshot byte': round(fa.heapPerUnit / snapshotBytes, 2),
        'scanner ArrayBuffer B/event': round(fa.arrayBuffersPerUnit, 1),
        'naive heap B/event': Math.round(na.heapPerUnit),
        'snapshot JSON bytes': snapshotBytes,
        'scanner MB/s': Math.round(input.length / 1e6 / (t.ms['scanner']! / 1000)),
        'naive MB/s': Math.round(input.length / 1e6 / (t.ms['naive']! / 1000)),
      },
      anchor: 'naive (throughput)',
      ratio: round(1 / t.ratio['scanner']!, 2),
      command: COMMAND,
      issueScenario: 1,
      notes: 'changed snapshots are parsed (they must be): allocation in proportion to the snapshot, no target',
    });
  }
  results.push(...(await realCaptureRows(rounds, minSampleMs, warmup, opts.quick)));
  return results;
}

/** Real captures from the local service (test/fixtures/captures/real; README there). */
const REAL_CAPTURES: [string, string][] = [
  ['opus', 'opus-normal-long.sse'],
  ['pcm', 'pcm-normal-short.sse'],
];
const REAL_READS: [string, number][] = [
  ['1460 B reads', 1460],
  ['16 KiB reads', 16384],
];
/** Passes over a capture before the allocation window (a capture is ~470 events). */
const REAL_ALLOC_WARM_PASSES = 4;

/**
 * The stage on SSE bodies recorded from the local service: real chunking, cumulative snapshots
 * that change on about a third of the events, text with escapes. Reads of one size (a TCP
 * segment's payload, a socket read). Reported with the share of events on the fast path; these
 * rows carry the scenario's targets (issue 21: ≥ 4× the naive stage, ≤ 1 KiB heap and 0
 * ArrayBuffer bytes per event), the synthetic rows above are reported only.
 */
async function realCaptureRows(rounds: number, minSampleMs: number, warmup: number, quick: boolean): Promise<BenchResult[]> {
  const rows: BenchResult[] = [];
  for (const [format, file] of REAL_CAPTURES) {
    const body = readFileSync(fileURLToPath(new URL(`../test/fixtures/captures/real/${file}`, import.meta.url)));
    for (const [label, size] of REAL_READS) {
      const chunks: Buffer[] = [];
      for (let p = 0; p < body.length; p += size) chunks.push(body.subarray(p, Math.min(p + size, body.length)));
      const once = feedAll(scannerStage, chunks);
      const events = once.events();
      if (events !== wholePass(naiveStage, chunks)) throw new Error(`${file}: event count differs`);
      const t = await interleave(
        [
          { name: 'naive', run: () => wholePass(naiveStage, chunks) },
          { name: 'scanner', run: () => wholePass(scannerStage, chunks) },
        ],
        { rounds, minSampleMs, clock: 'cpu', warmup },
      );
      const allocOpts = { warmSteps: REAL_ALLOC_WARM_PASSES * chunks.length, windowSteps: chunks.length };
      const fa = await allocationPerUnit(probe(scannerStage, chunks), allocOpts);
      const mb = body.length / 1e6;
      rows.push({
        scenario: `event stage / real: ${format} capture, ${label}`,
        figures: {
          'fast-path share': round(once.fastEvents() / events, 4),
          'scanner MB/s': Math.round(mb / (t.ms['scanner']! / 1000)),
          'naive MB/s': Math.round(mb / (t.ms['naive']! / 1000)),
          'scanner events/s': Math.round(events / (t.ms['scanner']! / 1000)),
          'scanner heap B/event': Math.round(fa.heapPerUnit),
          'scanner ArrayBuffer B/event': round(fa.arrayBuffersPerUnit, 1),
        },
        anchor: 'naive (throughput)',
        ratio: round(1 / t.ratio['scanner']!, 2),
        target: `≥ ${REAL_SPEEDUP_TARGET}× naive throughput; ≤ 1 KiB heap and 0 ArrayBuffer B per event`,
        ...(quick
          ? {}
          : {
              met: 1 / t.ratio['scanner']! >= REAL_SPEEDUP_TARGET && fa.heapPerUnit <= HEAP_TARGET_BYTES && fa.arrayBuffersPerUnit === 0,
            }),
        command: COMMAND,
        issueScenario: 1,
        notes:
          `${file}: ${events} events, ${mb.toFixed(2)} MB; speedup range over ${t.rounds} rounds ` +
          `${(1 / t.ratioRange['scanner']![1]).toFixed(2)}–${(1 / t.ratioRange['scanner']![0]).toFixed(2)}×; ` +
          'process CPU clock (all threads)',
      });
    }
  }
  return rows;
}
