/**
 * Decoded s16 blocks straight to fixed-size G.711 μ-law frames: the framer and the conversion
 * stage's μ-law encode in one pass, for the telephony case where nothing else is converted (the
 * decoder already runs at the output rate and channel count, and the output frames are the
 * framer's size). Each sample is read once and written once, as a byte of the output frame,
 * instead of being copied into an s16 frame (an object and a view per frame) that the stage then
 * encodes into another (native-notes/engine-performance.md, tenth pass).
 *
 * The frames are those `Framer` → `ConversionStage({ encoding: 'mulaw' })` make, byte for byte:
 * the same codes (the same table), the same sizes and `startSample`s, the last one possibly short.
 * As with both, frames are views cut from slabs ({@link FrameSlab}): each is the consumer's own.
 */
import { FrameSlab } from '../codec/FrameSlab.js';
import type { AudioFrame, PcmFormat } from '../codec/types.js';
import { MULAW_14BIT_OFFSET, MULAW_DROPPED_BITS, MULAW_ENCODE_14BIT } from '../dsp/mulaw.js';

export class MulawFramer {
  /** Interleaved samples (bytes) in a full frame. */
  private readonly size: number;
  private readonly slab = new FrameSlab();
  /** The frame being filled; null until a sample needs it. */
  private current: Uint8Array | null = null;
  private filled = 0;
  /** Start sample (per channel) of {@link current}. */
  private start = 0;

  /** `frameSamples`: samples per channel in a full frame. */
  constructor(
    private readonly format: PcmFormat,
    frameSamples: number,
  ) {
    this.size = frameSamples * format.channels;
  }

  /** Encodes interleaved s16 samples; appends the frames they complete to `into`. */
  push(pcm: Int16Array, into: AudioFrame[]): void {
    const t = MULAW_ENCODE_14BIT;
    const size = this.size;
    const length = pcm.length;
    let i = 0;
    while (i < length) {
      const current = (this.current ??= this.slab.uint8(size));
      let filled = this.filled;
      const end = Math.min(length, i + size - filled);
      for (; i < end; i++) current[filled++] = t[(pcm[i]! >> MULAW_DROPPED_BITS) + MULAW_14BIT_OFFSET]!;
      this.filled = filled;
      if (filled === size) into.push(this.take(size));
    }
  }

  /** End of stream: the held partial frame, short (whole samples of every channel only). */
  flush(into: AudioFrame[]): void {
    const whole = this.filled - (this.filled % this.format.channels);
    if (whole > 0) into.push(this.take(whole));
    this.filled = 0;
  }

  private take(length: number): AudioFrame {
    const current = this.current!;
    this.current = null;
    const samples = length === current.length ? current : current.subarray(0, length);
    const sampleCount = length / this.format.channels;
    const frame: AudioFrame = {
      samples,
      encoding: 'mulaw',
      sampleRate: this.format.sampleRate,
      channels: this.format.channels,
      startSample: this.start,
      sampleCount,
    };
    this.start += sampleCount;
    this.filled = 0;
    return frame;
  }
}
