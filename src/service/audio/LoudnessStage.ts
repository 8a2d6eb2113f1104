/**
 * `prosody.volume` (dB gain) and `prosody.normalize_loudness`, on Float32 samples in place.
 *
 * Normalisation is a streaming AGC (the stream's end is unknown, so no whole-file pass): the
 * mean square of voiced 10 ms blocks (above a gate) is tracked with a ~0.3 s time constant,
 * starting from espeak's measured speech level, and the gain steers it to {@link TARGET_RMS_DBFS},
 * within ±{@link MAX_AGC_DB}, ramped per block so it never clicks. A soft-knee peak limiter keeps |x| < 1.
 */
export const TARGET_RMS_DBFS = -20;
/** espeak-ng's typical voiced RMS at its default amplitude (measured: see native-notes/espeak.md). */
export const ESPEAK_TYPICAL_RMS_DBFS = -20;
export const MAX_AGC_DB = 12;
const GATE_DBFS = -45;
/** Linear level above which the soft limiter bends peaks. */
const KNEE = 0.9;
const BLOCK_SEC = 0.01;
const TIME_CONSTANT_SEC = 0.3;

const dbToLin = (db: number): number => Math.pow(10, db / 20);

export interface LoudnessOptions {
  sampleRate: number;
  gainDb: number;
  normalize: boolean;
}

export class LoudnessStage {
  private readonly block: number;
  private readonly alpha: number;
  private readonly gate: number;
  private readonly fixedGain: number;
  private readonly normalize: boolean;
  private meanSquare = dbToLin(ESPEAK_TYPICAL_RMS_DBFS) ** 2;
  private gain: number;

  constructor(options: LoudnessOptions) {
    this.block = Math.max(1, Math.round(options.sampleRate * BLOCK_SEC));
    this.alpha = BLOCK_SEC / TIME_CONSTANT_SEC;
    this.gate = dbToLin(GATE_DBFS) ** 2;
    this.fixedGain = dbToLin(options.gainDb);
    this.normalize = options.normalize;
    this.gain = this.targetGain();
  }

  private targetGain(): number {
    if (!this.normalize) return this.fixedGain;
    const agc = dbToLin(TARGET_RMS_DBFS) / Math.sqrt(this.meanSquare);
    const lim = dbToLin(MAX_AGC_DB);
    return this.fixedGain * Math.min(lim, Math.max(1 / lim, agc));
  }

  /** Applies the gain to `x` in place. */
  process(x: Float32Array): void {
    for (let off = 0; off < x.length; off += this.block) {
      const end = Math.min(x.length, off + this.block);
      if (this.normalize) {
        let sum = 0;
        for (let i = off; i < end; i++) sum += x[i]! * x[i]!;
        const ms = sum / (end - off);
        if (ms > this.gate) this.meanSquare += this.alpha * (ms - this.meanSquare);
      }
      const from = this.gain;
      const to = this.targetGain();
      const n = end - off;
      for (let i = off; i < end; i++) {
        const g = from + ((to - from) * (i - off + 1)) / n;
        const v = x[i]! * g;
        const a = v < 0 ? -v : v;
        // Soft knee above KNEE: peaks bend towards ±1 instead of clipping hard.
        x[i] = a <= KNEE ? v : Math.sign(v) * (KNEE + (1 - KNEE) * Math.tanh((a - KNEE) / (1 - KNEE)));
      }
      this.gain = to;
    }
  }
}
