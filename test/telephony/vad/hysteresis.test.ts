import { describe, expect, it } from 'vitest';
import { Hysteresis, type HysteresisConfig, type VadEvent } from '../../../src/telephony/vad/index.js';

const W = 100;
const base: HysteresisConfig = { startThreshold: 0.5, stopThreshold: 0.3, minSpeechSamples: 2 * W, minSilenceSamples: 3 * W };

/** Feeds one probability per window of W samples; returns the edge events. */
function run(probs: number[], config: HysteresisConfig = base, flush = false): VadEvent[] {
  const h = new Hysteresis(config);
  const out: VadEvent[] = [];
  probs.forEach((p, i) => h.window(i * W, W, p, out));
  if (flush) h.flush(out, probs.length * W);
  return out;
}

describe('Hysteresis', () => {
  it('starts speech only after minSpeech of windows above the start threshold, dated at the run start', () => {
    expect(run([0, 0.9, 0.9, 0.9])).toEqual([{ type: 'speechStart', sample: W, detectedAt: 3 * W }]);
  });

  it('a single loud window shorter than minSpeech starts nothing', () => {
    expect(run([0, 0.9, 0, 0.9, 0, 0.9, 0])).toEqual([]);
  });

  it('a probability between the thresholds neither starts nor ends speech', () => {
    expect(run([0.4, 0.4, 0.4, 0.4])).toEqual([]);
    const events = run([0.9, 0.9, 0.4, 0.4, 0.4, 0.4, 0.4]);
    expect(events.map((e) => e.type)).toEqual(['speechStart']);
  });

  it('ends speech after minSilence below the stop threshold, dated where the silence began', () => {
    expect(run([0.9, 0.9, 0.9, 0.1, 0.1, 0.1, 0.1])).toEqual([
      { type: 'speechStart', sample: 0, detectedAt: 2 * W },
      { type: 'speechEnd', sample: 3 * W, detectedAt: 6 * W },
    ]);
  });

  it('a pause shorter than minSilence does not split the speech', () => {
    const events = run([0.9, 0.9, 0.1, 0.1, 0.9, 0.1, 0.1, 0.1]);
    expect(events).toEqual([
      { type: 'speechStart', sample: 0, detectedAt: 2 * W },
      { type: 'speechEnd', sample: 5 * W, detectedAt: 8 * W },
    ]);
  });

  it('probability flapping around one threshold does not flap the state (two thresholds)', () => {
    const probs = [0.9, 0.9, ...Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? 0.45 : 0.55))];
    expect(run(probs).map((e) => e.type)).toEqual(['speechStart']);
    const single = { ...base, stopThreshold: 0.5, minSilenceSamples: W, minSpeechSamples: W };
    expect(run(probs, single).length).toBeGreaterThan(5);
  });

  it('flush ends open speech at the start of its trailing silence, or at the end of input', () => {
    expect(run([0.9, 0.9, 0.9, 0.1], base, true).at(-1)).toEqual({ type: 'speechEnd', sample: 3 * W, detectedAt: 4 * W });
    expect(run([0.9, 0.9, 0.9], base, true).at(-1)).toEqual({ type: 'speechEnd', sample: 3 * W, detectedAt: 3 * W });
    expect(run([0.1, 0.1], base, true)).toEqual([]);
  });

  it('zero minimum durations react on the first window', () => {
    const eager = { ...base, minSpeechSamples: 0, minSilenceSamples: 0 };
    expect(run([0.9, 0.1], eager)).toEqual([
      { type: 'speechStart', sample: 0, detectedAt: W },
      { type: 'speechEnd', sample: W, detectedAt: 2 * W },
    ]);
  });
});
