/**
 * The event stage alone, as the flat loop (bench/lib/flatStreams.ts) feeds it: N streams started
 * 10 ms apart, each simulated 20 ms tick writes every stream the SSE events due by then in the
 * capture's TCP-sized reads (1460 B) and advances its word clock by 20 ms, round-robin, then yields.
 * Per stream, what `SpeechPipeline` runs per event: a 64 KiB ring, the `SpeechEventScanner`, the
 * `AlignmentStore` and the `WordClock`; the ring is drained after every read (the decoder's part is
 * not here). CPU per stream-second (process CPU) over simulated seconds 5–35 and per event, for
 * this tree (`new`) and another checkout's `src/` (`old`, `OLD_TREE=/path`), rounds alternating.
 * Not a bench module (no verdict): for profiles (perf, `--perf-basic-prof`) and paired A/B runs.
 *
 * `EVICT_KB=k` stands in for the rest of a stream's work (libopus state, Ogg, framing): every tick
 * each stream also writes one byte per cache line of its own k KiB, so that its event-stage memory
 * is as cold at its next visit as in the whole loop (there the stage alone measured ~4× its cost
 * here without eviction). Both contenders pay the same for it; compare their difference.
 *
 *   CAPTURE=capture.sse OLD_TREE=/path ONLY=old,new N=100 ROUNDS=3 node --import tsx bench/lib/eventStageFlat.ts
 */
import { loadavg } from 'node:os';
import * as AlignmentModule from '../../src/align/AlignmentStore.js';
import * as RingModule from '../../src/buffer/RingBuffer.js';
import * as ScannerModule from '../../src/events/SpeechEventScanner.js';
import * as ClockModule from '../../src/play/WordClock.js';
import { LONG_TEXT, parseCapture, recordCaptures } from './realCapture.js';
import { sliceReads, tcpReads } from './readSizes.js';
import { readFileSync } from 'node:fs';

interface Tree {
  ring: typeof RingModule;
  scanner: typeof ScannerModule;
  align: typeof AlignmentModule;
  clock: typeof ClockModule;
}

/** A tree's four modules, from `root`'s src/ (this tree's when null). */
async function loadTree(root: string | null): Promise<Tree> {
  if (root === null) return { ring: RingModule, scanner: ScannerModule, align: AlignmentModule, clock: ClockModule };
  return {
    ring: (await import(`${root}/src/buffer/RingBuffer.ts`)) as typeof RingModule,
    scanner: (await import(`${root}/src/events/SpeechEventScanner.ts`)) as typeof ScannerModule,
    align: (await import(`${root}/src/align/AlignmentStore.ts`)) as typeof AlignmentModule,
    clock: (await import(`${root}/src/play/WordClock.ts`)) as typeof ClockModule,
  };
}

const N = Number(process.env['N'] ?? 100);
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
/** Simulated ms per tick: one 20 ms frame per stream. */
const TICK_MS = 20;
/** Streams start this many ms apart in all (flatStreams.ts: 100 streams 10 ms apart). */
const START_SPREAD_MS = 1000;
/** The measured span, simulated seconds: every stream started, none finished. */
const FROM = 5;
const TO = 35;
const MS_PER_S = 1000;
const OLD_TREE = process.env['OLD_TREE'];
const EVICT_BYTES = Number(process.env['EVICT_KB'] ?? 0) * 1024;
/** Bytes per cache line (x86-64): the eviction writes one byte in each. */
const CACHE_LINE = 64;
/** `scanner`: the scanner alone; `store`: and the AlignmentStore; `all` (default): and the WordClock. */
const PARTS = process.env['PARTS'] ?? 'all';
const only = (process.env['ONLY'] ?? (OLD_TREE ? 'old,new' : 'new')).split(',');

const cap = process.env['CAPTURE']
  ? await parseCapture({ format: 'opus', text: '' }, readFileSync(process.env['CAPTURE']))
  : (await recordCaptures([{ format: 'opus', text: LONG_TEXT }]))[0]!;
const reads = cap.events.map((e) => sliceReads(e, tcpReads()));
/** Per event: whether its alignment snapshot differs from the previous event's (the timings split by it). */
const changed = cap.events.map((e, i) => {
  const json = (b: Buffer): string =>
    JSON.stringify((JSON.parse(b.toString('utf8').replace(/^data: /, '')) as { alignment: unknown }).alignment);
  return i === 0 || json(e) !== json(cap.events[i - 1]!);
});
const due = cap.dueSec.map((d) => d * MS_PER_S);
const trees: Record<string, Tree> = { new: await loadTree(null) };
if (OLD_TREE) trees['old'] = await loadTree(OLD_TREE);

interface Stream {
  feed(ev: number): void;
  tick(seconds: number): void;
}

/** Writes one byte per cache line of `b` (see EVICT_KB). */
function evict(b: Uint8Array, k: number): void {
  for (let i = 0; i < b.length; i += CACHE_LINE) b[i] = k;
}

let sink = 0;
function stream(t: Tree): Stream {
  const ring = new t.ring.RingBuffer(t.ring.DEFAULT_RING_CAPACITY, t.ring.INITIAL_RING_BYTES);
  const store = new t.align.AlignmentStore();
  const other = new Uint8Array(EVICT_BYTES);
  let ticks = 0;
  const clock = new t.clock.WordClock({ onWord: () => sink++, onRevised: () => sink++ });
  const scanner = new t.scanner.SpeechEventScanner({
    ring,
    onEvent: (meta) => {
      if (PARTS === 'scanner') return;
      const change = store.apply(meta);
      if (change !== null && PARTS === 'all') clock.update(change);
    },
  });
  return {
    feed: (ev) => {
      for (const r of reads[ev]!) {
        for (let at = 0; at < r.length;) {
          at += scanner.feed(r, at);
          sink += ring.readSpanLength;
          ring.consume(ring.readSpanLength);
          sink += ring.readSpanLength;
          ring.consume(ring.readSpanLength);
        }
      }
    },
    tick: (seconds) => {
      clock.advance(seconds);
      evict(other, ticks++);
    },
  };
}

const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Wall-clock ns of each measured event's writes, by whether its snapshot changed. */
const feedNs: Record<string, number[]> = {};

async function run(name: string): Promise<{ perStreamSec: number; perEventUs: number }> {
  const changedNs = (feedNs[`${name} changed`] ??= []);
  const sameNs = (feedNs[`${name} same`] ??= []);
  const t = trees[name]!;
  const ss = Array.from({ length: N }, () => stream(t));
  const start = ss.map((_, i) => (i * START_SPREAD_MS) / N);
  const ev = new Int32Array(N);
  let c0 = 0;
  let c1 = 0;
  let events = 0;
  const ticks = Math.floor((cap.audioSec * MS_PER_S) / TICK_MS);
  for (let k = 0; k < ticks; k++) {
    const now = k * TICK_MS;
    if (now === FROM * MS_PER_S) c0 = cpu();
    if (now === TO * MS_PER_S) c1 = cpu();
    const measured = now >= FROM * MS_PER_S && now < TO * MS_PER_S;
    for (let i = 0; i < N; i++) {
      const local = now - start[i]!;
      while (ev[i]! < due.length && due[ev[i]!]! <= local) {
        const t0 = process.hrtime.bigint();
        ss[i]!.feed(ev[i]!);
        if (measured) {
          (changed[ev[i]!] ? changedNs : sameNs).push(Number(process.hrtime.bigint() - t0));
          events++;
        }
        ev[i] = ev[i]! + 1;
      }
      if (local > 0) ss[i]!.tick(local / MS_PER_S);
    }
    await new Promise((r) => setImmediate(r));
  }
  return { perStreamSec: (c1 - c0) / (N * (TO - FROM)), perEventUs: ((c1 - c0) * MS_PER_S) / events };
}

for (const n of only) await run(n); // warm-up
for (const n of Object.keys(feedNs)) delete feedNs[n];
const res: Record<string, number[]> = {};
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 ? [...only].reverse() : only;
  const line: string[] = [];
  for (const n of order) {
    const got = await run(n);
    (res[n] ??= []).push(got.perStreamSec);
    line.push(`${n}=${got.perStreamSec.toFixed(4)} ms/stream-s (${got.perEventUs.toFixed(2)} µs/event)`);
  }
  console.log('round', r, line.join(' '), 'load', loadavg()[0]!.toFixed(1));
}
const med = (a: number[]): number => [...a].sort((x, y) => x - y)[a.length >> 1]!;
for (const [n, ns] of Object.entries(feedNs)) {
  ns.sort((x, y) => x - y);
  console.log(
    n.padEnd(12),
    'events',
    ns.length,
    'median µs',
    (med(ns) / 1000).toFixed(2),
    'p90 µs',
    (ns[Math.floor(ns.length * 0.9)]! / 1000).toFixed(2),
  );
}
for (const n of only) console.log(n.padEnd(4), 'median ms/stream-s', med(res[n]!).toFixed(4));
if (res['old'] && res['new']) console.log('new/old per round', res['new'].map((v, i) => (v / res['old']![i]!).toFixed(3)).join(' '));
if (sink === -1) console.log(sink);
process.exit(0);
