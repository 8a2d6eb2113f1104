import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pairOrder, ratioSpread, type PairedSample, type StepFigures } from '../../bench/lib/pairedSteps.js';

function figures(bridge: number, p99 = 3): StepFigures {
  return { bridgeCpuPerCallSecond: bridge, cpuPerCallSecond: bridge * 2, peerCpuPerCallSecond: bridge * 0.8, busy: bridge / 10, p99 };
}

describe('paired fixed-N steps', () => {
  it('reports b / a per pair in round order, with its median, quartiles, range and how often b was dearer', () => {
    const samples: PairedSample[] = [
      { round: 1, calls: 60, a: figures(4), b: figures(4.4) },
      { round: 1, calls: 100, a: figures(3), b: figures(2.7) },
      { round: 2, calls: 60, a: figures(5), b: figures(5) },
      { round: 2, calls: 100, a: figures(2), b: figures(2.4) },
    ];
    const all = ratioSpread(samples, 'bridgeCpuPerCallSecond');
    expect(all.ratios.map((r) => Math.round(r * 100) / 100)).toEqual([1.1, 0.9, 1, 1.2]);
    expect(all.pairs).toBe(4);
    expect(all.min).toBeCloseTo(0.9);
    expect(all.max).toBeCloseTo(1.2);
    expect(all.median).toBeCloseTo(1); // nearest rank: the 2nd of 4
    expect(all.bDearer).toBe(2);
    const at60 = ratioSpread(samples, 'bridgeCpuPerCallSecond', 60);
    expect(at60.ratios.map((r) => Math.round(r * 100) / 100)).toEqual([1.1, 1]);
    expect(ratioSpread(samples, 'p99', 100).ratios).toEqual([1, 1]);
  });

  it('a pair whose reference figure is 0 is left out rather than counted as infinitely dearer', () => {
    const s = ratioSpread(
      [
        { round: 1, calls: 10, a: figures(0), b: figures(1) },
        { round: 2, calls: 10, a: figures(2), b: figures(1) },
      ],
      'busy',
    );
    expect(s.pairs).toBe(1);
    expect(s.ratios).toEqual([0.5]);
  });

  it('the spread is unchanged when a spell of load scales both sides of a pair alike', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.double({ min: 1, max: 10, noNaN: true }),
            fc.double({ min: 1, max: 10, noNaN: true }),
            fc.double({ min: 0.5, max: 3, noNaN: true }),
          ),
          {
            minLength: 1,
            maxLength: 12,
          },
        ),
        (pairs) => {
          const plain = pairs.map(([a, b], i): PairedSample => ({ round: i + 1, calls: 50, a: figures(a), b: figures(b) }));
          const loaded = pairs.map(([a, b, load], i): PairedSample => ({
            round: i + 1,
            calls: 50,
            a: figures(a * load),
            b: figures(b * load),
          }));
          const x = ratioSpread(plain, 'bridgeCpuPerCallSecond');
          const y = ratioSpread(loaded, 'bridgeCpuPerCallSecond');
          expect(y.median).toBeCloseTo(x.median, 9);
          expect(y.bDearer).toBe(x.bDearer);
          expect(x.min).toBeLessThanOrEqual(x.low);
          expect(x.low).toBeLessThanOrEqual(x.median);
          expect(x.median).toBeLessThanOrEqual(x.high);
          expect(x.high).toBeLessThanOrEqual(x.max);
        },
      ),
    );
  });

  it('alternates which contender runs first, round by round', () => {
    expect([0, 1, 2, 3].map((r) => pairOrder('twilio', 'telnyx', r))).toEqual([
      ['twilio', 'telnyx'],
      ['telnyx', 'twilio'],
      ['twilio', 'telnyx'],
      ['telnyx', 'twilio'],
    ]);
  });
});
