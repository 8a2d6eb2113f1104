/**
 * The event stage on the real captures (test/fixtures/captures/real): speed against the naive
 * pipeline in 1460 B and 16 KiB reads, the share of fast-path events, and heap / ArrayBuffer bytes
 * per event in steady state (gc only outside the measured window).
 *
 *   node --expose-gc --import tsx bench/realCaptures.ab.ts [rounds]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_RING_CAPACITY, INITIAL_RING_BYTES, RingBuffer } from '../src/buffer/RingBuffer.js';
import { SpeechEventScanner } from '../src/events/SpeechEventScanner.js';
import { allocationPerUnit, type AllocationProbe } from './lib/alloc.js';
import { interleave } from './lib/measure.js';
import { round } from './lib/stats.js';
import { createNaiveStage } from './naive.js';

const DIR = join(import.meta.dirname, '..', 'test', 'fixtures', 'captures', 'real');
const READS = [1460, 16384];
const ROUNDS = Number(process.argv[2] ?? 5);
/** Passes over a capture before the allocation window (about 2 000 events). */
const ALLOC_WARM_PASSES = 4;

interface Stage {
  feed(chunk: Buffer): void;
  events(): number;
  fast(): number;
}

function scannerStage(): Stage {
  const ring = new RingBuffer(DEFAULT_RING_CAPACITY, INITIAL_RING_BYTES);
  let events = 0;
  const scanner = new SpeechEventScanner({ ring, onEvent: () => void events++ });
  return {
    feed(chunk) {
      for (let pos = 0; pos < chunk.length; ) {
        pos += scanner.feed(chunk, pos);
        ring.consume(ring.length);
      }
    },
    events: () => events,
    fast: () => scanner.pathCounts.fast,
  };
}

function naiveStage(): Stage {
  const s = createNaiveStage();
  return { feed: (c) => s.feed(c), events: () => s.events, fast: () => 0 };
}

function pass(make: () => Stage, chunks: Buffer[]): Stage {
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

/** Words a snapshot adds or changes against the previous one of its chunk (0 for a repeat). */
function newWordsPerEvent(body: Buffer): number {
  let prev: { text: string; start: number; end: number }[] = [];
  let prevSeq = -1;
  let words = 0;
  const lines = body.toString('utf8').split('\n').filter((l) => l.startsWith('data: '));
  for (const l of lines) {
    const e = JSON.parse(l.slice(6)) as { chunk_seq: number; alignment: { segments: typeof prev } | null };
    if (e.alignment === null) continue;
    const segs = e.alignment.segments;
    if (e.chunk_seq !== prevSeq) prev = [];
    let k = 0;
    while (k < segs.length && k < prev.length && JSON.stringify(segs[k]) === JSON.stringify(prev[k])) k++;
    if (JSON.stringify(segs) !== JSON.stringify(prev)) words += segs.length - k;
    prev = segs;
    prevSeq = e.chunk_seq;
  }
  return words / lines.length;
}

const captures = readdirSync(DIR).filter((f) => f.endsWith('.sse')).sort();
for (const name of captures) {
  const body = readFileSync(join(DIR, name));
  const perWord = newWordsPerEvent(body);
  for (const size of READS) {
    const chunks: Buffer[] = [];
    for (let p = 0; p < body.length; p += size) chunks.push(body.subarray(p, Math.min(p + size, body.length)));
    const once = pass(scannerStage, chunks);
    const t = await interleave(
      [
        { name: 'naive', run: () => pass(naiveStage, chunks) },
        { name: 'scanner', run: () => pass(scannerStage, chunks) },
      ],
      { rounds: ROUNDS, minSampleMs: 200, clock: 'cpu', warmup: 3 },
    );
    const windowSteps = chunks.length;
    const fa = await allocationPerUnit(probe(scannerStage, chunks), { warmSteps: ALLOC_WARM_PASSES * chunks.length, windowSteps });
    console.log(
      JSON.stringify({
        capture: name,
        read: size,
        events: once.events(),
        fastShare: round(once.fast() / once.events(), 4),
        speedup: round(1 / t.ratio['scanner']!, 2),
        speedupRange: t.ratioRange['scanner']!.map((r) => round(1 / r, 2)).reverse(),
        scannerMBps: Math.round(body.length / 1e6 / (t.ms['scanner']! / 1000)),
        heapPerEvent: Math.round(fa.heapPerUnit),
        arrayBuffersPerEvent: round(fa.arrayBuffersPerUnit, 1),
        newWordsPerEvent: round(perWord, 2),
      }),
    );
  }
}
