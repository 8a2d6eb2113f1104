/**
 * Paired telephony steps with barge-in ON, the call's audio handed to the detector thread by a
 * message per frame (`transport: 'messages'`, before) or through the call's ring in shared memory
 * (`'shared'`, the default; src/telephony/bargeIn/frameRing.ts). Not a `*.bench.ts` module
 * (bench/run.ts does not run it): a probe for a question the capacity search cannot answer on a
 * loaded machine (native-notes/vad.md, "Audio to the detector thread in shared memory").
 *
 *   flock /tmp/bench.lock node --import tsx bench/bargeInTransportPaired.ts --fixed 50,80 --rounds 3
 *
 * Each round runs, for each N, one step of bench/telephony.bench.ts (`step()`, the contender
 * "twilio, callers speaking, barge-in ON") per transport, the order alternating round by round.
 * Per step, from bench/lib/threadStats.ts over the whole step: the bridge thread's CPU per
 * call-second (the step's own figure) and its run-queue wait (ms per s), the detector thread's CPU
 * (ms per s), every other thread's (the phones' worker, V8's GC and compiler helpers, libuv's
 * pool; ms per s), and the step's p99 lateness (direction only under load). About 8 s a step.
 */
import { loadavg } from 'node:os';
import { configureDetectorThreads, type DetectorTransport } from '../src/telephony/bargeIn/DetectorThreads.js';
import { CONTENDERS, step, stepSpec } from './telephony.bench.js';
import { probeDetectorThread } from './lib/detectorThreadProbe.js';
import { sampleThreads, threadWindow } from './lib/threadStats.js';
import { arg } from './lib/probeArgs.js';

const DEFAULT_FIXED = [50, 80];
const DEFAULT_ROUNDS = 3;
/** More rounds than this would hold the bench lock for too long on a shared machine. */
const MAX_ROUNDS = 10;
const CONTENDER = 'twilio, callers speaking, barge-in ON';
const TRANSPORTS: DetectorTransport[] = ['messages', 'shared'];

const fixed = (arg('fixed') ?? DEFAULT_FIXED.join(',')).split(',').map(Number);
const rounds = Math.min(MAX_ROUNDS, Number(arg('rounds') ?? DEFAULT_ROUNDS));
if (fixed.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(rounds) || rounds < 1) {
  throw new Error('usage: --fixed N[,N…] --rounds K (K ≥ 1)');
}
const contender = CONTENDERS.find((c) => c.key === CONTENDER);
if (contender === undefined) throw new Error(`bench/telephony.bench.ts has no contender '${CONTENDER}'`);

const spec = stepSpec({ quick: false });
const figures = new Map<string, number[][]>();
const NAMES = ['bridge CPU ms/call-s', 'bridge wait ms/s', 'detector ms/s', 'other threads ms/s', 'p99 ms'];
for (let r = 0; r < rounds; r++) {
  for (const calls of fixed) {
    for (const transport of r % 2 === 0 ? TRANSPORTS : [...TRANSPORTS].reverse()) {
      configureDetectorThreads({ transport });
      const tid = (await probeDetectorThread())?.tid;
      const load = loadavg()[0]!;
      const before = sampleThreads();
      const t0 = performance.now();
      const s = await step(calls, contender, spec);
      const w = threadWindow(before, sampleThreads(), performance.now() - t0, new Map(tid === undefined ? [] : [[tid, 'detector']]));
      const row = [s.bridgeCpuPerCallSecond, w.mainWaitMsPerS, w.named.detector ?? NaN, w.otherRunMsPerS, s.p99];
      const key = `N=${calls} ${transport}`;
      figures.set(key, [...(figures.get(key) ?? []), row]);
      process.stdout.write(
        `round ${r + 1} ${key.padEnd(14)} (load ${load.toFixed(1)}): ` + row.map((x, i) => `${NAMES[i]} ${x.toFixed(2)}`).join(', ') + '\n',
      );
    }
  }
}
process.stdout.write('\nper N and transport, each round (first · second · …):\n');
for (const [key, rows] of figures) {
  process.stdout.write(`  ${key}\n`);
  NAMES.forEach((name, i) => process.stdout.write(`    ${name.padEnd(22)} ${rows.map((x) => x[i]!.toFixed(2)).join(' · ')}\n`));
}
process.stdout.write(`load ${loadavg()[0]!.toFixed(1)} at the end\n`);
// No process.exit(): the idle detector thread must end first (DetectorThreads does it on
// beforeExit; a thread torn down with the process while onnxruntime-node is loaded aborts it).
