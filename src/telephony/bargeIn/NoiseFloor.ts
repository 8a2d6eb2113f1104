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

/**
 * The recent floor: the quietest window of the last this many (~1 s of 32 ms windows). It rises
 * as soon as a louder sound has lasted that long without a pause (music on hold, line noise after
 * digital silence), where the slow floor would take seconds to tens of seconds; speech pauses
 * between words within a second, so it does not become the floor.
 */
export const RECENT_FLOOR_WINDOWS = 31;

export class NoiseFloor {
  private floor = -1;
  private readonly risePerSample: number;
  private readonly recent = new Float64Array(RECENT_FLOOR_WINDOWS);
  private recentCount = 0;
  private recentMin = MIN_FLOOR;

  constructor(sampleRate: number) {
    this.risePerSample = NOISE_FLOOR_RISE_DB_PER_S / 10 / sampleRate;
  }

  /** A window's mean square; returns its level above the floor, in dB. */
  level(meanSquare: number, samples: number): number {
    const e = Math.max(MIN_FLOOR, meanSquare);
    if (this.floor < 0 || e < this.floor) this.floor = e;
    else this.floor *= 10 ** (this.risePerSample * samples);
    this.recent[this.recentCount++ % RECENT_FLOOR_WINDOWS] = e;
    let min = Infinity;
    for (let i = Math.min(this.recentCount, RECENT_FLOOR_WINDOWS) - 1; i >= 0; i--) if (this.recent[i]! < min) min = this.recent[i]!;
    this.recentMin = min;
    return 10 * Math.log10(e / this.floor);
  }

  /** How far (dB) a mean square is over the recent floor (the quietest window of the last second), without tracking it. */
  overRecent(meanSquare: number): number {
    return 10 * Math.log10(Math.max(MIN_FLOOR, meanSquare) / this.recentMin);
  }

  reset(): void {
    this.floor = -1;
    this.recentCount = 0;
    this.recentMin = MIN_FLOOR;
  }
}
