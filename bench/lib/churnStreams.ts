/**
 * The concurrency bench's loop flat out with calls that come and go (native-notes/engine-performance.md,
 * fifteenth pass): N slots, each running one telephony stream (real Ogg Opus capture → 8 kHz μ-law,
 * 20 ms frames, 1460 B writes) from its first event to its last frame, then destroying it and
 * starting a new one in the same slot. Slot i's first stream starts frac(i·φ) of a stream's length
 * late, so starts (and ends) are spread evenly over time. Ticked every simulated 20 ms without
 * waiting for real time. After `WARM` simulated seconds it measures `SPAN` simulated seconds:
 * process CPU per stream-second and the stream starts in the window. Not a bench module.
 *
 * It prints `@@window-start starts=<k>` and `@@window-end starts=<k>` on stdout, so that a run with
 * `--trace-opt --trace-deopt` (whose lines also go to stdout) can be cut to the window and counted
 * per 100 stream starts (bench/lib/deoptCount.ts).
 *
 *   CAPTURE=capture.sse ONLY=pull N=60 WARM=60 SPAN=120 node --trace-opt --trace-deopt --import tsx bench/lib/churnStreams.ts
 *
 * Contenders: `pull` (readFrame()), `read` (read()), `floor` (raw libopus at 8 kHz + a queue),
 * `old` (OLD_TREE's readFrame()).
 */
import { writeSync } from 'node:fs';
import { loadavg } from 'node:os';
import { engineStream, floorStream, loadFlatSetup, type FlatStream } from './flatContenders.js';

const OLD_TREE = process.env['OLD_TREE'];
const N = Number(process.env['N'] ?? 60);
/** Simulated seconds before the window: every slot has started and ended at least one stream. */
const WARM = Number(process.env['WARM'] ?? 60);
/** The window's length, simulated seconds. */
const SPAN = Number(process.env['SPAN'] ?? 120);
const ROUNDS = Number(process.env['ROUNDS'] ?? 1);
const only = (process.env['ONLY'] ?? 'pull,floor').split(',');
/** Stream starts per `@@hundred` marker (deoptCount.ts's per-100-starts buckets). */
const HUNDRED = 100;
/** The simulated tick: one μ-law frame per stream. */
const TICK_MS = 20;
/** Frames a stream is behind its first event before its first read (two ticks, as flatStreams.ts). */
const FIRST_READ_MS = 40;
/** The golden ratio's fractional part: start offsets frac(i·φ) spread evenly for any N. */
const PHI_FRACTION = 0.6180339887498949;

const { cap, reads, packets, due, NEW, OLD } = await loadFlatSetup(process.env['CAPTURE'], OLD_TREE);
const inputs = { reads, packets };
/** A stream's length in ticks: its audio, then it is closed. */
const streamTicks = Math.floor((cap.audioSec * 1000) / TICK_MS);
const makers: Record<string, () => FlatStream> = {
  pull: () => engineStream(NEW, inputs, true),
  read: () => engineStream(NEW, inputs, false),
  old: () => engineStream(OLD, inputs, true),
  floor: () => floorStream(inputs),
};
/** Window markers go straight to fd 1, not through process.stdout's Writable (whose code would then meet a second map in the window). */
const mark = (line: string): void => {
  writeSync(1, line + '\n');
};
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
async function run(name: string): Promise<{ cpu: number; starts: number }> {
  const make = makers[name]!;
  const ss: (FlatStream | undefined)[] = new Array<FlatStream | undefined>(N).fill(undefined);
  /** Each slot's current stream began at this tick (negative: not yet). */
  const begin = Array.from({ length: N }, (_, i) => Math.round(((i * PHI_FRACTION) % 1) * streamTicks));
  const ev = new Int32Array(N);
  const warmTicks = (WARM * 1000) / TICK_MS;
  const endTicks = ((WARM + SPAN) * 1000) / TICK_MS;
  let starts = 0,
    c0 = 0,
    s0 = 0;
  mark(`@@run ${name}`);
  for (let k = 0; k < endTicks; k++) {
    if (k === warmTicks) {
      c0 = cpu();
      s0 = starts;
      mark(`@@window-start ${name} starts=${starts}`);
    }
    for (let i = 0; i < N; i++) {
      let local = (k - begin[i]!) * TICK_MS;
      if (local < 0) continue;
      if (local >= streamTicks * TICK_MS) {
        ss[i]!.close();
        ss[i] = undefined;
        begin[i] = k;
        ev[i] = 0;
        local = 0;
      }
      if (ss[i] === undefined) {
        ss[i] = make();
        starts++;
        if (starts % HUNDRED === 0) mark(`@@hundred ${starts}`);
      }
      const s = ss[i]!;
      while (ev[i]! < due.length && due[ev[i]!]! <= local) {
        s.feed(ev[i]!);
        ev[i] = ev[i]! + 1;
      }
      if (local >= FIRST_READ_MS) s.take();
    }
    await new Promise((r) => setImmediate(r));
  }
  const c1 = cpu();
  const inWindow = starts - s0;
  mark(`@@window-end ${name} starts=${starts} inWindow=${inWindow}`);
  for (const s of ss) s?.close();
  return { cpu: (c1 - c0) / (N * SPAN), starts: inWindow };
}
const res: Record<string, number[]> = {};
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 ? [...only].reverse() : only;
  for (const n of order) {
    const { cpu: c, starts } = await run(n);
    (res[n] ??= []).push(c);
    console.log(`@@round ${r} ${n} cpu ms/stream-s ${c.toFixed(3)} starts in window ${starts} load ${loadavg()[0]!.toFixed(1)}`);
  }
}
process.exit(0);
