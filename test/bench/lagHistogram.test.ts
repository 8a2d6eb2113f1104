import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LAG_BUCKET_MS, LAG_RANGE_MS, LagHistogram } from '../../bench/lib/lagHistogram.mjs';

/** The exact q-quantile (nearest rank) of a list. */
function exactQuantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

describe('how late the bench phones’ timers fire, bucketed', () => {
  it('a quantile is the exact one or at most one bucket above it, never below', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: LAG_RANGE_MS - 1, noNaN: true }), { minLength: 1, maxLength: 300 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (lags, q) => {
          const h = new LagHistogram();
          for (const x of lags) h.record(x);
          const exact = exactQuantile(lags, q);
          expect(h.quantile(q)).toBeGreaterThanOrEqual(exact);
          expect(h.quantile(q)).toBeLessThanOrEqual(exact + LAG_BUCKET_MS);
          expect(h.count).toBe(lags.length);
          expect(h.maxMs).toBe(Math.max(...lags));
        },
      ),
    );
  });

  it('counts the timers 5 ms late or later exactly', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 3 * LAG_RANGE_MS, noNaN: true }), { maxLength: 300 }), (lags) => {
        const h = new LagHistogram();
        for (const x of lags) h.record(x);
        expect(h.over(5)).toBe(lags.filter((x) => x >= 5).length);
        expect(h.over(20)).toBe(lags.filter((x) => x >= 20).length);
      }),
    );
  });

  it('a timer that fired early counts as on time; NaN is not counted; a lateness past the range is the maximum', () => {
    const h = new LagHistogram();
    h.record(-3);
    h.record(Number.NaN);
    expect(h.count).toBe(1);
    expect(h.quantile(1)).toBeLessThanOrEqual(LAG_BUCKET_MS);
    h.record(5000);
    expect(h.quantile(1)).toBe(5000);
    expect(h.over(LAG_RANGE_MS)).toBe(1);
  });

  it('nothing recorded (or reset) has no quantile', () => {
    const h = new LagHistogram();
    expect(h.quantile(0.99)).toBeNaN();
    h.record(12);
    h.reset();
    expect(h.count).toBe(0);
    expect(h.quantile(0.5)).toBeNaN();
    expect(h.over(0)).toBe(0);
  });
});
