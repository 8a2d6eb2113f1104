import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FULL_WINDOW,
  judgeStep,
  MAX_WINDOW_MS,
  MIN_STEP_SENDS,
  STEADY_WINDOW_MS,
  unexplainedUnderruns,
  windowClosed,
  type StepOutcome,
} from '../../bench/lib/callStep.js';

/** Sends per second of N Twilio calls (one paced 20 ms frame each). */
const sendsPerSecond = (calls: number): number => calls * 50;

/** The window's length for N calls under the full rule, stepping time by 100 ms as the bench polls. */
function windowFor(calls: number): { ms: number; sends: number } {
  for (let ms = 0; ; ms += 100) {
    const sends = Math.floor((sendsPerSecond(calls) * ms) / 1000);
    if (windowClosed(ms, sends, FULL_WINDOW)) return { ms, sends };
  }
}

const passing: StepOutcome = {
  p99: 3,
  sends: 2000,
  calls: 10,
  liveThroughWindow: 10,
  failedUtterances: 0,
  unexplainedUnderruns: 0,
  detectorsBehind: 0,
};

describe('telephony bench step rule', () => {
  it('ten calls close the window after 5 s, with 2500 sends', () => {
    expect(windowFor(10)).toEqual({ ms: STEADY_WINDOW_MS, sends: 2500 });
  });

  it('one call keeps the window open until it has 1000 sends (20 s)', () => {
    const w = windowFor(1);
    expect(w.sends).toBeGreaterThanOrEqual(MIN_STEP_SENDS);
    expect(w.ms).toBe(MAX_WINDOW_MS);
  });

  it('a contender that sends little (Exotel: one 200 ms batch per call) closes at the cap with what it has', () => {
    // 2 calls × 5 batches a second: 200 sends by 20 s.
    expect(windowClosed(MAX_WINDOW_MS - 100, 199, FULL_WINDOW)).toBe(false);
    expect(windowClosed(MAX_WINDOW_MS, 200, FULL_WINDOW)).toBe(true);
  });

  it('the window never closes before 5 s, nor stays open past the cap', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60_000 }), fc.integer({ min: 0, max: 100_000 }), (ms, sends) => {
        const closed = windowClosed(ms, sends, FULL_WINDOW);
        if (ms < STEADY_WINDOW_MS) expect(closed).toBe(false);
        if (ms >= MAX_WINDOW_MS) expect(closed).toBe(true);
        if (ms >= STEADY_WINDOW_MS && sends >= MIN_STEP_SENDS) expect(closed).toBe(true);
      }),
    );
  });

  it('one stall that delays 10 sends of a 1000-send step cannot fail it: p99 is the 10th-worst send', () => {
    // The reason for the minimum: p99 of n sends is decided by its ceil(n / 100)-th worst.
    expect(Math.ceil(MIN_STEP_SENDS / 100)).toBe(10);
  });

  it('a step passes with p99 within 5 ms, every call live, nothing failed, dry or behind', () => {
    expect(judgeStep(passing)).toEqual({ met: true, why: [] });
  });

  it('fails on p99 over 5 ms and says so', () => {
    const v = judgeStep({ ...passing, p99: 5.2 });
    expect(v.met).toBe(false);
    expect(v.why).toEqual(['p99 5.20 ms > 5 ms']);
  });

  it('p99 exactly at the target passes', () => {
    expect(judgeStep({ ...passing, p99: 5 }).met).toBe(true);
  });

  it('fails on any call behind in its barge-in detector, however punctual the sends', () => {
    const v = judgeStep({ ...passing, detectorsBehind: 1 });
    expect(v.met).toBe(false);
    expect(v.why).toEqual(["1 calls' detectors behind"]);
  });

  it('fails with no sends, a call not live through the window, a failed utterance or a dry phone, naming each', () => {
    const v = judgeStep({ ...passing, sends: 0, liveThroughWindow: 9, failedUtterances: 2, unexplainedUnderruns: 3 });
    expect(v.met).toBe(false);
    expect(v.why).toEqual([
      'no paced send in the window',
      '1 of 10 calls not live through the window',
      '2 utterances failed',
      '3 phone underruns',
    ]);
  });

  it("a phone's underruns up to its call's barge-in pauses and clears are the bridge's doing; more count", () => {
    expect(unexplainedUnderruns([1, 2, 0], [1, 2, 5])).toBe(0);
    expect(unexplainedUnderruns([3, 0, 1], [1, 0, 0])).toBe(3);
    // Without barge-in (nothing held back), every underrun counts.
    expect(unexplainedUnderruns([1, 1], [])).toBe(2);
  });
});
