/**
 * Turns per-window speech probabilities into speechStart / speechEnd events: two thresholds
 * (start above, stop below, so a probability hovering near one threshold does not flap) and
 * minimum durations on both edges. Pure: no audio, no clock; windows arrive in order.
 */
import type { VadEvent } from './types.js';

export interface HysteresisConfig {
  startThreshold: number;
  stopThreshold: number;
  /** In input samples. */
  minSpeechSamples: number;
  minSilenceSamples: number;
}

export class Hysteresis {
  private speakingValue = false;
  /** Start of the current candidate run (speech while silent, silence while speaking), or -1. */
  private runStart = -1;
  private end = 0;

  constructor(private readonly config: HysteresisConfig) {}

  get speaking(): boolean {
    return this.speakingValue;
  }

  /** One window [sample, sample + samples) with its probability; events go to `out`. */
  window(sample: number, samples: number, probability: number, out: VadEvent[]): void {
    const c = this.config;
    const end = sample + samples;
    this.end = end;
    const counts = this.speakingValue ? probability < c.stopThreshold : probability >= c.startThreshold;
    if (!counts) {
      this.runStart = -1;
      return;
    }
    if (this.runStart < 0) this.runStart = sample;
    if (end - this.runStart < (this.speakingValue ? c.minSilenceSamples : c.minSpeechSamples)) return;
    out.push({ type: this.speakingValue ? 'speechEnd' : 'speechStart', sample: this.runStart, detectedAt: end });
    this.speakingValue = !this.speakingValue;
    this.runStart = -1;
  }

  /** End of input: an open speech run ends where its trailing silence began, else at the end. */
  flush(out: VadEvent[], endSample = this.end): void {
    if (this.speakingValue) {
      out.push({ type: 'speechEnd', sample: this.runStart >= 0 ? this.runStart : endSample, detectedAt: endSample });
    }
    this.reset();
  }

  reset(): void {
    this.speakingValue = false;
    this.runStart = -1;
    this.end = 0;
  }
}
