import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { nearestRank, percentiles } from '../../src/latency/percentiles.js';

describe('percentiles', () => {
  it('reports measured values (nearest rank) with the sample count', () => {
    const p = percentiles([5, 1, 4, 2, 3, 6, 7, 8, 9, 10]);
    expect(p).toMatchObject({ n: 10, p50: 5, p90: 9, p95: 10, p99: 10, max: 10, min: 1, mean: 5.5 });
  });

  it('leaves out figures a request never reached (null, NaN) and says so in n', () => {
    const p = percentiles([null, 3, Number.NaN, undefined, 1]);
    expect(p.n).toBe(2);
    expect(p.p50).toBe(1);
    expect(p.max).toBe(3);
  });

  it('is all null without samples', () => {
    expect(percentiles([])).toMatchObject({ n: 0, p50: null, p99: null, max: null, mean: null });
  });

  it('every percentile is a sample, ordered, and at least that share of samples lies at or below it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 200 }),
        fc.integer({ min: 1, max: 100 }),
        (xs, q) => {
          const sorted = [...xs].sort((a, b) => a - b);
          const v = nearestRank(sorted, q)!;
          expect(xs).toContain(v);
          expect(sorted.filter((x) => x <= v).length / xs.length).toBeGreaterThanOrEqual(q / 100 - 1e-12);
          const p = percentiles(xs);
          expect(p.p50! <= p.p90! && p.p90! <= p.p95! && p.p95! <= p.p99! && p.p99! <= p.max!).toBe(true);
        },
      ),
    );
  });
});
