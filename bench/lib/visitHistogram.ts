import { bucketQuantile } from './stats.js';

/**
 * How long one loop visit holds the event loop (a stream's timer callback: its frame tick with
 * `readFrame()` and any decode it triggers, or its feed tick with the writes of an event), in
 * microseconds. A paced stream's frame is late by the visits queued ahead of its timer, so their
 * spread (a few long visits against many short ones) matters beside their sum: the same CPU in
 * longer visits makes more lateness. Wall time (`performance.now()`): on a loaded machine a
 * preempted visit reads long, so the upper tail is for direction, the median and p90 hold.
 *
 * Fixed buckets (1 µs up to {@link VisitHistogram.BUCKETS} µs, then one overflow bucket):
 * constant memory, mergeable across workers and child processes (`toJSON` / `merge`).
 */
export class VisitHistogram {
  /** 20 ms: a visit longer than a frame period is off the scale (counted in the overflow bucket). */
  static readonly BUCKETS = 20_000;
  readonly counts = new Float64Array(VisitHistogram.BUCKETS + 1);
  count = 0;
  maxUs = 0;
  sumUs = 0;

  record(us: number): void {
    const v = us < 0 ? 0 : us;
    this.counts[Math.min(VisitHistogram.BUCKETS, Math.floor(v))]!++;
    this.count++;
    this.sumUs += v;
    if (v > this.maxUs) this.maxUs = v;
  }

  merge(other: VisitHistogramJSON): void {
    for (const [i, n] of other.nonZero) this.counts[i]! += n;
    this.count += other.count;
    this.sumUs += other.sumUs;
    if (other.maxUs > this.maxUs) this.maxUs = other.maxUs;
  }

  /** Upper edge of the bucket holding quantile `q` (conservative), capped at the max seen. */
  quantile(q: number): number {
    return bucketQuantile(this.counts, this.count, q, 1, this.maxUs);
  }

  /** The share of all visit time spent in visits of at least `us` microseconds (0..1). */
  timeShareAbove(us: number): number {
    if (this.sumUs === 0) return 0;
    let t = 0;
    for (let i = Math.floor(us); i < this.counts.length; i++) t += this.counts[i]! * (i + 0.5);
    return Math.min(1, t / this.sumUs);
  }

  /**
   * The mean residual visit, Σ s² / (2 Σ s) over the visits (bucket middles): how long a timer that
   * falls due at a random moment while the loop is busy waits for the visit in progress to end.
   * Queueing theory's term for service-time spread (Pollaczek–Khinchine: the mean wait is this
   * times ρ / (1 − ρ) at utilisation ρ), so at the same CPU, longer bursts raise lateness through it.
   */
  residualUs(): number {
    let s1 = 0;
    let s2 = 0;
    for (let i = 0; i < this.counts.length; i++) {
      const n = this.counts[i]!;
      if (n === 0) continue;
      const x = i < VisitHistogram.BUCKETS ? i + 0.5 : this.maxUs;
      s1 += n * x;
      s2 += n * x * x;
    }
    return s1 === 0 ? NaN : s2 / (2 * s1);
  }

  get meanUs(): number {
    return this.count === 0 ? NaN : this.sumUs / this.count;
  }

  /** Sparse (a child process prints it as one JSON line). */
  toJSON(): VisitHistogramJSON {
    const nonZero: [number, number][] = [];
    for (let i = 0; i < this.counts.length; i++) if (this.counts[i]! > 0) nonZero.push([i, this.counts[i]!]);
    return { nonZero, count: this.count, maxUs: this.maxUs, sumUs: this.sumUs };
  }

  static from(json: VisitHistogramJSON): VisitHistogram {
    const h = new VisitHistogram();
    h.merge(json);
    return h;
  }

  /** "p50/p90/p99/p99.9/max µs" for a log line or a note. */
  describe(): string {
    const r = (x: number): number => Math.round(x);
    return `${r(this.quantile(0.5))}/${r(this.quantile(0.9))}/${r(this.quantile(0.99))}/${r(this.quantile(0.999))}/${r(this.maxUs)} µs`;
  }
}

export interface VisitHistogramJSON {
  /** [bucket, count] for every bucket that counted something. */
  nonZero: [number, number][];
  count: number;
  maxUs: number;
  sumUs: number;
}
