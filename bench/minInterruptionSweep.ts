/**
 * `minInterruptionMs` (and `spanBridgeMs`) against the clear target that moves with it (issue 22:
 * onset → clear p95 ≤ minInterruptionMs + 100 ms through a call). Not a `*.bench.ts` module
 * (bench/run.ts does not run it): a probe for native-notes/vad.md, "minInterruptionMs against its
 * own target". Every figure is on the injected clock or the corpus (load-independent).
 *
 *   node --import tsx bench/minInterruptionSweep.ts --min 160,192,224 [--bridge 128] [--phases 0,7,13,26]
 *     [--detector-only] [--outcomes] [--out FILE]
 *
 * Per configuration: the detector bench's `evaluate` (181 clips, the bot's line noted) and the
 * call bench's `runCalls` at each phase (slots shifted; 70 utterances ≥ 300 ms at 20 and 10 dB per
 * phase, pooled), every other option at its default.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { BargeInDetectorOptions } from '../src/telephony/bargeIn/index.js';
import { CORPUS_RATE, loadCorpus, type LoadedClip } from '../test/fixtures/vad/corpus.js';
import { evaluate, MIN_INTERRUPT_UTTERANCE_MS } from './bargeIn.bench.js';
import { runCalls, type Outcome } from './bargeInCall.bench.js';
import { p50p95, percentile, round, sortedCopy } from './lib/stats.js';
import { arg } from './lib/probeArgs.js';

const MS = CORPUS_RATE / 1000;
const CALL_SNRS = [20, 10];
/** The call bench's four phases (native-notes/vad.md, "Barge-in latency through the call"). */
const DEFAULT_PHASES = [0, 7, 13, 26];
const CLEAR_SLACK_MS = 100;

const list = (s: string | undefined, d: number[]): number[] => (s === undefined ? d : s.split(',').map(Number));

function callFigures(outcomes: Outcome[], minMs: number): Record<string, string | number> {
  const groups: [string, (c: LoadedClip) => boolean][] = [
    ['all', () => true],
    ['tuning', (c) => !c.heldOut],
    ['held-out', (c) => c.heldOut === true],
    ...CALL_SNRS.map((s): [string, (c: LoadedClip) => boolean] => [`${s} dB`, (c) => c.snrDb === s]),
  ];
  const out: Record<string, string | number> = {};
  for (const [g, f] of groups) {
    const sel = outcomes.filter((o) => f(o.clip));
    out[`clear p50/p95 ${g}`] = p50p95(sel.flatMap((o) => (o.clearMs === undefined ? [] : [o.clearMs])));
    out[`pause p50/p95 ${g}`] = p50p95(sel.flatMap((o) => (o.pauseMs === undefined ? [] : [o.pauseMs])));
  }
  const clears = sortedCopy(outcomes.flatMap((o) => (o.clearMs === undefined ? [] : [o.clearMs])));
  const p95 = percentile(clears, 0.95);
  out['cleared'] = `${clears.length}/${outcomes.length}`;
  out['clear p95'] = round(p95, 0);
  out['target'] = minMs + CLEAR_SLACK_MS;
  out['met'] = p95 <= minMs + CLEAR_SLACK_MS ? 'yes' : 'no';
  out['over target (count)'] = clears.filter((x) => x > minMs + CLEAR_SLACK_MS).length;
  return out;
}

async function main(): Promise<void> {
  const mins = list(arg('min'), [160, 176, 192, 200, 208, 224, 240, 250]);
  const bridges = list(arg('bridge'), [128]);
  const phases = list(arg('phases'), DEFAULT_PHASES);
  const detectorOnly = process.argv.includes('--detector-only');
  const out = arg('out');
  const corpus = loadCorpus();
  const callClips = corpus.filter(
    (c) => c.kind === 'speech' && CALL_SNRS.includes(c.snrDb!) && (c.offset! - c.onset!) / MS >= MIN_INTERRUPT_UTTERANCE_MS,
  );
  const rows: Record<string, unknown>[] = [];
  for (const bridge of bridges)
    for (const min of mins) {
      const options: BargeInDetectorOptions = { minInterruptionMs: min, spanBridgeMs: bridge };
      const t0 = Date.now();
      const e = await evaluate(options, corpus);
      const row: Record<string, unknown> = { minInterruptionMs: min, spanBridgeMs: bridge, detector: e };
      if (!detectorOnly) {
        const pooled: Outcome[] = [];
        const perPhase: string[] = [];
        const falseHeld: number[] = [];
        for (const ph of phases) {
          const r = await runCalls(callClips, options, ph);
          pooled.push(...r.outcomes);
          falseHeld.push(...r.falseHeld);
          const c = sortedCopy(r.outcomes.flatMap((o) => (o.clearMs === undefined ? [] : [o.clearMs])));
          perPhase.push(`${ph}: ${round(percentile(c, 0.95), 0)}`);
        }
        row['call'] = {
          ...callFigures(pooled, min),
          'clear p95 per phase': perPhase.join(' · '),
          'false pauses count / held max': `${falseHeld.length}/${round(Math.max(0, ...falseHeld), 0)}`,
          'slowest clears': pooled
            .filter((o) => o.clearMs !== undefined)
            .sort((a, b) => b.clearMs! - a.clearMs!)
            .slice(0, 16)
            .map((o) => `${o.clip.file}:${round(o.clearMs!, 0)}`),
          'not cleared': pooled.filter((o) => o.clearMs === undefined).map((o) => o.clip.file),
          ...(process.argv.includes('--outcomes')
            ? { outcomes: pooled.map((o) => [o.clip.file, o.clearMs === undefined ? null : round(o.clearMs, 0)]) }
            : {}),
        };
      }
      row['seconds'] = round((Date.now() - t0) / 1000, 0);
      row['load'] = round(loadavg()[0]!, 1);
      rows.push(row);
      console.log(JSON.stringify(row));
      if (out !== undefined) writeFileSync(out, JSON.stringify(rows, null, 1));
    }
}

await main();
