/**
 * The line's noise floor, tracked per window: falls at once to a quieter window, rises slowly
 * (so speech, which is never stationary for seconds, does not lift it). Lets the policy ask
 * whether sound is still physically there: Silero's probability lingers for 100–150 ms after a
 * sound stops, the level does not. Pure.
 */

/** How fast the floor may rise: 3 dB per second (speech pauses reset it long before). */
export const NOISE_FLOOR_RISE_DB_PER_S = 3;
/** A floor never below this mean square (s16 units², about −90 dBFS): digital silence. */
const MIN_FLOOR = 1;

export class NoiseFloor {
  private floor = -1;
  private readonly risePerSample: number;

  constructor(sampleRate: number) {
    this.risePerSample = NOISE_FLOOR_RISE_DB_PER_S / 10 / sampleRate;
  }

  /** A window's mean square; returns its level above the floor, in dB. */
  level(meanSquare: number, samples: number): number {
    const e = Math.max(MIN_FLOOR, meanSquare);
    if (this.floor < 0 || e < this.floor) this.floor = e;
    else this.floor *= 10 ** (this.risePerSample * samples);
    return 10 * Math.log10(e / this.floor);
  }

  reset(): void {
    this.floor = -1;
  }
}
