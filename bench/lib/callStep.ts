/**
 * How the telephony bench judges one step (N concurrent calls), the same rule for every contender:
 *
 * - **Enough sends.** The step's p99 media-send lateness is taken over at least
 *   {@link MIN_STEP_SENDS} paced sends: the steady window lasts {@link STEADY_WINDOW_MS} and is
 *   lengthened (up to {@link MAX_WINDOW_MS}) while fewer sends have been measured. p99 of 1000
 *   sends is the 10th-worst, so a single stall has to delay more than 10 sends to decide the step
 *   (one call: a stall of ~200 ms; N calls: more than 1 % of the window). Before this rule a step
 *   of one call was judged on ~220 sends, where p99 is the 3rd-worst and one stall failed it.
 * - **Pass** when p99 ≤ the target, every call stayed live through the window with no failed
 *   utterance, no phone ran dry except where the bridge held its media back on purpose (a
 *   barge-in pause or clear), and no call's barge-in detector fell behind.
 */

/** Target of every step: p99 media-send lateness (issues 22 and 23). */
export const TARGET_P99_MS = 5;
/** The least number of paced sends a step's p99 is taken over (the window lengthens for small N). */
export const MIN_STEP_SENDS = 1000;
/** The steady window's length when it holds enough sends (issue 23's 5 s). */
export const STEADY_WINDOW_MS = 5000;
/** The longest a window lengthens for small N (one Twilio call sends 50 a second: 1000 sends in 20 s). */
export const MAX_WINDOW_MS = 20_000;

export interface WindowRule {
  baseMs: number;
  capMs: number;
  minSends: number;
}

export const FULL_WINDOW: WindowRule = { baseMs: STEADY_WINDOW_MS, capMs: MAX_WINDOW_MS, minSends: MIN_STEP_SENDS };

/** Whether the steady window may close after `elapsedMs` with `sends` paced sends measured. */
export function windowClosed(elapsedMs: number, sends: number, rule: WindowRule): boolean {
  if (elapsedMs < rule.baseMs) return false;
  return sends >= rule.minSends || elapsedMs >= rule.capMs;
}

/**
 * Phone underruns the bridge did not cause on purpose: per call, those beyond its barge-in pauses
 * and clears (each may let the phone play out its lead and run dry once). Without barge-in every
 * underrun counts.
 */
export function unexplainedUnderruns(underruns: readonly number[], heldBack: readonly number[]): number {
  let total = 0;
  underruns.forEach((u, i) => (total += Math.max(0, u - (heldBack[i] ?? 0))));
  return total;
}

export interface StepOutcome {
  p99: number;
  /** Paced sends measured in the window. */
  sends: number;
  calls: number;
  /** Calls live (started, not closed) from the window's opening to its end. */
  liveThroughWindow: number;
  /** Utterances that ended with status `failed` during the step. */
  failedUtterances: number;
  /** From {@link unexplainedUnderruns}. */
  unexplainedUnderruns: number;
  /** Calls whose barge-in detector fell behind (`BARGE_IN_BEHIND`: caller audio dropped). */
  detectorsBehind: number;
}

/** The step's verdict and, when it fails, why (every reason, in the order of this list). */
export function judgeStep(o: StepOutcome, targetP99Ms = TARGET_P99_MS): { met: boolean; why: string[] } {
  const why: string[] = [];
  if (o.sends === 0) why.push('no paced send in the window');
  else if (o.p99 > targetP99Ms) why.push(`p99 ${o.p99.toFixed(2)} ms > ${targetP99Ms} ms`);
  if (o.liveThroughWindow < o.calls) why.push(`${o.calls - o.liveThroughWindow} of ${o.calls} calls not live through the window`);
  if (o.failedUtterances > 0) why.push(`${o.failedUtterances} utterances failed`);
  if (o.unexplainedUnderruns > 0) why.push(`${o.unexplainedUnderruns} phone underruns`);
  if (o.detectorsBehind > 0) why.push(`${o.detectorsBehind} calls' detectors behind`);
  return { met: why.length === 0, why };
}
