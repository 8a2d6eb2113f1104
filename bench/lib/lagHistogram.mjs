/**
 * How late a thread's timers fire, in fixed buckets (no sample kept, no allocation per record): the
 * bench phones (bench/providerPeers.worker.mjs) record each timer's lateness (fire time minus due
 * time) over the bench's window, a direct sign of whether their thread gets a CPU in time (under
 * `SCHED_IDLE` it only gets what the bridge leaves; bench/lib/threadPolicy.mjs).
 *
 * Plain JavaScript: the phones' worker thread runs without a TypeScript loader.
 */

/** Bucket width, ms: finer than the bench's 5 ms target and than a 20 ms frame. */
export const LAG_BUCKET_MS = 0.25;
/** Lateness up to this is bucketed; beyond, only counted and kept as the maximum (2 s: far past any frame). */
export const LAG_RANGE_MS = 2000;
const BUCKETS = Math.round(LAG_RANGE_MS / LAG_BUCKET_MS);

export class LagHistogram {
  constructor() {
    this.buckets = new Uint32Array(BUCKETS + 1); // the last one: over the range
    this.count = 0;
    this.maxMs = 0;
  }

  /** One timer's lateness in ms (a timer that fired early counts as on time; NaN is ignored). */
  record(ms) {
    if (!(ms >= 0)) ms = ms < 0 ? 0 : NaN;
    if (Number.isNaN(ms)) return;
    this.buckets[Math.min(BUCKETS, Math.floor(ms / LAG_BUCKET_MS))]++;
    this.count++;
    if (ms > this.maxMs) this.maxMs = ms;
  }

  /**
   * The q-quantile (0..1): the upper edge of the bucket holding it (at most {@link LAG_BUCKET_MS}
   * above the exact value), the maximum when it lies over the range; NaN when nothing was recorded.
   */
  quantile(q) {
    if (this.count === 0) return NaN;
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.buckets[i];
      if (seen >= rank) return Math.min(this.maxMs, (i + 1) * LAG_BUCKET_MS);
    }
    return this.maxMs;
  }

  /** How many recorded were `ms` late or later (exact when `ms` is a multiple of {@link LAG_BUCKET_MS}). */
  over(ms) {
    let n = 0;
    for (let i = Math.ceil(ms / LAG_BUCKET_MS); i <= BUCKETS; i++) n += this.buckets[i];
    return n;
  }

  reset() {
    this.buckets.fill(0);
    this.count = 0;
    this.maxMs = 0;
  }
}
