/**
 * The search for the largest number of concurrent calls that passes a step (telephony bench):
 * coarse steps upward until the first step that fails, then bisection between the last pass and
 * that fail, at most `maxBisections` more steps, stopping once the gap is within
 * {@link BISECT_RESOLUTION} of the failing N. Every step runs once and counts as it came out: no
 * retry of a failed step, no best of two trials (either would flatter whichever side got it).
 */

/** Bisection stops once the gap between the last pass and the first fail is within this share of the fail (10 %). */
export const BISECT_RESOLUTION = 0.1;

export class CallSearch {
  /** The largest N that passed (0: none yet). */
  largest = 0;
  /** The smallest N that failed (null: none yet). */
  failed: number | null = null;
  /** Steps run, in order. */
  readonly tried: number[] = [];
  private coarse = 0;
  private bisections = 0;

  /** `steps`: the coarse steps, ascending. */
  constructor(
    private readonly steps: readonly number[],
    private readonly maxBisections: number,
  ) {}

  /** The next N to try, or null when the search is over. */
  next(): number | null {
    if (this.failed === null) return this.coarse < this.steps.length ? this.steps[this.coarse]! : null;
    const gap = this.failed - this.largest;
    if (this.bisections >= this.maxBisections || gap <= Math.max(1, this.failed * BISECT_RESOLUTION)) return null;
    return Math.floor((this.largest + this.failed) / 2);
  }

  /** Records the outcome of the step `next()` proposed. */
  record(calls: number, passed: boolean): void {
    this.tried.push(calls);
    if (this.failed === null) this.coarse++;
    else this.bisections++;
    if (passed) this.largest = Math.max(this.largest, calls);
    else this.failed = this.failed === null ? calls : Math.min(this.failed, calls);
  }
}
