/**
 * How late paced sends go out, kept in fixed buckets so a long call uses constant memory.
 * Lateness = the time a paced send happened minus the time it was due (timer jitter plus event
 * loop load). Merge the histograms of many calls to get a process-wide percentile.
 */

/** Bucket width in milliseconds. */
export const LATENESS_BUCKET_MS = 0.1;
/** Buckets cover 0 … 200 ms; anything later lands in the last one. */
export const LATENESS_BUCKETS = 2000;

export class LatenessHistogram {
  readonly counts = new Uint32Array(LATENESS_BUCKETS);
  count = 0;
  maxMs = 0;
  sumMs = 0;

  record(latenessMs: number): void {
    const ms = latenessMs > 0 ? latenessMs : 0;
    const bucket = Math.min(LATENESS_BUCKETS - 1, Math.floor(ms / LATENESS_BUCKET_MS));
    this.counts[bucket]! += 1;
    this.count++;
    this.sumMs += ms;
    if (ms > this.maxMs) this.maxMs = ms;
  }

  /** Forgets everything (e.g. after a warm-up). */
  reset(): void {
    this.counts.fill(0);
    this.count = 0;
    this.maxMs = 0;
    this.sumMs = 0;
  }

  merge(other: LatenessHistogram): void {
    for (let i = 0; i < LATENESS_BUCKETS; i++) this.counts[i]! += other.counts[i]!;
    this.count += other.count;
    this.sumMs += other.sumMs;
    if (other.maxMs > this.maxMs) this.maxMs = other.maxMs;
  }

  /** The upper edge of the bucket holding quantile `q` (0…1); 0 when empty. */
  quantile(q: number): number {
    if (this.count === 0) return 0;
    const rank = Math.ceil(q * this.count);
    let seen = 0;
    for (let i = 0; i < LATENESS_BUCKETS; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return Math.min(this.maxMs, (i + 1) * LATENESS_BUCKET_MS);
    }
    return this.maxMs;
  }

  get meanMs(): number {
    return this.count === 0 ? 0 : this.sumMs / this.count;
  }
}
