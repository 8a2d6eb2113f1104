/**
 * The summary table `voicewire latency` prints: per contender, each figure's percentiles with
 * its sample count, the simulated player's verdicts, and the failures by kind.
 */
import type { Percentiles } from '../percentiles.js';
import type { ContenderSummary, Figure, LatencyRun } from '../types.js';

/** Row labels, in the order a request goes through them. */
export const FIGURE_LABELS: Record<Figure, string> = {
  connectMs: 'connect (new conn.)',
  headMs: 'response head',
  firstByteMs: 'first byte',
  firstAudioByteMs: 'first audio byte',
  firstFrameMs: 'first PCM frame',
  firstWordMs: 'first word',
  lastByteMs: 'last byte',
  audioDurationSec: 'audio (s)',
  realTimeFactor: 'real-time factor',
  maxAudioGapMs: 'max audio gap',
};
const LABEL_WIDTH = 22;
const COL_WIDTH = 9;

function num(v: number | null, unit: 'ms' | 'x'): string {
  if (v === null) return '-';
  if (unit === 'x') return v.toFixed(3);
  return v >= 100 ? v.toFixed(0) : v.toFixed(1);
}

function row(label: string, p: Percentiles, unit: 'ms' | 'x'): string {
  const cols = [p.p50, p.p90, p.p95, p.p99, p.max].map((v) => num(v, unit).padStart(COL_WIDTH));
  return `  ${label.padEnd(LABEL_WIDTH)}${cols.join('')}${String(p.n).padStart(COL_WIDTH)}`;
}

export function contenderTable(s: ContenderSummary): string {
  const lines = [`${s.contender}: ${s.ok}/${s.requests} ok${failureText(s)}`];
  lines.push(`  ${'ms'.padEnd(LABEL_WIDTH)}${['p50', 'p90', 'p95', 'p99', 'max', 'n'].map((h) => h.padStart(COL_WIDTH)).join('')}`);
  for (const [f, label] of Object.entries(FIGURE_LABELS) as Array<[Figure, string]>) {
    lines.push(row(label, s.figures[f], f === 'audioDurationSec' || f === 'realTimeFactor' ? 'x' : 'ms'));
  }
  lines.push(
    `  ${'simulated player'.padEnd(LABEL_WIDTH)}${'stalled'.padStart(COL_WIDTH)}   underrun ms p50 / p99 / max   latest word ms p99 / max`,
  );
  for (const p of s.players) {
    const u = p.underrunMs;
    const w = p.maxWordLateMs;
    lines.push(
      `  ${`${p.jitterBufferMs} ms buffer`.padEnd(LABEL_WIDTH)}${`${p.stalledRequests}/${u.n}`.padStart(COL_WIDTH)}   ${[
        u.p50,
        u.p99,
        u.max,
      ]
        .map((v) => num(v, 'ms'))
        .join(' / ')
        .padEnd(29)} ${[w.p99, w.max].map((v) => num(v, 'ms')).join(' / ')}`,
    );
  }
  return lines.join('\n');
}

function failureText(s: ContenderSummary): string {
  const parts = Object.entries(s.failures).map(([k, n]) => `${n} ${k}`);
  return parts.length === 0 ? '' : `; failed: ${parts.join(', ')}`;
}

export function runTable(run: LatencyRun): string {
  const { format, concurrency } = run.settings;
  const elapsed = `${(run.elapsedMs / 1000).toFixed(1)} s${run.interrupted ? ' (interrupted)' : ''}`;
  const head = `${run.records.length} requests, ${format}, concurrency ${concurrency}, ${elapsed}`;
  return `${head}\n\n${run.summaries.map(contenderTable).join('\n\n')}\n`;
}
