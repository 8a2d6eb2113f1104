/**
 * Cuts decoded s16 blocks (any length) into fixed-size frames: `frameMs` of audio each (20 ms by
 * default), the last one possibly short. Every frame is owned by the consumer: nothing later
 * overwrites it.
 *
 * Frames are views cut from slabs ({@link FrameSlab}): `frame.samples.buffer` is shared with
 * neighbouring frames, so read it through `byteOffset`/`byteLength`, and transfer
 * `frame.samples.slice()` (not `.buffer`) to a worker. One ArrayBuffer per slab instead of one
 * per frame is what keeps many concurrent real-time streams free of GC stalls.
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
  /** The frame being filled: its own never-reused span of a slab. */
  private current: Int16Array;
  /** Interleaved samples filled in {@link current}. */
  private filled = 0;
  /** Start sample (per channel) of {@link current}. */
  private start = 0;

  constructor(options: FramerOptions) {
    const { sampleRate, channels, frameMs = DEFAULT_FRAME_MS } = options;
    if (!(frameMs > 0) || !Number.isFinite(frameMs)) throw new InvalidOptionError('frameMs', `frameMs must be a positive number, got ${String(frameMs)}`);
    if (!Number.isInteger(channels) || channels < 1) throw new InvalidOptionError('channels', `channels must be a positive integer, got ${String(channels)}`);
    this.sampleRate = sampleRate;
    this.channels = channels;
    this.frameSamples = samplesPerFrame(sampleRate, frameMs);
    this.slab = new FrameSlab();
    this.current = this.slab.int16(this.frameSamples * channels);
  }

  /** Samples per channel pushed so far (including the partial frame held back). */
  get position(): number {
    return this.start + this.filled / this.channels;
  }

  /** Adds interleaved samples; returns the frames completed by them (possibly none). */
  push(pcm: Int16Array, into: PcmFrame[] = []): PcmFrame[] {
    let i = 0;
    const size = this.current.length;
    while (i < pcm.length) {
      const take = Math.min(size - this.filled, pcm.length - i);
      // A block that fits whole (a 20 ms packet into a 20 ms frame) needs no subarray view.
      this.current.set(take === pcm.length ? pcm : pcm.subarray(i, i + take), this.filled);
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

  private take(length: number): PcmFrame {
    const samples = length === this.current.length ? this.current : this.current.subarray(0, length);
    const sampleCount = length / this.channels;
    const frame: PcmFrame = { samples, encoding: 's16le', sampleRate: this.sampleRate, channels: this.channels, startSample: this.start, sampleCount };
    this.start += sampleCount;
    this.filled = 0;
    this.current = this.slab.int16(this.frameSamples * this.channels);
    return frame;
  }
}
