/**
 * The scenario 5 probe's measures: the visit histogram (quantiles, mean residual visit, its JSON
 * round trip) and the single-server queue model that replays a run's visits at a multiple of N.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VisitHistogram } from '../../bench/lib/visitHistogram.js';
import { goldenFraction, modelQueue, newTrace, traceVisit } from '../../bench/lib/visitQueue.js';

/** The 20 ms frame period and the one-second start spread of the concurrency bench. */
const FRAME_MS = 20;
const SPREAD_MS = 1000;

/** The most streams whose frame timers fall due in the same millisecond of the 20 ms period. */
function mostPerMillisecond(startsMs: number[]): number {
  const slots = new Array<number>(FRAME_MS).fill(0);
  for (const s of startsMs) slots[Math.floor(s % FRAME_MS)]!++;
  return Math.max(...slots);
}

describe('VisitHistogram', () => {
  it('the mean residual visit of equal visits is half a visit; one long visit among short ones dominates it', () => {
    const equal = new VisitHistogram();
    for (let i = 0; i < 100; i++) equal.record(200);
    expect(equal.residualUs()).toBeCloseTo(100.25, 1); // bucket middle 200.5 / 2
    const bursty = new VisitHistogram();
    for (let i = 0; i < 10; i++) bursty.record(100);
    bursty.record(1000);
    // Σ s² / (2 Σ s) = (10·100.5² + 1000.5²) / (2 · (10·100.5 + 1000.5)) ≈ 274.7
    expect(bursty.residualUs()).toBeCloseTo(274.7, 0);
    expect(bursty.meanUs).toBeCloseTo(2000 / 11, 5);
  });

  it('quantiles are the upper edge of the 1 µs bucket, capped at the largest visit', () => {
    const h = new VisitHistogram();
    for (const us of [3.2, 5.9, 7.1, 250.4]) h.record(us);
    expect(h.quantile(0.5)).toBe(6);
    expect(h.quantile(0.75)).toBe(8);
    expect(h.quantile(1)).toBe(250.4);
    expect(h.timeShareAbove(100)).toBeGreaterThan(0.9);
  });

  it('a histogram survives its JSON form and merges by adding counts (any visits)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 30_000, noNaN: true }), { maxLength: 200 }),
        fc.array(fc.double({ min: 0, max: 30_000, noNaN: true }), { maxLength: 200 }),
        (a, b) => {
          const ha = new VisitHistogram();
          const hb = new VisitHistogram();
          const all = new VisitHistogram();
          for (const x of a) {
            ha.record(x);
            all.record(x);
          }
          for (const x of b) {
            hb.record(x);
            all.record(x);
          }
          const merged = VisitHistogram.from(JSON.parse(JSON.stringify(ha.toJSON())));
          merged.merge(JSON.parse(JSON.stringify(hb.toJSON())));
          expect(merged.count).toBe(all.count);
          expect(merged.maxUs).toBe(all.maxUs);
          expect(Array.from(merged.counts)).toEqual(Array.from(all.counts));
          if (all.count > 0) expect(merged.quantile(0.99)).toBe(all.quantile(0.99));
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('modelQueue', () => {
  it('two frame ticks due in the same millisecond: the second waits for the first', () => {
    const t = newTrace(4);
    traceVisit(t, 100, 1000, true);
    traceVisit(t, 100, 1000, true);
    const row = modelQueue(t, 2, 1); // the window's CPU is exactly the visits': no loop share
    expect(row.p99Ms).toBeCloseTo(1, 5);
  });

  it('visits that never overlap are never late; the loop CPU outside visits is spread over them', () => {
    const t = newTrace(100);
    for (let k = 0; k < 50; k++) traceVisit(t, k * FRAME_MS, 100, true);
    expect(modelQueue(t, 5, 1).p99Ms).toBeLessThanOrEqual(0.05);
    // 50 visits of 0.1 ms, window CPU 50 ms: each visit serves 1 ms, still apart.
    const spread = modelQueue(t, 50, 1);
    expect(spread.p99Ms).toBeLessThanOrEqual(0.05);
    expect(spread.utilisation).toBeCloseTo(50 / (49 * FRAME_MS), 2);
  });

  it('replaying each stream more times raises the load in proportion and the lateness with it', () => {
    const t = newTrace(1000);
    // One stream: a 20 ms frame tick (50 µs) and, every fifth tick, a 2 ms decode.
    for (let k = 0; k < 500; k++) traceVisit(t, k * FRAME_MS, k % 5 === 0 ? 2000 : 50, true);
    const cpuMs = (100 * 2000 + 400 * 50) / 1000;
    const one = modelQueue(t, cpuMs, 1);
    const eight = modelQueue(t, cpuMs, 8);
    expect(eight.utilisation).toBeCloseTo(one.utilisation * 8, 1);
    expect(eight.p99Ms).toBeGreaterThan(one.p99Ms);
  });

  it('a trace keeps at most its capacity (bounded memory)', () => {
    const t = newTrace(3);
    for (let k = 0; k < 10; k++) traceVisit(t, k, 1, false);
    expect(t.count).toBe(3);
  });
});

describe('start patterns', () => {
  it.each([50, 80, 100, 130, 200])(
    'golden-ratio starts spread %i streams over the 20 ms frame period; i/N starts put up to 50 on one millisecond',
    (n) => {
      const golden = Array.from({ length: n }, (_, i) => goldenFraction(i) * SPREAD_MS);
      const grid = Array.from({ length: n }, (_, i) => (i * SPREAD_MS) / n);
      expect(mostPerMillisecond(golden)).toBeLessThanOrEqual(Math.ceil(n / FRAME_MS) + 3);
      expect(mostPerMillisecond(grid)).toBeGreaterThanOrEqual(10);
      if (n % 50 === 0) expect(mostPerMillisecond(grid)).toBe(50);
    },
  );
});
