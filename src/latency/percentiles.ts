/**
 * Percentiles of a latency figure, with the sample count beside them: a p99 of 12 samples is the
 * maximum, and a reader must be able to see that.
 */

/** The percentiles every figure is reported at. */
export const REPORTED_PERCENTILES = [50, 90, 95, 99] as const;

export interface Percentiles {
  /** Samples the figures are computed from (requests that reached this point). */
  n: number;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
  min: number | null;
  mean: number | null;
}

/**
 * Nearest-rank percentile (the smallest sample with at least `p` % of the samples at or below it),
 * so every reported value is one that was measured. `sorted` ascending; null when empty.
 */
export function nearestRank(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

/** Percentiles of the finite values in `samples` (null / NaN: the figure was not reached). */
export function percentiles(samples: Iterable<number | null | undefined>): Percentiles {
  const sorted: number[] = [];
  let sum = 0;
  for (const s of samples) {
    if (typeof s === 'number' && Number.isFinite(s)) {
      sorted.push(s);
      sum += s;
    }
  }
  sorted.sort((a, b) => a - b);
  const n = sorted.length;
  return {
    n,
    p50: nearestRank(sorted, 50),
    p90: nearestRank(sorted, 90),
    p95: nearestRank(sorted, 95),
    p99: nearestRank(sorted, 99),
    max: n === 0 ? null : sorted[n - 1]!,
    min: n === 0 ? null : sorted[0]!,
    mean: n === 0 ? null : sum / n,
  };
}
