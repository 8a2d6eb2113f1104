import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CallSearch,
  geometricMidpoint,
  openTargets,
  resolved,
  SEARCH_RESOLUTION,
  stepBound,
  targetCalls,
  trialOrder,
  type LadderRule,
} from '../../bench/lib/callSearch.js';

/** The bench's full-run ladder (bench/telephony.bench.ts `FULL_LADDER`). */
const FULL: LadderRule = { coarse: [50, 140, 400], below: [10, 1], maxFine: 4 };
/** The bench's quick ladder. */
const QUICK: LadderRule = { coarse: [10], below: [1], maxFine: 0 };
/**
 * Worst ratio of first fail to largest pass the full ladder leaves for a capacity between its
 * first and last coarse rung: 7 % plus the rounding to whole calls (53 calls: 53 / 57 = 1.0755).
 */
const ROUNDED_RESOLUTION = 0.08;

/** Runs a search to its end against `passes` (a step's verdict per N). */
function searchWith(passes: (n: number) => boolean, rule: LadderRule = FULL): CallSearch {
  const search = new CallSearch(rule);
  for (let n = search.next(); n !== null; n = search.next()) search.record(n, passes(n));
  return search;
}

/** A machine that passes every N up to `capacity` and none above. */
const upTo = (capacity: number, rule: LadderRule = FULL): CallSearch => searchWith((n) => n <= capacity, rule);

describe('telephony bench call search', () => {
  it('climbs 50, 140, 400 until the first fail, then bisects geometrically between the last pass and that fail', () => {
    const search = upTo(187);
    // 237 = √(140 × 400) fails, 182 = √(140 × 237) passes, 208 and 195 fail: four bisections.
    expect(search.tried).toEqual([50, 140, 400, 237, 182, 208, 195]);
    expect(search.verdicts).toEqual([true, true, false, false, true, false, false]);
    expect(search.largest).toBe(182);
    expect(search.failed).toBe(195);
    expect(search.next()).toBeNull();
  });

  it('stops bisecting once the largest pass is within 7 % of the first fail', () => {
    expect(resolved(100, 107)).toBe(true);
    expect(resolved(100, 108)).toBe(false);
    expect(resolved(5, 6)).toBe(true); // nothing between
    const search = upTo(300);
    expect(search.failed! / search.largest).toBeLessThanOrEqual(1 + SEARCH_RESOLUTION);
  });

  it('tries 10 calls, then 1, only while everything below 50 failed', () => {
    expect(upTo(30).tried.slice(0, 3)).toEqual([50, 10, 22]);
    expect(upTo(5).tried.slice(0, 3)).toEqual([50, 10, 1]);
    expect(upTo(80).tried).not.toContain(10);
  });

  it('a machine that fails one call ends the search with 0 after 50, 10 and 1', () => {
    const search = upTo(0);
    expect(search.tried).toEqual([50, 10, 1]);
    expect(search.largest).toBe(0);
    expect(search.failed).toBe(1);
    expect(search.next()).toBeNull();
  });

  it('passing every coarse rung ends the search at the top rung, with no failing N', () => {
    const search = upTo(1000);
    expect(search.tried).toEqual([50, 140, 400]);
    expect(search.failed).toBeNull();
  });

  it('a quick search runs 10 calls, and 1 only when 10 fails, with no bisection', () => {
    expect(upTo(30, QUICK).tried).toEqual([10]);
    expect(upTo(3, QUICK).tried).toEqual([10, 1]);
    expect(upTo(3, QUICK).largest).toBe(1);
    expect(stepBound(QUICK)).toBe(2);
  });

  it('the geometric midpoint lies strictly between its ends', () => {
    expect(geometricMidpoint(140, 400)).toBe(237);
    expect(geometricMidpoint(1, 3)).toBe(2);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 2, max: 1000 }), (lo, gap) => {
        const mid = geometricMidpoint(lo, lo + gap);
        expect(mid).toBeGreaterThan(lo);
        expect(mid).toBeLessThan(lo + gap);
      }),
    );
  });

  it('whatever the verdicts, a search never exceeds its step bound and never repeats an N', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), (verdicts) => {
        let k = 0;
        const search = searchWith(() => verdicts[k++]!);
        expect(search.tried.length).toBeLessThanOrEqual(stepBound(FULL));
        expect(new Set(search.tried).size).toBe(search.tried.length);
        expect(search.next()).toBeNull();
      }),
    );
  });

  it('a contender that passes every N up to N* and fails above is found within the ladder resolution', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 600 }), (capacity) => {
        const search = upTo(capacity);
        expect(search.largest).toBeLessThanOrEqual(capacity);
        if (search.failed === null) {
          expect(search.largest).toBe(400); // the top rung passed: "≥ 400"
          return;
        }
        expect(search.failed).toBeGreaterThan(capacity);
        if (capacity >= 50 && capacity < 400) expect(search.failed / search.largest).toBeLessThanOrEqual(1 + ROUNDED_RESOLUTION);
        if (capacity >= 1) expect(search.largest).toBeGreaterThanOrEqual(1);
      }),
    );
  });

  it('one wrong fail near the top costs at most one rung below the N where it fell', () => {
    // A contender of capacity c whose first step within 5 % below c fails by noise (the others
    // judged right): the search reads at least that N / 1.08, 88 % of c at worst.
    fc.assert(
      fc.property(fc.integer({ min: 55, max: 380 }), (capacity) => {
        let noisy: number | null = null;
        const search = searchWith((n) => {
          if (n <= capacity && noisy === null && n >= 0.95 * capacity) {
            noisy = n;
            return false;
          }
          return n <= capacity;
        });
        if (noisy === null) return; // no step fell within 5 % of c
        expect(search.largest * (1 + ROUNDED_RESOLUTION)).toBeGreaterThanOrEqual(noisy);
        expect(search.largest / capacity).toBeGreaterThanOrEqual(0.95 / (1 + ROUNDED_RESOLUTION));
      }),
      { numRuns: 300 },
    );
  });

  it('two contenders whose verdicts agree try the same N, step for step, until their verdicts differ', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 500 }), (a, b) => {
        const sa = upTo(a);
        const sb = upTo(b);
        for (let i = 0; i < Math.min(sa.tried.length, sb.tried.length); i++) {
          expect(sa.tried[i]).toBe(sb.tried[i]);
          if (sa.verdicts[i] !== sb.verdicts[i]) break;
        }
      }),
    );
  });

  describe('the order of a round', () => {
    it('each trial runs every step once, and the first place rotates from trial to trial and round to round', () => {
      expect(trialOrder(['a', 'b', 'c'], 0, 0)).toEqual(['a', 'b', 'c']);
      expect(trialOrder(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'c', 'a']);
      expect(trialOrder(['a', 'b', 'c'], 1, 0)).toEqual(['b', 'c', 'a']);
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 9 }), fc.nat(20), (n, round) => {
          const xs = Array.from({ length: n }, (_, i) => i);
          const firsts = new Set<number>();
          for (let t = 0; t < n; t++) {
            const order = trialOrder(xs, round, t);
            expect([...order].sort((x, y) => x - y)).toEqual(xs);
            firsts.add(order[0]!);
          }
          expect(firsts.size).toBe(n); // over n trials every step runs first once
        }),
      );
    });
  });

  describe('the target check after a search', () => {
    it('one step at ⌈90 % of the reference⌉ decides a target the searches left open', () => {
      // Reference 187 → 182 (first fail 195); a contender of the same capacity whose step at 182
      // failed by noise reads 168 (first fail 182): the target N 164 is below its largest pass.
      const twilio = upTo(187);
      const calls = targetCalls(twilio.largest, 0.9);
      expect(calls).toBe(164);
      const telnyx = searchWith((n) => n <= 187 && n !== 182);
      expect(telnyx.largest).toBeGreaterThanOrEqual(calls);
      expect(telnyx.isOpen(calls)).toBe(false);
      // A contender whose bracket straddles the target N gets the check.
      const other = new CallSearch(FULL);
      other.record(140, true);
      other.record(170, false);
      expect(other.isOpen(calls)).toBe(true);
      other.record(calls, true);
      expect(other.largest / twilio.largest).toBeGreaterThanOrEqual(0.9);
    });

    it("lists only the open targets, each with its N, against each contender's own reference", () => {
      const searches: Record<string, CallSearch> = {
        twilio: upTo(187), // 182
        telnyx: searchWith((n) => n <= 160 && n !== 140), // 140 fails: 50 ✓, 140 ✗, then 84, 108, 123, 131 → 131 (first fail 140)
        plivo: upTo(250), // above 164 already
        exotel: upTo(60), // first fail below 164
        off: upTo(120),
        on: upTo(0),
        silent: upTo(0), // 0: sets no target
        other: upTo(5),
      };
      const pairs = [
        ...['telnyx', 'plivo', 'exotel'].map((contender) => ({ contender, reference: 'twilio', share: 0.9 })),
        { contender: 'on', reference: 'off', share: 0.9 },
        { contender: 'other', reference: 'silent', share: 0.9 },
      ];
      const open = openTargets(pairs, (k) => searches[k]!);
      // Telnyx's first fail (140) is below 164: known failed, no check; none is open.
      expect(searches['telnyx']!.failed).toBe(140);
      expect(open).toEqual([]);
      searches['telnyx'] = new CallSearch(FULL);
      searches['telnyx'].record(150, true);
      searches['telnyx'].record(170, false);
      expect(openTargets(pairs, (k) => searches[k]!)).toEqual([{ contender: 'telnyx', reference: 'twilio', share: 0.9, calls: 164 }]);
    });

    it('the target N is the least whole N at or above the share of the reference, whatever the reference', () => {
      expect(targetCalls(110, 0.9)).toBe(99); // 0.9 × 110 is 99.00000000000001 in floating point
      expect(targetCalls(100, 0.9)).toBe(90);
      expect(targetCalls(1, 0.9)).toBe(1);
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 1000 }), (reference) => {
          const n = targetCalls(reference, 0.9);
          expect(n / reference).toBeGreaterThanOrEqual(0.9);
          if (n > 1) expect((n - 1) / reference).toBeLessThan(0.9);
        }),
      );
    });

    it('a step is open exactly between the largest pass and the first fail of any finished search', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 1, max: 600 }), (capacity, n) => {
          const search = upTo(capacity);
          const open = n > search.largest && (search.failed === null || n < search.failed);
          expect(search.isOpen(n)).toBe(open);
          expect(search.isOpen(search.largest)).toBe(false);
        }),
      );
    });
  });
});
