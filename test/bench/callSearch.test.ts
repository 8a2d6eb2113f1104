import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BISECT_RESOLUTION, CallSearch } from '../../bench/lib/callSearch.js';

const COARSE = [1, 10, 50, 100, 200, 300, 400];

/** The bench's ladder: 1 call only when 10 fails. */
const LADDER = [10, 50, 100, 200, 300, 400];

/** Runs a search against a machine that passes every N up to `capacity` (and none above). */
function searchUpTo(capacity: number, maxBisections = 4, steps: readonly number[] = COARSE, fallback: number | null = null): CallSearch {
  const search = new CallSearch(steps, maxBisections, fallback);
  for (let n = search.next(); n !== null; n = search.next()) search.record(n, n <= capacity);
  return search;
}

describe('telephony bench call search', () => {
  it('climbs the coarse steps, stops at the first fail, then bisects between 50 and 100', () => {
    const search = searchUpTo(80);
    // 75 passes, 87 and 81 fail: 75..81 is within 10 % of 81, so the search ends there.
    expect(search.tried).toEqual([1, 10, 50, 100, 75, 87, 81]);
    expect(search.largest).toBe(75);
    expect(search.failed).toBe(81);
  });

  it('bisects at most 4 steps', () => {
    const search = searchUpTo(12);
    expect(search.tried).toEqual([1, 10, 50, 30, 20, 15, 12]);
    expect(search.largest).toBe(12);
    expect(search.next()).toBeNull();
  });

  it('stops bisecting once the gap is within 10 % of the failing N', () => {
    const search = searchUpTo(99);
    // 100 fails; 75, 87, 93, 96 pass: the gap 96..100 is within 10 % of 100 after three.
    expect(search.tried.slice(0, 4)).toEqual([1, 10, 50, 100]);
    const gap = search.failed! - search.largest;
    expect(gap).toBeLessThanOrEqual(Math.max(1, search.failed! * BISECT_RESOLUTION));
    expect(search.tried.length).toBeLessThan(4 + 4);
  });

  it('a quick search (no bisection) ends at the first failing coarse step', () => {
    const search = searchUpTo(30, 0);
    expect(search.tried).toEqual([1, 10, 50]);
    expect(search.largest).toBe(10);
  });

  it('a machine that fails one call ends the search at once with 0', () => {
    const search = searchUpTo(0);
    expect(search.tried).toEqual([1]);
    expect(search.largest).toBe(0);
    expect(search.next()).toBeNull();
  });

  it('passing every coarse step ends the search at the top step, with no failing N', () => {
    const search = searchUpTo(1000);
    expect(search.tried).toEqual(COARSE);
    expect(search.failed).toBeNull();
  });

  it('whatever the capacity, the search is bounded, never repeats an N and finds the capacity within its resolution', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 500 }), (capacity) => {
        const search = searchUpTo(capacity);
        expect(new Set(search.tried).size).toBe(search.tried.length);
        expect(search.tried.length).toBeLessThanOrEqual(COARSE.length + 4);
        expect(search.largest).toBeLessThanOrEqual(capacity);
        if (search.failed === null) return; // every coarse step passed
        expect(search.failed).toBeGreaterThan(capacity);
        // Within 10 % of the failing N, or four halvings of the coarse gap.
        const coarseFail = COARSE.find((n) => n > capacity)!;
        const coarsePass = Math.max(0, ...COARSE.filter((n) => n <= capacity));
        expect(search.failed - search.largest).toBeLessThanOrEqual(
          Math.max(1, search.failed * BISECT_RESOLUTION, Math.ceil((coarseFail - coarsePass) / 16) + 1),
        );
      }),
    );
  });

  describe('with a fallback of 1 call below a ladder starting at 10', () => {
    it('never tries 1 call on a machine that carries 10', () => {
      const search = searchUpTo(80, 4, LADDER, 1);
      expect(search.tried).toEqual([10, 50, 100, 75, 87, 81]);
      expect(search.largest).toBe(75);
    });

    it('tries 1 call once 10 fails, then bisects between 1 and 10', () => {
      const search = searchUpTo(5, 4, LADDER, 1);
      expect(search.tried).toEqual([10, 1, 5, 7, 6]);
      expect(search.largest).toBe(5);
      expect(search.failed).toBe(6);
      expect(search.next()).toBeNull();
    });

    it('a machine that fails 10 and 1 ends the search with 0 after those two steps', () => {
      const search = searchUpTo(0, 4, LADDER, 1);
      expect(search.tried).toEqual([10, 1]);
      expect(search.largest).toBe(0);
      expect(search.failed).toBe(1);
      expect(search.next()).toBeNull();
    });

    it('the fallback step does not use up a bisection', () => {
      // 10 fails, 1 passes, then four bisections: 5, 7, 8, 9 (capacity 9).
      const search = searchUpTo(9, 4, LADDER, 1);
      expect(search.tried).toEqual([10, 1, 5, 7, 8, 9]);
      expect(search.largest).toBe(9);
    });

    it('a quick search (ladder 10, no bisection) tries 1 only when 10 fails', () => {
      expect(searchUpTo(30, 0, [10], 1).tried).toEqual([10]);
      expect(searchUpTo(3, 0, [10], 1).tried).toEqual([10, 1]);
      expect(searchUpTo(3, 0, [10], 1).largest).toBe(1);
    });

    it('whatever the capacity, the search is bounded, never repeats an N and tries 1 only below 10', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 500 }), (capacity) => {
          const search = searchUpTo(capacity, 4, LADDER, 1);
          expect(new Set(search.tried).size).toBe(search.tried.length);
          expect(search.tried.length).toBeLessThanOrEqual(LADDER.length + 1 + 4);
          expect(search.tried.includes(1)).toBe(capacity < 10);
          expect(search.largest).toBeLessThanOrEqual(capacity);
          if (capacity >= 1) expect(search.largest).toBeGreaterThanOrEqual(1);
          if (search.failed !== null) expect(search.failed).toBeGreaterThan(capacity);
        }),
      );
    });
  });
});
