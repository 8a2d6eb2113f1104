import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BISECT_RESOLUTION, CallSearch } from '../../bench/lib/callSearch.js';

const COARSE = [1, 10, 50, 100, 200, 300, 400];

/** Runs a search against a machine that passes every N up to `capacity` (and none above). */
function searchUpTo(capacity: number, maxBisections = 4): CallSearch {
  const search = new CallSearch(COARSE, maxBisections);
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
});
