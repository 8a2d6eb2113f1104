import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FULL_WINDOW,
  judgeStep,
  MAX_WINDOW_MS,
  MAX_VOID_RERUNS,
  MIN_STEP_SENDS,
  poolTrials,
  settleTrial,
  STEAL_VOID_SHARE,
  trialVoid,
  VOID_RULE,
  STEADY_WINDOW_MS,
  unexplainedUnderruns,
  windowClosed,
  type StepOutcome,
  type TrialOutcome,
} from '../../bench/lib/callStep.js';
import { LatenessHistogram } from '../../src/telephony/LatenessHistogram.js';

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

  describe('a step judged on its trials pooled', () => {
    /** A trial of `calls` calls whose sends were late by `lateMs` (one entry per send), otherwise clean. */
    function trial(lateMs: readonly number[], calls = 10, extra: Partial<StepOutcome> = {}): TrialOutcome<LatenessHistogram> {
      const lateness = new LatenessHistogram();
      for (const ms of lateMs) lateness.record(ms);
      const outcome: StepOutcome = {
        p99: lateness.quantile(0.99),
        sends: lateness.count,
        calls,
        liveThroughWindow: calls,
        failedUtterances: 0,
        unexplainedUnderruns: 0,
        detectorsBehind: 0,
        ...extra,
      };
      return { lateness, outcome };
    }
    const sends = (n: number, ms: number): number[] => new Array<number>(n).fill(ms);
    const pool = (trials: TrialOutcome<LatenessHistogram>[]) => poolTrials(trials, () => new LatenessHistogram());

    it('one trial with a stall over 2.5 % of its sends fails on its own, but passes pooled with two clean ones (0.8 % of all)', () => {
      const stalled = trial([...sends(975, 1), ...sends(25, 20)]);
      expect(judgeStep((stalled as { outcome: StepOutcome }).outcome).met).toBe(false);
      const p = pool([trial(sends(1000, 1)), stalled, trial(sends(1000, 1))]);
      expect(p.met).toBe(true);
      expect(p.outcome.sends).toBe(3000);
      expect(p.outcome.p99).toBeCloseTo(1.1, 5);
      expect(p.trialsPassed).toBe(2);
      expect(p.trials).toBe(3);
      expect(p.trialP99).toEqual([1, 20, 1]); // a clean trial's p99 is its latest send (1 ms)
    });

    it('the pooled step fails when over 1 % of all the sends were late, though two of its trials pass alone', () => {
      // 0.9 % of each trial's sends at 8 ms: each trial's p99 is its 10th-worst send (on time), and
      // pooled the share is the same.
      const each = (): TrialOutcome<LatenessHistogram> => trial([...sends(991, 1), ...sends(9, 8)]);
      const p = pool([each(), each(), each()]);
      expect(p.trialsPassed).toBe(3);
      expect(p.met).toBe(true);
      const worse = pool([each(), trial([...sends(980, 1), ...sends(20, 8)]), each()]);
      expect(worse.trialsPassed).toBe(2);
      expect(worse.outcome.p99).toBe(8); // 38 of 3000 late: 1.3 %
      expect(worse.met).toBe(false);
      expect(worse.why).toEqual(['p99 8.00 ms > 5 ms']);
    });

    it('a trial that did not run to its end fails the step, and is counted among the trials', () => {
      const p = pool([trial(sends(1000, 1)), { error: 'step did not finish within 66 s' }, trial(sends(1000, 1))]);
      expect(p.met).toBe(false);
      expect(p.why).toEqual(['a trial did not run to its end: step did not finish within 66 s']);
      expect(p.trials).toBe(3);
      expect(p.trialsPassed).toBe(2);
      expect(p.trialP99[1]).toBeNaN();
    });

    it("one trial's underrun, failed utterance, dead call or late detector fails the pooled step", () => {
      const clean = (): TrialOutcome<LatenessHistogram> => trial(sends(1000, 1));
      expect(pool([clean(), trial(sends(1000, 1), 10, { unexplainedUnderruns: 1 }), clean()]).why).toEqual(['1 phone underruns']);
      expect(pool([clean(), clean(), trial(sends(1000, 1), 10, { failedUtterances: 2 })]).why).toEqual(['2 utterances failed']);
      expect(pool([trial(sends(1000, 1), 10, { liveThroughWindow: 9 }), clean(), clean()]).why).toEqual([
        '1 of 30 calls not live through the window',
      ]);
      expect(pool([clean(), trial(sends(1000, 1), 10, { detectorsBehind: 1 })]).why).toEqual(["1 calls' detectors behind"]);
    });

    it('no trial: not met', () => {
      expect(pool([]).met).toBe(false);
    });

    /** Trials drawn as lists of sends' lateness (ms), some with an underrun, some that did not finish. */
    const trialsArb = fc.array(
      fc.oneof(
        {
          weight: 6,
          arbitrary: fc.tuple(fc.array(fc.double({ min: 0, max: 40, noNaN: true }), { minLength: 1, maxLength: 60 }), fc.nat(1)),
        },
        { weight: 1, arbitrary: fc.constant('error' as const) },
      ),
      { minLength: 1, maxLength: 5 },
    );
    const build = (spec: readonly (readonly [number[], number] | 'error')[]): TrialOutcome<LatenessHistogram>[] =>
      spec.map((t) => (t === 'error' ? { error: 'did not finish' } : trial(t[0], 2, { unexplainedUnderruns: t[1] })));

    it('pooling does not depend on the order of the trials', () => {
      fc.assert(
        fc.property(trialsArb, fc.nat(), (spec, seed) => {
          const a = pool(build(spec));
          const shuffled = [...spec];
          for (let i = shuffled.length - 1; i > 0; i--) {
            const j = (seed + i * 7919) % (i + 1);
            [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
          }
          const b = pool(build(shuffled));
          expect(b.met).toBe(a.met);
          expect(b.outcome).toEqual(a.outcome);
          expect(b.trialsPassed).toBe(a.trialsPassed);
          expect([...b.why].sort()).toEqual([...a.why].sort());
          const sorted = (xs: number[]): number[] => xs.map((x) => (Number.isNaN(x) ? Infinity : x)).sort((x, y) => x - y);
          expect(sorted(b.trialP99)).toEqual(sorted(a.trialP99));
        }),
      );
    });

    it("the pooled p99 lies between the trials' own p99s, and the pooled step passes only if some trial would", () => {
      fc.assert(
        fc.property(trialsArb, (spec) => {
          const p = pool(build(spec));
          const finished = p.trialP99.filter(Number.isFinite);
          if (finished.length > 0) {
            expect(p.outcome.p99).toBeGreaterThanOrEqual(Math.min(...finished) - 1e-9);
            expect(p.outcome.p99).toBeLessThanOrEqual(Math.max(...finished) + 1e-9);
          }
          if (p.met) expect(p.trialsPassed).toBeGreaterThan(0);
          expect(p.outcome.sends).toBe(spec.reduce((n, t) => n + (t === 'error' ? 0 : t[0].length), 0));
        }),
      );
    });
  });

  describe('a trial run the host disturbed is void and run again', () => {
    /** A run as the bench sees it: the steal share of its window and its p99. */
    interface Run {
      steal: number;
      p99: number;
    }
    /** Runs `runs` in order through the rule; returns what was kept and how many runs it took. */
    async function settle(
      runs: readonly Run[],
    ): Promise<{ kept: Run; voids: number; disturbed: boolean; ran: number; voidShares: number[] }> {
      let ran = 0;
      const s = await settleTrial(
        async () => runs[Math.min(ran++, runs.length - 1)]!,
        (r) => r.steal,
      );
      return { kept: s.trial, voids: s.voids, disturbed: s.disturbed, ran, voidShares: s.voidShares };
    }

    it('a window that lost 5 % or less of the CPU time to steal counts; more is void', () => {
      expect(STEAL_VOID_SHARE).toBe(0.05);
      expect(trialVoid(STEAL_VOID_SHARE)).toBe(false);
      expect(trialVoid(0.026)).toBe(false); // the worst ordinary window seen on the bench VM
      expect(trialVoid(0.051)).toBe(true);
      expect(trialVoid(0)).toBe(false);
    });

    it('a steal share that could not be measured (no /proc/stat, a trial that failed) is not void', () => {
      expect(trialVoid(NaN)).toBe(false);
    });

    it('a void run is run again and the next clean run counts, though the void one had the better p99', async () => {
      const r = await settle([
        { steal: 0.08, p99: 2 },
        { steal: 0.01, p99: 7 },
      ]);
      expect(r.kept).toEqual({ steal: 0.01, p99: 7 });
      expect(r.voids).toBe(1);
      expect(r.voidShares).toEqual([0.08]);
      expect(r.disturbed).toBe(false);
      expect(r.ran).toBe(2);
    });

    it('after two reruns that are all void, the third run counts, flagged as disturbed', async () => {
      const r = await settle([
        { steal: 0.1, p99: 9 },
        { steal: 0.07, p99: 1 },
        { steal: 0.06, p99: 12 },
        { steal: 0, p99: 1 },
      ]);
      expect(MAX_VOID_RERUNS).toBe(2);
      expect(r.ran).toBe(3);
      expect(r.kept).toEqual({ steal: 0.06, p99: 12 });
      expect(r.voids).toBe(2);
      expect(r.disturbed).toBe(true);
    });

    it('a void run is kept, flagged, when the budget allows no rerun', async () => {
      const runs = [
        { steal: 0.09, p99: 3 },
        { steal: 0, p99: 3 },
      ];
      let ran = 0;
      const s = await settleTrial(
        async () => runs[ran++]!,
        (r) => r.steal,
        VOID_RULE,
        () => {},
        () => false,
      );
      expect(ran).toBe(1);
      expect(s).toEqual({ trial: runs[0], voids: 0, voidShares: [], disturbed: true });
    });

    const runsArb = fc.array(
      fc.record({
        steal: fc.oneof(fc.double({ min: 0, max: 0.2, noNaN: true }), fc.constant(NaN)),
        p99: fc.double({ min: 0, max: 50, noNaN: true }),
      }),
      { minLength: 3, maxLength: 3 },
    );

    it('keeps the first run within the limit (or the last allowed), runs at most 1 + 2 times, and never looks at the lateness', async () => {
      await fc.assert(
        fc.asyncProperty(
          runsArb,
          fc.array(fc.double({ min: 0, max: 50, noNaN: true }), { minLength: 3, maxLength: 3 }),
          async (runs, otherP99) => {
            const a = await settle(runs);
            expect(a.ran).toBeLessThanOrEqual(1 + VOID_RULE.maxReruns);
            const firstClean = runs.findIndex((r) => !trialVoid(r.steal));
            const expected = firstClean === -1 ? VOID_RULE.maxReruns : firstClean;
            expect(a.ran).toBe(expected + 1);
            expect(a.kept).toBe(runs[expected]);
            expect(a.voids).toBe(Math.min(expected, VOID_RULE.maxReruns));
            expect(a.disturbed).toBe(firstClean === -1);
            // The same steal shares with any other lateness: the same run is kept.
            const b = await settle(runs.map((r, i) => ({ steal: r.steal, p99: otherP99[i]! })));
            expect(b.ran).toBe(a.ran);
            expect(b.kept.steal).toBe(a.kept.steal);
          },
        ),
      );
    });
  });
});
