import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { hearWord, simulatePlayer, type AudioArrival } from '../../src/latency/player.js';

/** Audio in 100 ms pieces, arriving `everyMs` apart from t = 50 ms. */
function steady(pieces: number, everyMs: number): AudioArrival[] {
  return Array.from({ length: pieces }, (_, i) => ({ atMs: 50 + i * everyMs, endSec: (i + 1) * 0.1 }));
}

describe('simulatePlayer', () => {
  it('audio arriving faster than real time never underruns, even without a buffer', () => {
    const v = simulatePlayer(steady(20, 50), 0);
    expect(v.startMs).toBe(50);
    expect(v.underruns).toEqual([]);
    expect(v.endMs).toBeCloseTo(50 + 2000);
  });

  it('a 300 ms stall after 0.5 s of audio is one underrun at that position, of the stall minus the audio in hand', () => {
    // 0.5 s arrives at once at t=50; the rest 300 ms + 0.5 s later... the player needs it at t=550.
    const arrivals: AudioArrival[] = [
      { atMs: 50, endSec: 0.5 },
      { atMs: 850, endSec: 1.0 },
    ];
    const v = simulatePlayer(arrivals, 0);
    expect(v.underruns).toEqual([{ atMs: 550, positionSec: 0.5, ms: 300 }]);
    expect(v.underrunMs).toBe(300);
    // A 200 ms jitter buffer absorbs 200 of it; 400 ms absorbs it all.
    expect(simulatePlayer(arrivals, 200).underrunMs).toBe(100);
    expect(simulatePlayer(arrivals, 400).underruns).toEqual([]);
  });

  it('words after an underrun are heard that much later; words before it on time', () => {
    const v = simulatePlayer(
      [
        { atMs: 0, endSec: 0.5 },
        { atMs: 800, endSec: 1.0 },
      ],
      0,
    );
    expect(hearWord(v, 0.2)).toEqual({ heardMs: 200, lateMs: 0 });
    expect(hearWord(v, 0.5)).toEqual({ heardMs: 800, lateMs: 300 });
    expect(hearWord(v, 0.7)!.lateMs).toBe(300);
  });

  it('no audio: no start, no underrun', () => {
    const v = simulatePlayer([], 100);
    expect(v).toMatchObject({ startMs: null, underruns: [], endMs: null });
    expect(hearWord(v, 0)).toBeNull();
  });

  it('for any arrivals, a longer jitter buffer never underruns longer, and playback lasts audio + buffer + silence', () => {
    const arrivalsArb = fc
      .array(fc.tuple(fc.double({ min: 0, max: 500, noNaN: true }), fc.double({ min: 0.001, max: 0.5, noNaN: true })), {
        minLength: 1,
        maxLength: 40,
      })
      .map((steps) => {
        let at = 0;
        let end = 0;
        return steps.map(([gap, audio]) => ({ atMs: (at += gap), endSec: (end += audio) }));
      });
    fc.assert(
      fc.property(arrivalsArb, fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 300 }), (arrivals, a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const vLo = simulatePlayer(arrivals, lo);
        const vHi = simulatePlayer(arrivals, hi);
        expect(vHi.underrunMs).toBeLessThanOrEqual(vLo.underrunMs + 1e-6);
        const total = arrivals[arrivals.length - 1]!.endSec;
        expect(vLo.endMs!).toBeCloseTo(arrivals[0]!.atMs + lo + total * 1000 + vLo.underrunMs, 6);
        // The player never plays audio before it arrived.
        for (const x of arrivals) expect(hearWord(vLo, x.endSec)!.heardMs).toBeGreaterThanOrEqual(x.atMs - 1e-6);
      }),
    );
  });
});
