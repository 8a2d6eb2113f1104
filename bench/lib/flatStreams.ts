/**
 * The concurrency bench's loop flat out (native-notes/engine-performance.md, tenth pass): N
 * telephony streams (real Ogg Opus capture → 8 kHz μ-law, 20 ms frames), ticked every simulated
 * 20 ms without waiting for real time: each tick feeds every stream the SSE events due by then
 * (1460 B writes) and takes one frame per stream, then yields to the event loop. CPU per
 * stream-second (process CPU) over simulated seconds 5–35. No timers, so a loaded machine cannot
 * turn lateness into less work: for A/B runs when the paced bench cannot judge. Not a bench
 * module (no verdict).
 *
 *   ONLY=read,pull,floor N=100 ROUNDS=3 node --import tsx bench/lib/flatStreams.ts
 *
 * Contenders: `read` (SpeechPipeline, frames by read()), `pull` (readFrame()), `floor` (raw
 * libopus at 8 kHz + a queue, as in telephonyStreams.ts), and `old` / `oldpull` (read() /
 * readFrame() on another checkout's src/, given as OLD_TREE=/path/to/checkout: before/after in one
 * process or side by side), `pull@<ms>` (readFrame() with that decode-ahead: `ONLY=pull@200,pull@100,floor`).
 * CAPTURE=file.sse replays a recorded body instead of recording one from the local service.
 * FEED_TIMES=1 also times every event's writes (the event stage and the write machinery, in the
 * loop's cache state) on the wall clock, and prints their median and their mean without the
 * slowest 2 % (a preemption lands on a few of them: a load-robust figure where CPU per
 * stream-second is not).
 */
import { loadavg } from 'node:os';
import { engineStream, floorStream, loadFlatSetup, type FlatStream } from './flatContenders.js';

const OLD_TREE = process.env['OLD_TREE'];

const N = Number(process.env['N'] ?? 100);
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
/** The measured span, simulated seconds: every stream started, none finished. */
const FROM = 5;
const TO = 35;
const FEED_TIMES = process.env['FEED_TIMES'] === '1';
/** Slowest share of the timed writes left out of their mean (the preempted ones). */
const FEED_TRIM = 0.02;
const feedNs: Record<string, number[]> = {};
const only = (process.env['ONLY'] ?? (OLD_TREE ? 'old,read,pull,floor' : 'read,pull,floor')).split(',');
const { cap, reads, packets, due, NEW, OLD } = await loadFlatSetup(process.env['CAPTURE'], OLD_TREE);
const inputs = { reads, packets };
/** Per event: whether its alignment snapshot differs from the previous event's (FEED_TIMES splits by it). */
const changed = cap.events.map((e, i) => {
  const json = (b: Buffer) => JSON.stringify((JSON.parse(b.toString('utf8').replace(/^data: /, '')) as { alignment: unknown }).alignment);
  return i === 0 || json(e) !== json(cap.events[i - 1]!);
});
const makers: Record<string, () => FlatStream> = {
  old: () => engineStream(OLD, inputs, false),
  oldpull: () => engineStream(OLD, inputs, true),
  read: () => engineStream(NEW, inputs, false),
  pull: () => engineStream(NEW, inputs, true),
  floor: () => floorStream(inputs),
};
/** `pull@<ms>`: readFrame() with that decode-ahead (SpeechPipelineOptions.pullAheadMs). */
const maker = (name: string): FlatStream => {
  const ahead = /^pull@(\d+)$/.exec(name);
  return ahead ? engineStream(NEW, inputs, true, Number(ahead[1])) : makers[name]!();
};
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
async function run(name: string): Promise<number> {
  const ss = Array.from({ length: N }, () => maker(name));
  const start = ss.map((_, i) => (i * 1000) / N);
  const ev = new Int32Array(N);
  let c0 = 0,
    c1 = 0,
    misses = 0;
  const ticks = Math.floor((cap.audioSec * 1000) / 20);
  let times: number[] | null = null;
  for (let k = 0; k < ticks; k++) {
    const t = k * 20;
    times = FEED_TIMES && t >= FROM * 1000 && t < TO * 1000 ? (feedNs[name] ??= []) : null;
    const changedNs = (feedNs[`${name} changed snapshot`] ??= []);
    const sameNs = (feedNs[`${name} same snapshot`] ??= []);
    if (t === FROM * 1000) c0 = cpu();
    if (t === TO * 1000) c1 = cpu();
    for (let i = 0; i < N; i++) {
      const local = t - start[i]!;
      while (ev[i]! < due.length && due[ev[i]!]! <= local) {
        if (times !== null) {
          const t0 = process.hrtime.bigint();
          ss[i]!.feed(ev[i]!);
          times.push(Number(process.hrtime.bigint() - t0));
          (changed[ev[i]!] ? changedNs : sameNs).push(times[times.length - 1]!);
        } else ss[i]!.feed(ev[i]!);
        ev[i] = ev[i]! + 1;
      }
      if (local >= 40 && !ss[i]!.take() && t > FROM * 1000 && t < TO * 1000) misses++;
    }
    await new Promise((r) => setImmediate(r));
  }
  for (const s of ss) s.close();
  if (misses) console.log(name, 'misses', misses);
  return (c1 - c0) / (N * (TO - FROM));
}
for (const n of only) await run(n); // warm-up
for (const n of Object.keys(feedNs)) delete feedNs[n];
const res: Record<string, number[]> = {};
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 ? [...only].reverse() : only;
  for (const n of order) (res[n] ??= []).push(await run(n));
  console.log(
    'round',
    r,
    Object.entries(res)
      .map(([k, v]) => `${k}=${v.at(-1)!.toFixed(3)}`)
      .join(' '),
    'load',
    loadavg()[0]!.toFixed(1),
  );
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
for (const [n, ns] of Object.entries(feedNs)) {
  ns.sort((x, y) => x - y);
  const kept = ns.slice(0, Math.floor(ns.length * (1 - FEED_TRIM)));
  const mean = kept.reduce((x, y) => x + y, 0) / kept.length;
  console.log(
    n.padEnd(6),
    'event writes',
    ns.length,
    'median µs',
    (med(ns) / 1000).toFixed(2),
    'mean µs (slowest 2 % out)',
    (mean / 1000).toFixed(2),
  );
}
for (const n of only)
  console.log(
    n.padEnd(6),
    'median ms/stream-s',
    med(res[n]!).toFixed(3),
    'vs floor',
    res.floor ? med(res[n]!.map((v, i) => v / res.floor![i]!)).toFixed(3) : '',
  );
process.exit(0);
