/**
 * Paired fixed-N steps of two telephony contenders (issue 23: is one provider's bridge dearer per
 * call than another's?). Not a `*.bench.ts` module (bench/run.ts does not run it): a probe for a
 * question the capacity search cannot answer on a loaded or drifting machine, where a provider's
 * largest N moves by more than the 10 % the target leaves between runs.
 *
 *   flock /tmp/bench.lock node --import tsx bench/telephonyPaired.ts --fixed 60,100 --contenders twilio,telnyx --rounds 4
 *   flock /tmp/bench.lock node --import tsx bench/telephonyPaired.ts --fixed 80 \
 *     --contenders 'twilio, callers speaking, barge-in OFF|twilio, callers speaking, barge-in ON'
 *
 * Each round runs, for each N, one step of each contender (bench/telephony.bench.ts `step()`:
 * the same openings, window and measurements as the search), the order alternating a b / b a
 * round by round. It prints each step and then, per N and for all N, the b / a ratio of each
 * figure per pair with its spread (bench/lib/pairedSteps.ts): bridge-thread CPU per call-second
 * (load-robust), process and peer-thread CPU, bridge loop busy share, and p99 lateness (its
 * direction only under load); each step's line also gives the bridge thread's run-queue wait
 * (bench/lib/threadStats.ts), and `--json` keeps every step's per-thread figures. `--json FILE` also writes the steps and the spreads.
 * Takes about 8 s a step: 2 N × 2 contenders × 4 rounds ≈ 2.5 min.
 *
 * `--adapters` first measures the two providers' adapters alone (Twilio and Telnyx only), CPU per
 * call-second of their own work: 50 media messages built from 20 ms G.711 frames, 10 mark
 * requests, and 10 mark echoes parsed in the shape the bench phones send (interleaved rounds,
 * bench/lib/measure.ts).
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { PAIRED_FIGURES, pairOrder, ratioSpread, type PairedSample, type StepFigures } from './lib/pairedSteps.js';
import { round } from './lib/stats.js';
import { interleave } from './lib/measure.js';
import { createProviderAdapter } from '../src/telephony/mediaStream.js';
import type { ThreadWindow } from './lib/threadStats.js';
import { CONTENDERS, step, stepSpec } from './telephony.bench.js';
import { arg } from './lib/probeArgs.js';

const DEFAULT_FIXED = [60, 100];
const DEFAULT_ROUNDS = 4;
/** More rounds than this would hold the bench lock for too long on a shared machine. */
const MAX_ROUNDS = 20;

const fixed = (arg('fixed') ?? DEFAULT_FIXED.join(',')).split(',').map(Number);
const rounds = Math.min(MAX_ROUNDS, Number(arg('rounds') ?? DEFAULT_ROUNDS));
const contenderList = arg('contenders') ?? 'twilio,telnyx';
// The barge-in contenders' keys hold commas ('twilio, callers speaking, barge-in ON'): separate those with '|'.
const names = contenderList.split(contenderList.includes('|') ? '|' : ',');
const jsonOut = arg('json');
if (fixed.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(rounds) || rounds < 0 || names.length !== 2) {
  throw new Error('usage: --fixed N[,N…] --contenders a,b --rounds K (K ≥ 0: 0 with --adapters measures only the adapters)');
}
const [a, b] = names.map((n) => {
  const c = CONTENDERS.find((x) => x.key === n);
  if (c === undefined) throw new Error(`unknown contender ${n}; one of ${CONTENDERS.map((x) => x.key).join(', ')}`);
  return c;
}) as [(typeof CONTENDERS)[number], (typeof CONTENDERS)[number]];

/** One second of one call's adapter work (see the header); a G.711 frame is 160 bytes. */
const FRAMES_PER_SECOND = 50;
const MARKS_PER_SECOND = 10;
const G711_FRAME_BYTES = 160;
const ADAPTER_ROUNDS = 10;
/** The mark echo each bench phone sends (bench/providerPeers.worker.mjs), as the socket hands it over. */
const ECHO: Record<string, (name: string) => Buffer> = {
  twilio: (name) => Buffer.from(JSON.stringify({ event: 'mark', sequenceNumber: '0', streamSid: 'MZbench0', mark: { name } })),
  telnyx: (name) => Buffer.from(JSON.stringify({ event: 'mark', sequence_number: '0', stream_id: 'st-bench-0', mark: { name } })),
};

async function adapterCost(): Promise<void> {
  const frame = new Uint8Array(G711_FRAME_BYTES).map((_, i) => (i * 37) & 0xff);
  let sink = 0;
  const contenders = [a, b].map((c) => {
    const adapter = createProviderAdapter(c.provider);
    const echoes = Array.from({ length: MARKS_PER_SECOND }, (_, i) => ECHO[c.provider]!(`u1-${i}`));
    return {
      name: c.key,
      run: (): void => {
        for (let i = 0; i < FRAMES_PER_SECOND; i++) sink += adapter.media(frame).length;
        for (let i = 0; i < MARKS_PER_SECOND; i++) {
          sink += (adapter.ackRequest(`u1-${i}`) as string).length;
          if (adapter.parse(echoes[i]!, false).type === 'ack') sink++;
        }
      },
    };
  });
  if (contenders.some((c) => ECHO[c.name] === undefined)) return;
  const r = await interleave(contenders, { rounds: ADAPTER_ROUNDS });
  process.stdout.write(
    `adapters alone, CPU µs per call-second: ${a.key} ${round(r.ms[a.key]! * 1000, 1)}, ${b.key} ${round(r.ms[b.key]! * 1000, 1)}; ` +
      `${b.key} / ${a.key} ${r.ratio[b.key]} (range ${r.ratioRange[b.key]!.join('–')}) (sink ${sink > 0})\n\n`,
  );
}
if (process.argv.includes('--adapters')) await adapterCost();

if (rounds === 0) process.exit(0);
const spec = stepSpec({ quick: false });
const samples: PairedSample[] = [];
const steps: {
  round: number;
  contender: string;
  calls: number;
  load: number;
  figures: StepFigures;
  sends: number;
  threads: ThreadWindow;
}[] = [];
const fmt = (f: StepFigures): string =>
  `bridge ${f.bridgeCpuPerCallSecond.toFixed(2)} process ${f.cpuPerCallSecond.toFixed(2)} peer ${f.peerCpuPerCallSecond.toFixed(2)} ` +
  `ms/call-s, busy ${(f.busy * 100).toFixed(1)} %, p99 ${f.p99.toFixed(2)} ms`;

const startedAt = performance.now();
for (let r = 0; r < rounds; r++) {
  for (const calls of fixed) {
    const got = new Map<string, StepFigures>();
    for (const c of pairOrder(a, b, r)) {
      const load = loadavg()[0]!;
      const s = await step(calls, c, spec);
      const figures: StepFigures = {
        bridgeCpuPerCallSecond: s.bridgeCpuPerCallSecond,
        cpuPerCallSecond: s.cpuPerCallSecond,
        peerCpuPerCallSecond: s.peerCpuPerCallSecond,
        busy: s.busy,
        p99: s.p99,
      };
      got.set(c.key, figures);
      steps.push({ round: r + 1, contender: c.key, calls, load, figures, sends: s.sends, threads: s.threads });
      process.stdout.write(
        `round ${r + 1} ${c.key.padEnd(7)} N=${calls} (load ${load.toFixed(1)}): ${fmt(figures)}, ` +
          `bridge run-queue wait ${s.threads.mainWaitMsPerS.toFixed(1)} ms/s, host steal ${(s.host.stealShare * 100).toFixed(2)} %\n`,
      );
    }
    samples.push({ round: r + 1, calls, a: got.get(a.key)!, b: got.get(b.key)! });
  }
}

const spreads: Record<string, Record<string, ReturnType<typeof ratioSpread>>> = {};
process.stdout.write(`\n${b.key} / ${a.key}, per pair (median [25th–75th] min–max, pairs where ${b.key} was dearer):\n`);
for (const calls of [...fixed, undefined]) {
  const label = calls === undefined ? 'all N' : `N=${calls}`;
  spreads[label] = {};
  for (const figure of PAIRED_FIGURES) {
    const s = ratioSpread(samples, figure, calls);
    spreads[label][figure] = s;
    process.stdout.write(
      `  ${label.padEnd(6)} ${figure.padEnd(24)} ${round(s.median, 3)} [${round(s.low, 3)}–${round(s.high, 3)}] ` +
        `${round(s.min, 3)}–${round(s.max, 3)}, ${s.bDearer}/${s.pairs}\n`,
    );
  }
}
process.stdout.write(
  `\n${steps.length} steps in ${((performance.now() - startedAt) / 60_000).toFixed(1)} min, load ${loadavg()[0]!.toFixed(1)} at the end\n`,
);
if (jsonOut !== undefined) writeFileSync(jsonOut, JSON.stringify({ a: a.key, b: b.key, fixed, rounds, steps, spreads }, null, 2));
