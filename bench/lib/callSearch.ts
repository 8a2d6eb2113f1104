/**
 * The search for the largest number of concurrent calls that passes a step (telephony bench):
 * coarse steps upward until the first step that fails, then bisection between the last pass and
 * that fail, at most `maxBisections` more steps, stopping once the gap is within
 * {@link BISECT_RESOLUTION} of the failing N. With a `fallback` (1 call), the ladder starts above
 * it and the fallback runs only when the first coarse step fails: a machine that carries 10 calls
 * is not judged on one call's few sends, and one that does not still learns whether it carries one.
 * Every step runs once and counts as it came out: no retry of a failed step, no best of two trials
 * (either would flatter whichever side got it).
 */

/** Bisection stops once the gap between the last pass and the first fail is within this share of the fail (10 %). */
export const BISECT_RESOLUTION = 0.1;

/** Float slack for {@link targetCalls}: 0.9 × 110 is 99.00000000000001 in binary floating point. */
const SHARE_EPSILON = 1e-9;

/**
 * The least whole N that is at least `share` of `reference` (⌈0.9 × 106⌉ = 96): the N a
 * contender must carry to meet a "≥ 90 % of the reference's N" target.
 */
export function targetCalls(reference: number, share: number): number {
  return Math.max(1, Math.ceil(reference * share - SHARE_EPSILON));
}

export class CallSearch {
  /** The largest N that passed (0: none yet). */
  largest = 0;
  /** The smallest N that failed (null: none yet). */
  failed: number | null = null;
  /** Steps run, in order. */
  readonly tried: number[] = [];
  private coarse = 0;
  private bisections = 0;

  /**
   * `steps`: the coarse steps, ascending. `fallback`: a smaller N tried only when the first coarse
   * step fails (then bisection goes on between it and that step); null: none.
   */
  constructor(
    private readonly steps: readonly number[],
    private readonly maxBisections: number,
    private readonly fallback: number | null = null,
  ) {}

  /** The next N to try, or null when the search is over. */
  next(): number | null {
    if (this.failed === null) return this.coarse < this.steps.length ? this.steps[this.coarse]! : null;
    if (this.fallbackDue()) return this.fallback;
    if (this.largest === 0 && this.fallback !== null) return null; // the fallback failed too
    const gap = this.failed - this.largest;
    if (this.bisections >= this.maxBisections || gap <= Math.max(1, this.failed * BISECT_RESOLUTION)) return null;
    return Math.floor((this.largest + this.failed) / 2);
  }

  /**
   * Whether a step at `calls` would tell this search something: above its largest pass and below
   * its first fail (the bench's target check runs such a step after the search has ended).
   */
  isOpen(calls: number): boolean {
    return calls > this.largest && (this.failed === null || calls < this.failed);
  }

  /** Records the outcome of a step: the one `next()` proposed, or a target check's. */
  record(calls: number, passed: boolean): void {
    const fallbackStep = this.fallbackDue() && calls === this.fallback;
    this.tried.push(calls);
    if (this.failed === null) this.coarse++;
    else if (!fallbackStep) this.bisections++;
    if (passed) this.largest = Math.max(this.largest, calls);
    else this.failed = this.failed === null ? calls : Math.min(this.failed, calls);
  }

  /** The first coarse step failed with nothing passed, and the fallback has not run yet. */
  private fallbackDue(): boolean {
    return (
      this.fallback !== null &&
      this.failed !== null &&
      this.largest === 0 &&
      this.fallback < this.failed &&
      !this.tried.includes(this.fallback)
    );
  }
}

/** A target "contender's largest N ≥ `share` × reference's largest N" (the bench's ≥ 90 % targets). */
export interface TargetPair<K> {
  contender: K;
  reference: K;
  share: number;
}

/**
 * The targets finished searches leave open: those whose N ({@link targetCalls} of the reference's
 * largest) lies above the contender's largest pass and below its first fail, with that N. A
 * reference that passed nothing sets no target.
 */
export function openTargets<K>(pairs: readonly TargetPair<K>[], searchOf: (k: K) => CallSearch): (TargetPair<K> & { calls: number })[] {
  const out: (TargetPair<K> & { calls: number })[] = [];
  for (const pair of pairs) {
    const reference = searchOf(pair.reference).largest;
    if (reference === 0) continue;
    const calls = targetCalls(reference, pair.share);
    if (searchOf(pair.contender).isOpen(calls)) out.push({ ...pair, calls });
  }
  return out;
}
