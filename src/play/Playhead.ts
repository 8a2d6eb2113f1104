/**
 * Where playback is, in samples at the pipeline's OUTPUT rate.
 *
 * - `'consumer'` mode (default): the pipeline moves it when the consumer reads a frame (never
 *   when bytes arrive), to the end of that frame.
 * - `'external'` mode: only {@link Playhead.advanceTo} moves it, for sinks that know what was
 *   really played (telephony marks, a sound card's position).
 *
 * The playhead only moves forward.
 */
import { InvalidOptionError } from '../errors.js';

export type PlayheadMode = 'consumer' | 'external';

export class Playhead {
  readonly mode: PlayheadMode;
  private samples = 0;
  private rate: number | null = null;
  private listener: ((seconds: number) => void) | null = null;

  constructor(mode: PlayheadMode = 'consumer') {
    if (mode !== 'consumer' && mode !== 'external')
      throw new InvalidOptionError('playhead', `playhead must be 'consumer' or 'external', got ${JSON.stringify(mode)}`);
    this.mode = mode;
  }

  /** Samples (per channel, at the output rate) played so far. */
  get position(): number {
    return this.samples;
  }
  /** The output rate, once the stream's format is known. */
  get sampleRate(): number | null {
    return this.rate;
  }
  /** Seconds played so far (0 until the output rate is known). */
  get seconds(): number {
    return this.rate === null ? 0 : this.samples / this.rate;
  }

  /**
   * External clock: `sample` (output rate) has been played. Moves forward only; an earlier
   * position is ignored.
   * @example telephony: on a `mark` naming the frame ending at sample 16000 → `advanceTo(16000)`
   */
  advanceTo(sample: number): void {
    if (this.mode !== 'external') {
      throw new InvalidOptionError(
        'playhead',
        "advanceTo() needs a pipeline created with playhead: 'external' (in 'consumer' mode reading frames moves the playhead)",
      );
    }
    this.move(sample);
  }

  /** @internal The pipeline's hook: the consumer has read audio up to `sample`. */
  consumedTo(sample: number): void {
    if (this.mode === 'consumer') this.move(sample);
  }

  /** @internal */
  setSampleRate(rate: number): void {
    if (this.rate === rate) return;
    this.rate = rate;
    this.listener?.(this.seconds);
  }

  /** @internal One listener: the pipeline's word clock. */
  onAdvance(listener: ((seconds: number) => void) | null): void {
    this.listener = listener;
  }

  private move(sample: number): void {
    if (!Number.isFinite(sample) || sample < 0)
      throw new InvalidOptionError('sample', `playhead position must be a finite sample count ≥ 0, got ${String(sample)}`);
    if (sample <= this.samples) return;
    this.samples = sample;
    if (this.rate !== null) this.listener?.(this.seconds);
  }
}
