/**
 * Cuts decoded s16 blocks (any length) into fixed-size frames: `frameMs` of audio each (20 ms by
 * default), the last one possibly short. Every frame is owned by the consumer: nothing later
 * overwrites it.
 *
 * Frames are views cut from slabs ({@link FrameSlab}): `frame.samples.buffer` is shared with
 * neighbouring frames, so read it through `byteOffset`/`byteLength`, and transfer
 * `frame.samples.slice()` (not `.buffer`) to a worker. One ArrayBuffer per slab instead of one
 * per frame is what keeps many concurrent real-time streams free of GC stalls. Blocks whose
 * memory the caller gives away (`push(pcm, into, true)`: a native decoder's fresh output, which
 * exists anyway) are used for frames in place of slab memory.
 */
import { InvalidOptionError } from '../errors.js';
import { FrameSlab } from './FrameSlab.js';
import type { PcmFormat, PcmFrame } from './types.js';

/** @defaultValue 20 ms, the usual packet size of real-time audio (telephony, Opus). */
export const DEFAULT_FRAME_MS = 20;
const MS_PER_SECOND = 1000;

export interface FramerOptions extends PcmFormat {
  /** @defaultValue {@link DEFAULT_FRAME_MS} */
  frameMs?: number;
}

/** Samples per channel in one frame of `frameMs` at `sampleRate` (at least 1). */
export function samplesPerFrame(sampleRate: number, frameMs: number): number {
  return Math.max(1, Math.round((sampleRate * frameMs) / MS_PER_SECOND));
}

/**
 * @example
 * ```ts
 * const framer = new Framer({ sampleRate: 8000, channels: 1 }); // 160-sample frames
 * for (const frame of framer.push(decodedBlock)) send(frame.samples);
 * for (const last of framer.flush()) send(last.samples); // the short tail
 * ```
 */
export class Framer {
  readonly sampleRate: number;
  readonly channels: number;
  /** Samples per channel in a full frame. */
  readonly frameSamples: number;
  private readonly slab: FrameSlab;
  /**
   * The frame being filled, never handed out before: a span of a slab, or an owned block's buffer
   * (see push). Null until a sample needs it.
   */
  private current: Int16Array | null = null;
  /** Interleaved samples filled in {@link current}. */
  private filled = 0;
  /** Start sample (per channel) of {@link current}. */
  private start = 0;

  constructor(options: FramerOptions) {
    const { sampleRate, channels, frameMs = DEFAULT_FRAME_MS } = options;
    if (!(frameMs > 0) || !Number.isFinite(frameMs))
      throw new InvalidOptionError('frameMs', `frameMs must be a positive number, got ${String(frameMs)}`);
    if (!Number.isInteger(channels) || channels < 1)
      throw new InvalidOptionError('channels', `channels must be a positive integer, got ${String(channels)}`);
    this.sampleRate = sampleRate;
    this.channels = channels;
    this.frameSamples = samplesPerFrame(sampleRate, frameMs);
    this.slab = new FrameSlab();
  }

  /** Samples per channel pushed so far (including the partial frame held back). */
  get position(): number {
    return this.start + this.filled / this.channels;
  }

  /**
   * Adds interleaved samples; returns the frames completed by them (possibly none).
   *
   * `owned`: the whole of `pcm.buffer` is the caller's to give away (nothing else lives in it and
   * nothing else references it, as with a native decoder's fresh output; see
   * `DecodedAudio.ownedBuffers`). The framer then uses that memory for frames instead of slab
   * memory: a whole frame inside the block is handed out as a view of it, and the block's tail
   * is moved to the start of its buffer to begin the next frame there. For 20 ms Opus packets,
   * which straddle two frames after pre-skip, that is one short copy and one move within memory
   * just written, instead of two copies into fresh slab memory.
   */
  push(pcm: Int16Array, into: PcmFrame[] = [], owned = false): PcmFrame[] {
    const size = this.frameSamples * this.channels;
    const length = pcm.length;
    let i = 0;
    /** A frame handed out is a view of `pcm`'s buffer: its memory is no longer free to reuse. */
    let viewed = false;
    while (i < length) {
      if (owned && this.filled === 0) {
        if (length - i >= size) {
          into.push(this.frame(i === 0 && length === size ? pcm : pcm.subarray(i, i + size)));
          i += size;
          viewed = true;
          continue;
        }
        if (!viewed && pcm.buffer.byteLength >= size * Int16Array.BYTES_PER_ELEMENT) {
          const all = new Int16Array(pcm.buffer, 0, pcm.buffer.byteLength >> 1);
          const from = pcm.byteOffset / Int16Array.BYTES_PER_ELEMENT + i;
          all.copyWithin(0, from, length + pcm.byteOffset / Int16Array.BYTES_PER_ELEMENT);
          this.current = all.length === size ? all : all.subarray(0, size);
          this.filled = length - i;
          return into;
        }
      }
      const current = (this.current ??= this.slab.int16(size));
      const take = Math.min(size - this.filled, length - i);
      // A block that fits whole (a 20 ms packet into a 20 ms frame) needs no subarray view.
      current.set(take === length ? pcm : pcm.subarray(i, i + take), this.filled);
      this.filled += take;
      i += take;
      if (this.filled === size) into.push(this.take(size));
    }
    return into;
  }

  /** End of stream: the held partial frame, short. */
  flush(into: PcmFrame[] = []): PcmFrame[] {
    const whole = this.filled - (this.filled % this.channels);
    if (whole > 0) into.push(this.take(whole));
    this.filled = 0;
    return into;
  }

  reset(): void {
    this.filled = 0;
    this.start = 0;
  }

  /** Hands out the first `length` samples of {@link current}. */
  private take(length: number): PcmFrame {
    const current = this.current!;
    this.current = null;
    return this.frame(length === current.length ? current : current.subarray(0, length));
  }

  private frame(samples: Int16Array): PcmFrame {
    const sampleCount = samples.length / this.channels;
    const frame: PcmFrame = {
      samples,
      encoding: 's16le',
      sampleRate: this.sampleRate,
      channels: this.channels,
      startSample: this.start,
      sampleCount,
    };
    this.start += sampleCount;
    this.filled = 0;
    return frame;
  }
}
