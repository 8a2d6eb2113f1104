/**
 * Per-contender statistics of a run's records. A failed request still counts for every figure it
 * reached (a stream that broke after its first audio has a first-audio time) and once among the
 * failures by kind; the sample count beside each figure says how many requests reached it.
 */
import { percentiles } from './percentiles.js';
import { FIGURES, type ContenderSummary, type Figure, type LatencyRecord, type PlayerSummary } from './types.js';

export function summarizeContender(
  contender: string,
  records: readonly LatencyRecord[],
  jitterBuffersMs: readonly number[],
): ContenderSummary {
  const mine = records.filter((r) => r.contender === contender);
  const failures: ContenderSummary['failures'] = {};
  for (const r of mine) if (r.failure !== null) failures[r.failure.kind] = (failures[r.failure.kind] ?? 0) + 1;
  const figures = {} as Record<Figure, ReturnType<typeof percentiles>>;
  for (const f of FIGURES) figures[f] = percentiles(mine.map((r) => r[f]));
  const players: PlayerSummary[] = jitterBuffersMs.map((jitterBufferMs, i) => {
    const verdicts = mine.filter((r) => r.players[i]?.startMs != null).map((r) => r.players[i]!);
    return {
      jitterBufferMs,
      stalledRequests: verdicts.filter((v) => v.underrunCount > 0).length,
      underrunCount: percentiles(verdicts.map((v) => v.underrunCount)),
      underrunMs: percentiles(verdicts.map((v) => v.underrunMs)),
      maxWordLateMs: percentiles(verdicts.map((v) => v.maxWordLateMs)),
    };
  });
  return { contender, requests: mine.length, ok: mine.filter((r) => r.ok).length, failures, figures, players };
}

export function summarizeRecords(
  contenders: readonly string[],
  records: readonly LatencyRecord[],
  jitterBuffersMs: readonly number[],
): ContenderSummary[] {
  return contenders.map((c) => summarizeContender(c, records, jitterBuffersMs));
}
