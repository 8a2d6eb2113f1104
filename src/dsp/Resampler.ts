import type { SpeexResamplerModule } from '@echogarden/speex-resampler-wasm';
import { CodecError, InvalidOptionError } from '../errors.js';

/**
 * Streaming resampler over the Speex resampler (wasm, @echogarden/speex-resampler-wasm). State
 * is kept across calls; `skip_zeros` removes the filter's start latency and `flush()` feeds
 * zeros until the output holds exactly round(inputFrames × outRate / inRate) frames, so the
 * output timeline lines up with the input sample for sample. See native-notes/resampler.md.
 */

/** Speex quality 0..10; 5 measured as the telephony sweet spot (speed vs aliasing). */
export const DEFAULT_RESAMPLER_QUALITY = 5;
/** Frames per channel moved through the wasm heap per call. */
const BLOCK_FRAMES = 4096;
const FLOAT_BYTES = 4;
const INT_BYTES = 4;

let speex: SpeexResamplerModule | null = null;
let build: 'simd' | 'plain' | null = null;
let loading: Promise<SpeexResamplerModule> | null = null;

/**
 * Loads the wasm module once per process; every Resampler needs it loaded. The SIMD build is
 * about 2× faster here (native-notes/resampler.md); the plain build is the fallback where wasm
 * SIMD is missing.
 */
export function loadResampler(): Promise<void> {
  loading ??= import('@echogarden/speex-resampler-wasm/simd')
    .then((m) => m.default())
    .then(
      (m) => ((build = 'simd'), m),
      () => import('@echogarden/speex-resampler-wasm').then((m) => ((build = 'plain'), m.default())),
    )
    .then((m) => (speex = m));
  return loading.then(() => undefined);
}

/** Which wasm build was loaded ('simd' or 'plain'), null before loading. */
export function resamplerBuild(): 'simd' | 'plain' | null {
  return build;
}

export function resamplerLoaded(): boolean {
  return speex !== null;
}

export class Resampler {
  readonly channels: number;
  readonly inRate: number;
  readonly outRate: number;
  private readonly m: SpeexResamplerModule;
  private state: number;
  private readonly inPtr: number;
  private readonly outPtr: number;
  private readonly lenPtr: number;
  private readonly outCapacity: number;
  private framesIn = 0;
  private framesOut = 0;

  /** Call (and await) {@link loadResampler} first. */
  constructor(channels: number, inRate: number, outRate: number, quality = DEFAULT_RESAMPLER_QUALITY) {
    if (!speex) throw new CodecError('CODEC_UNAVAILABLE', 'Resampler used before loadResampler() resolved');
    for (const [name, v] of [
      ['inRate', inRate],
      ['outRate', outRate],
    ] as const) {
      if (!Number.isInteger(v) || v <= 0) throw new InvalidOptionError(name, `${name} must be a positive integer, got ${v}`);
    }
    this.m = speex;
    this.channels = channels;
    this.inRate = inRate;
    this.outRate = outRate;
    const m = this.m;
    this.lenPtr = m._malloc(2 * INT_BYTES + INT_BYTES);
    this.state = m._speex_resampler_init(channels, inRate, outRate, quality, this.lenPtr + 2 * INT_BYTES);
    if (this.state === 0) throw new CodecError('DSP_BAD_OPTION', `Speex resampler init failed (${inRate} → ${outRate} Hz)`);
    m._speex_resampler_skip_zeros(this.state);
    this.outCapacity = Math.ceil((BLOCK_FRAMES * outRate) / inRate) + 16;
    this.inPtr = m._malloc(BLOCK_FRAMES * channels * FLOAT_BYTES);
    this.outPtr = m._malloc(this.outCapacity * channels * FLOAT_BYTES);
  }

  /** Frames per channel the exact output will have after `flush()` for what went in so far. */
  get expectedOutputFrames(): number {
    return Math.round((this.framesIn * this.outRate) / this.inRate);
  }

  /**
   * Resamples interleaved float frames. `onOutput` gets views into wasm memory, valid only during
   * the call (copy them out at once).
   */
  process(input: Float32Array, onOutput: (out: Float32Array) => void): void {
    const ch = this.channels;
    const frames = input.length / ch;
    this.framesIn += frames;
    for (let done = 0; done < frames;) {
      const n = Math.min(BLOCK_FRAMES, frames - done);
      this.m.HEAPF32.set(input.subarray(done * ch, (done + n) * ch), this.inPtr / FLOAT_BYTES);
      this.run(n, onOutput, Infinity);
      done += n;
    }
  }

  /** Pushes zeros through until the output reaches the exact expected length, then stops. */
  flush(onOutput: (out: Float32Array) => void): void {
    const target = this.expectedOutputFrames;
    const ch = this.channels;
    let guard = 0;
    const maxRounds = 64;
    while (this.framesOut < target && guard++ < maxRounds) {
      this.m.HEAPF32.fill(0, this.inPtr / FLOAT_BYTES, this.inPtr / FLOAT_BYTES + BLOCK_FRAMES * ch);
      this.run(BLOCK_FRAMES, onOutput, target);
    }
  }

  reset(): void {
    this.m._speex_resampler_reset_mem(this.state);
    this.m._speex_resampler_skip_zeros(this.state);
    this.framesIn = 0;
    this.framesOut = 0;
  }

  free(): void {
    if (this.state === 0) return;
    const m = this.m;
    m._speex_resampler_destroy(this.state);
    m._free(this.inPtr);
    m._free(this.outPtr);
    m._free(this.lenPtr);
    this.state = 0;
  }

  /** Runs `frames` input frames already in the input block; output is capped at `limit` total. */
  private run(frames: number, onOutput: (out: Float32Array) => void, limit: number): void {
    const m = this.m;
    const ch = this.channels;
    let offset = 0;
    while (offset < frames) {
      m.HEAPU32[this.lenPtr / INT_BYTES] = frames - offset;
      m.HEAPU32[this.lenPtr / INT_BYTES + 1] = this.outCapacity;
      m._speex_resampler_process_interleaved_float(
        this.state,
        this.inPtr + offset * ch * FLOAT_BYTES,
        this.lenPtr,
        this.outPtr,
        this.lenPtr + INT_BYTES,
      );
      const used = m.HEAPU32[this.lenPtr / INT_BYTES]!;
      let produced = m.HEAPU32[this.lenPtr / INT_BYTES + 1]!;
      if (this.framesOut + produced > limit) produced = limit - this.framesOut;
      if (produced > 0) {
        this.framesOut += produced;
        const start = this.outPtr / FLOAT_BYTES;
        onOutput(m.HEAPF32.subarray(start, start + produced * ch));
      }
      if (used === 0 && produced <= 0) break;
      offset += used;
    }
  }
}
