/**
 * Small statistics for benchmark samples: percentiles (nearest rank), median, a summary, and a
 * rounding helper so figures in results.json stay readable.
 */

/** Nearest-rank percentile of an ascending array (`q` in 0..1). NaN when empty. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil(q * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

export function sortedCopy(xs: Iterable<number>): number[] {
  return Array.from(xs).sort((a, b) => a - b);
}

export function median(xs: Iterable<number>): number {
  return percentile(sortedCopy(xs), 0.5);
}

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

/** Summary of the finite values (NaN marks a sample that did not happen). */
export function summarize(xs: Iterable<number>): Summary {
  const s = sortedCopy(Array.from(xs).filter(Number.isFinite));
  const mean = s.length === 0 ? NaN : s.reduce((a, b) => a + b, 0) / s.length;
  return { n: s.length, p50: percentile(s, 0.5), p99: percentile(s, 0.99), max: s[s.length - 1] ?? NaN, mean };
}

/** Rounds to `digits` significant-ish decimals for reporting (keeps integers whole). */
export function round(x: number, digits = 3): number {
  if (!Number.isFinite(x)) return x;
  if (Math.abs(x) >= 1000) return Math.round(x);
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** "p50/p95" of `xs` (any order), each rounded with {@link round} to `digits`, for a figure cell. */
export function p50p95(xs: Iterable<number>, digits = 3): string {
  const s = sortedCopy(xs);
  return `${round(percentile(s, 0.5), digits)}/${round(percentile(s, 0.95), digits)}`;
}

/**
 * Quantile `q` of a fixed-bucket histogram (`counts[i]` samples in bucket i, each `width` wide,
 * `total` in all): the upper edge of the bucket holding it (conservative), capped at `max`, the
 * largest sample seen; NaN when empty.
 */
export function bucketQuantile(counts: ArrayLike<number>, total: number, q: number, width: number, max: number): number {
  if (total === 0) return NaN;
  const target = Math.ceil(q * total);
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i]!;
    if (seen >= target) return Math.min(max, (i + 1) * width);
  }
  return max;
}

/**
 * A fixed-bucket lateness histogram (0.05 ms buckets up to 200 ms, then an overflow bucket):
 * constant memory however many samples a long paced run records, mergeable across workers.
 */
export class LatencyHistogram {
  static readonly BUCKET_MS = 0.05;
  static readonly BUCKETS = 4000;
  readonly counts = new Float64Array(LatencyHistogram.BUCKETS + 1);
  count = 0;
  maxMs = 0;
  sumMs = 0;

  record(ms: number): void {
    const v = ms < 0 ? 0 : ms;
    const i = Math.min(LatencyHistogram.BUCKETS, Math.floor(v / LatencyHistogram.BUCKET_MS));
    this.counts[i]!++;
    this.count++;
    this.sumMs += v;
    if (v > this.maxMs) this.maxMs = v;
  }

  merge(other: { counts: ArrayLike<number>; count: number; maxMs: number; sumMs: number }): void {
    for (let i = 0; i < this.counts.length; i++) this.counts[i]! += other.counts[i]!;
    this.count += other.count;
    this.sumMs += other.sumMs;
    if (other.maxMs > this.maxMs) this.maxMs = other.maxMs;
  }

  /** Upper edge of the bucket holding quantile `q` (conservative), capped at the max seen. */
  quantile(q: number): number {
    return bucketQuantile(this.counts, this.count, q, LatencyHistogram.BUCKET_MS, this.maxMs);
  }

  toJSON(): { counts: number[]; count: number; maxMs: number; sumMs: number } {
    return { counts: Array.from(this.counts), count: this.count, maxMs: this.maxMs, sumMs: this.sumMs };
  }
}
