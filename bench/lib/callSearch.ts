/**
 * The search for the largest number of concurrent calls that passes a step (telephony bench).
 *
 * A step is one N judged on several trials pooled (bench/lib/callStep.ts `poolTrials`); this file
 * only decides which N comes next and what the finished search says. The ladder:
 *
 * 1. **Coarse rungs**, ascending ({@link LadderRule.coarse}), climbed until the first that fails.
 *    The rungs are the same for every contender, so contenders searched side by side run the same
 *    N in the same round until their verdicts differ.
 * 2. **Rungs below**, descending ({@link LadderRule.below}), tried only while the first coarse rung
 *    and each rung below so far failed: a loaded machine that fails 50 calls still learns whether it
 *    carries 10, or 1.
 * 3. **Geometric bisection** between the largest pass and the first fail: the next N is their
 *    geometric mean, until the largest pass is within {@link SEARCH_RESOLUTION} (7 %) of the first
 *    fail, at most {@link LadderRule.maxFine} steps. The mean is taken in ratio, not difference,
 *    because the targets are ratios (≥ 90 % of the reference's N): each bisection halves the log of
 *    the bracket's ratio, so a 2.86× bracket (50 → 140 → 400) is within 7 % after 4 steps at any N.
 *    The same bracket gives the same next N, so contenders whose verdicts agree stay at the same N.
 *
 * Why 7 %: a wrong verdict at the top costs one rung, and one rung must cost less than the 10 % a
 * ≥ 90 % target leaves (the old 10 % bisection let two contenders of the same capacity read 106
 * and 93, 88 %, after one borderline step). Every step counts as it came out: no retry of a failed
 * step, no best of several (either would flatter whichever side got it).
 */

/** Bisection stops once the largest pass is at least the first fail / (1 + this) (7 %). */
export const SEARCH_RESOLUTION = 0.07;

/** Float slack for {@link targetCalls}: 0.9 × 110 is 99.00000000000001 in binary floating point. */
const SHARE_EPSILON = 1e-9;

/**
 * The least whole N that is at least `share` of `reference` (⌈0.9 × 106⌉ = 96): the N a
 * contender must carry to meet a "≥ 90 % of the reference's N" target.
 */
export function targetCalls(reference: number, share: number): number {
  return Math.max(1, Math.ceil(reference * share - SHARE_EPSILON));
}

/** The ladder a search climbs (see the file's header). */
export interface LadderRule {
  /** Ascending. */
  coarse: readonly number[];
  /** Descending, each below the first coarse rung: tried only while everything so far failed. */
  below: readonly number[];
  /** At most this many bisection steps. */
  maxFine: number;
}

/** The most steps a search on `rule` can take: every rung once, then every bisection step. */
export function stepBound(rule: LadderRule): number {
  return rule.coarse.length + rule.below.length + rule.maxFine;
}

/** Whether a bracket (largest pass `lo`, first fail `hi`) is resolved: nothing between, or within 7 %. */
export function resolved(lo: number, hi: number): boolean {
  return hi - lo <= 1 || hi <= lo * (1 + SEARCH_RESOLUTION);
}

/** The N between `lo` and `hi` (lo + 1 < hi) a bisection tries: their geometric mean, strictly inside. */
export function geometricMidpoint(lo: number, hi: number): number {
  const mid = Math.round(Math.sqrt(lo * hi));
  return Math.min(hi - 1, Math.max(lo + 1, mid));
}

export class CallSearch {
  /** The largest N that passed (0: none yet). */
  largest = 0;
  /** The smallest N that failed (null: none yet). */
  failed: number | null = null;
  /** Steps run, in order, with their verdicts. */
  readonly tried: number[] = [];
  readonly verdicts: boolean[] = [];
  private coarse = 0;
  private below = 0;
  private fine = 0;

  constructor(readonly rule: LadderRule) {}

  /** The next N to try, or null when the search is over. */
  next(): number | null {
    const { coarse, below, maxFine } = this.rule;
    if (this.failed === null) return this.coarse < coarse.length ? coarse[this.coarse]! : null;
    if (this.largest === 0) {
      // Everything failed so far: the next rung below, if any is left under the first fail.
      while (this.below < below.length && below[this.below]! >= this.failed) this.below++;
      return this.below < below.length ? below[this.below]! : null;
    }
    if (this.fine >= maxFine || resolved(this.largest, this.failed)) return null;
    return geometricMidpoint(this.largest, this.failed);
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
    const phase = this.failed === null ? 'coarse' : this.largest === 0 ? 'below' : 'fine';
    this.tried.push(calls);
    this.verdicts.push(passed);
    if (phase === 'coarse') this.coarse++;
    else if (phase === 'below') this.below++;
    else this.fine++;
    if (passed) this.largest = Math.max(this.largest, calls);
    else this.failed = this.failed === null ? calls : Math.min(this.failed, calls);
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

/**
 * The order of the contenders for trial `trial` of round `round` (both 0-based): the list rotated
 * by `round + trial`, so no contender always runs first in a round, nor in the same place in each
 * of its trials.
 */
export function trialOrder<T>(contenders: readonly T[], round: number, trial: number): T[] {
  const n = contenders.length;
  return contenders.map((_, i) => contenders[(i + round + trial) % n]!);
}
