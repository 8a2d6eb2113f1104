import { InvalidOptionError } from '../errors.js';
import { DEFAULT_FRAME_MS, samplesPerFrame } from '../codec/Framer.js';
import { FrameSlab } from '../codec/FrameSlab.js';
import { SAMPLE_ENCODINGS, type AudioFrame, type PcmFormat, type PcmFrame, type SampleEncoding } from '../codec/types.js';
import { S16_BYTES, S16_MAX, S16_MIN, S16_SCALE } from '../internal/s16.js';
import { ALAW_ENCODE_TABLE } from './alaw.js';
import { MULAW_14BIT_OFFSET, MULAW_DROPPED_BITS, MULAW_ENCODE_14BIT } from './mulaw.js';
import { loadResampler, resamplerLoaded, Resampler } from './Resampler.js';

/**
 * The output conversion stage: s16 frames from the decoder's framer in,
 * fixed-size frames out at the output rate, encoding and channel count.
 *
 * Order: channel mix (at the input rate, cheapest) → resample (state kept across frames, tail
 * flushed, exact count) → fixed frames → encode. `startSample` counts OUTPUT samples, so a
 * playhead driven by these frames stays sample-accurate for word timing.
 *
 * Output frames are views cut from slabs ({@link FrameSlab}): each is the consumer's own (never
 * overwritten), but `samples.buffer` is shared with neighbouring frames; transfer
 * `samples.slice()`, not `samples.buffer`.
 *
 * @example
 * // 8 kHz μ-law, 20 ms frames (160 bytes each), for a telephony bridge
 * const stage = new ConversionStage({ sampleRate: 8000, encoding: 'mulaw', channels: 1 });
 * await stage.ready;
 * for (const f of stage.push(pcmFrame)) send(f.samples);
 * for (const f of stage.flush()) send(f.samples);
 */
export interface OutputOptions {
  /** @defaultValue the input rate (no resampling) */
  sampleRate?: number | undefined;
  /** @defaultValue 's16le' */
  encoding?: SampleEncoding | undefined;
  /** @defaultValue the input channel count; 1 downmixes stereo (mean of L and R) */
  channels?: 1 | 2 | undefined;
  /** Output frame length in ms, above 0 and at most {@link MAX_FRAME_MS}. @defaultValue the
   * pipeline's `frameMs` in a pipeline; {@link DEFAULT_OUTPUT_FRAME_MS} (20) for a stage alone */
  frameMs?: number | undefined;
}

/** `output.frameMs` when neither it nor a pipeline `frameMs` is given: the framer's default. */
export const DEFAULT_OUTPUT_FRAME_MS = DEFAULT_FRAME_MS;
/**
 * The longest frame accepted, for `frameMs` and `output.frameMs` alike. The framers (the decoder's
 * and this stage's) accept any positive finite size (at least one sample), but each holds a whole
 * frame before handing it out: the frame size is also the delay before the first audio and the
 * step at which a consumer-driven playhead (and so word timing) moves, and it is memory held per
 * stream (a second at 384 kHz stereo is 3 MB as float). A second bounds all three.
 */
export const MAX_FRAME_MS = 1000;
const MAX_RATE = 384000;

/** {@link OutputOptions} after {@link resolveOutputOptions}: checked, with the defaults filled in
 * (`sampleRate` and `channels` stay undefined for "as the input"). */
export interface ResolvedOutputOptions {
  readonly sampleRate: number | undefined;
  readonly encoding: SampleEncoding;
  readonly channels: 1 | 2 | undefined;
  readonly frameMs: number;
}

/**
 * Checks a frame size given in milliseconds: a finite number in (0, {@link MAX_FRAME_MS}].
 * `field` names the option in the error (`frameMs`, `output.frameMs`).
 */
export function checkFrameMs(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_FRAME_MS) {
    const got = typeof value === 'number' ? String(value) : typeof value;
    throw new InvalidOptionError(field, `${field} must be a number of milliseconds above 0 and at most ${MAX_FRAME_MS}, got ${got}`);
  }
  return value;
}

/**
 * The one place {@link OutputOptions} are read: checks them and fills in the defaults. An option
 * given as `undefined` counts as not given. `defaultFrameMs` is the frame size when
 * `output.frameMs` is not given (the pipeline's own `frameMs`; checked by the caller).
 */
export function resolveOutputOptions(options: OutputOptions = {}, defaultFrameMs: number = DEFAULT_OUTPUT_FRAME_MS): ResolvedOutputOptions {
  if (typeof options !== 'object' || options === null)
    throw new InvalidOptionError('output', `output must be an object, got ${options === null ? 'null' : typeof options}`);
  const { sampleRate, encoding = 's16le', channels, frameMs } = options;
  if (sampleRate !== undefined && (!Number.isInteger(sampleRate) || sampleRate <= 0 || sampleRate > MAX_RATE)) {
    throw new InvalidOptionError('output.sampleRate', `output.sampleRate must be an integer in 1..${MAX_RATE}, got ${sampleRate}`);
  }
  if (!SAMPLE_ENCODINGS.includes(encoding)) {
    throw new InvalidOptionError(
      'output.encoding',
      `output.encoding must be one of ${SAMPLE_ENCODINGS.join(', ')}, got ${String(encoding)}`,
    );
  }
  if (channels !== undefined && channels !== 1 && channels !== 2) {
    throw new InvalidOptionError('output.channels', `output.channels must be 1 or 2, got ${String(channels)}`);
  }
  return { sampleRate, encoding, channels, frameMs: frameMs === undefined ? defaultFrameMs : checkFrameMs(frameMs, 'output.frameMs') };
}

/** The format of the frames a stage with `options` makes from `input` (encoding included). */
export function outputFormatFor(options: ResolvedOutputOptions, input: PcmFormat): PcmFormat & { encoding: SampleEncoding } {
  return { sampleRate: options.sampleRate ?? input.sampleRate, channels: options.channels ?? input.channels, encoding: options.encoding };
}
/** `frames` outside push/flush (nothing is delivered then). */
const NO_TARGET: AudioFrame[] = Object.freeze([]) as unknown as AudioFrame[];

export class ConversionStage {
  readonly options: ResolvedOutputOptions;
  /** Resolves once the resampler wasm is loaded (at once when no rate is asked for). */
  readonly ready: Promise<void>;
  private in: PcmFormat | null = null;
  private out: PcmFormat | null = null;
  private encoding: SampleEncoding;
  private resampler: Resampler | null = null;
  /** One output frame being filled (interleaved float, the output channel count). */
  private acc = new Float32Array(0);
  private accFill = 0;
  private frameSamples = 0;
  private emitted = 0;
  private mixBuf = new Float32Array(0);
  /** Where `deliver` puts frames: the caller's array during push/flush only. */
  private frames: AudioFrame[] = NO_TARGET;
  private readonly slab = new FrameSlab();
  private readonly sink = (out: Float32Array): void => this.append(out);

  /** Throws {@link InvalidOptionError} naming the option (`output.frameMs`, ...) when one is bad. */
  constructor(options: OutputOptions = {}) {
    this.options = resolveOutputOptions(options);
    this.encoding = this.options.encoding;
    this.ready = this.options.sampleRate === undefined ? Promise.resolve() : loadResampler();
  }

  /** The output format, known after the first frame (or from `configure`). */
  get outputFormat(): PcmFormat | null {
    return this.out;
  }

  /** Output samples per channel emitted so far (the playhead's unit). */
  get emittedSamples(): number {
    return this.emitted;
  }

  /** Output format for a given input, without pushing anything. */
  outputFor(input: PcmFormat): PcmFormat {
    const { sampleRate, channels } = outputFormatFor(this.options, input);
    return { sampleRate, channels };
  }

  /** Converts one frame; returns the output frames it completed (appended to `into` when given). */
  push(frame: PcmFrame, into: AudioFrame[] = []): AudioFrame[] {
    this.frames = into;
    try {
      this.pushOne(frame);
    } finally {
      this.frames = NO_TARGET; // never keep the caller's array (and its frames) alive
    }
    return into;
  }

  private pushOne(frame: PcmFrame): void {
    if (this.in === null || this.in.sampleRate !== frame.sampleRate || this.in.channels !== frame.channels) {
      this.configure({ sampleRate: frame.sampleRate, channels: frame.channels });
    }
    if (
      this.resampler === null &&
      this.accFill === 0 &&
      frame.sampleCount === this.frameSamples &&
      this.in!.channels === this.out!.channels
    ) {
      // Fast path (the common telephony case: opus decoded natively at the output rate, frames
      // already the right size): encode straight from s16, no float round trip. Same bits.
      this.emitDirect(frame.samples);
      return;
    }
    const mixed = this.mix(frame.samples);
    if (this.resampler) this.resampler.process(mixed, this.sink);
    else this.append(mixed);
  }

  /** End of stream: the resampler's tail, then the last (short) frame. */
  flush(into: AudioFrame[] = []): AudioFrame[] {
    this.frames = into;
    try {
      this.resampler?.flush(this.sink);
      if (this.accFill > 0) this.emit(this.accFill / this.out!.channels);
    } finally {
      this.frames = NO_TARGET;
    }
    return into;
  }

  reset(): void {
    this.resampler?.free();
    this.resampler = null;
    this.in = null;
    this.out = null;
    this.accFill = 0;
    this.emitted = 0;
  }

  free(): void {
    this.resampler?.free();
    this.resampler = null;
  }

  private configure(input: PcmFormat): void {
    // A format change mid-stream (rare): finish the old resampler's tail first.
    if (this.resampler) {
      this.resampler.flush(this.sink);
      this.resampler.free();
      this.resampler = null;
    }
    const out = this.outputFor(input);
    if (this.out && this.out.channels !== out.channels) throw new InvalidOptionError('output.channels', 'channel count changed mid-stream');
    this.in = input;
    this.out = out;
    if (out.sampleRate !== input.sampleRate) {
      if (!resamplerLoaded())
        throw new InvalidOptionError(
          'output.sampleRate',
          'ConversionStage.push before `ready` resolved (the resampler loads asynchronously)',
        );
      this.resampler = new Resampler(out.channels, input.sampleRate, out.sampleRate);
    }
    const frameSamples = samplesPerFrame(out.sampleRate, this.options.frameMs);
    if (frameSamples !== this.frameSamples || this.acc.length !== frameSamples * out.channels) {
      const acc = new Float32Array(frameSamples * out.channels);
      acc.set(this.acc.subarray(0, Math.min(this.accFill, acc.length)));
      this.acc = acc;
      this.frameSamples = frameSamples;
    }
  }

  /** s16 interleaved (input channels) → float interleaved (output channels). */
  private mix(s: Int16Array): Float32Array {
    const inCh = this.in!.channels;
    const outCh = this.out!.channels;
    const frames = s.length / inCh;
    const need = frames * outCh;
    if (this.mixBuf.length < need) this.mixBuf = new Float32Array(need);
    const m = this.mixBuf;
    const k = 1 / S16_SCALE;
    if (inCh === outCh) {
      for (let i = 0; i < need; i++) m[i] = s[i]! * k;
    } else if (outCh === 1) {
      const avg = k / inCh;
      for (let f = 0, p = 0; f < frames; f++) {
        let sum = 0;
        for (let c = 0; c < inCh; c++) sum += s[p++]!;
        m[f] = sum * avg;
      }
    } else {
      for (let f = 0; f < frames; f++) {
        const v = s[f * inCh]! * k;
        for (let c = 0; c < outCh; c++) m[f * outCh + c] = v;
      }
    }
    return m.subarray(0, need);
  }

  /** Copies float output into the frame being filled, emitting each full frame. */
  private append(x: Float32Array): void {
    const acc = this.acc;
    const size = acc.length;
    for (let i = 0; i < x.length;) {
      const n = Math.min(size - this.accFill, x.length - i);
      acc.set(x.subarray(i, i + n), this.accFill);
      this.accFill += n;
      i += n;
      if (this.accFill === size) this.emit(this.frameSamples);
    }
  }

  private emit(sampleCount: number): void {
    const n = sampleCount * this.out!.channels;
    const acc = this.acc;
    let samples: Int16Array | Float32Array | Uint8Array;
    if (this.encoding === 'f32le') {
      samples = this.slab.float32(n);
      samples.set(acc.subarray(0, n));
    } else if (this.encoding === 'mulaw') {
      const t = MULAW_ENCODE_14BIT;
      samples = this.slab.uint8(n);
      for (let i = 0; i < n; i++) samples[i] = t[(toS16(acc[i]!) >> MULAW_DROPPED_BITS) + MULAW_14BIT_OFFSET]!;
    } else if (this.encoding === 'alaw') {
      const t = ALAW_ENCODE_TABLE;
      samples = this.slab.uint8(n);
      for (let i = 0; i < n; i++) samples[i] = t[toS16(acc[i]!) + S16_SCALE]!;
    } else if (this.encoding === 's16be') {
      samples = this.slab.uint8(n * S16_BYTES);
      for (let i = 0, p = 0; i < n; i++, p += S16_BYTES) writeS16BE(samples, p, toS16(acc[i]!));
    } else {
      samples = this.slab.int16(n);
      for (let i = 0; i < n; i++) samples[i] = toS16(acc[i]!);
    }
    this.accFill = 0;
    this.deliver(samples, sampleCount);
  }

  /** A whole frame of s16 at the output rate and channel count, straight to the encoding. */
  private emitDirect(s: Int16Array): void {
    const n = s.length;
    let samples: Int16Array | Float32Array | Uint8Array;
    if (this.encoding === 's16le') {
      samples = s; // the frame is the consumer's already (PcmFrame: nothing overwrites it)
    } else if (this.encoding === 'mulaw') {
      const t = MULAW_ENCODE_14BIT; // indexed by the top 14 bits (see mulaw.ts)
      samples = this.slab.uint8(n);
      for (let i = 0; i < n; i++) samples[i] = t[(s[i]! >> MULAW_DROPPED_BITS) + MULAW_14BIT_OFFSET]!;
    } else if (this.encoding === 'alaw') {
      const t = ALAW_ENCODE_TABLE;
      samples = this.slab.uint8(n);
      for (let i = 0; i < n; i++) samples[i] = t[s[i]! + S16_SCALE]!;
    } else if (this.encoding === 's16be') {
      samples = this.slab.uint8(n * S16_BYTES);
      for (let i = 0, p = 0; i < n; i++, p += S16_BYTES) writeS16BE(samples, p, s[i]!);
    } else {
      const k = 1 / S16_SCALE;
      samples = this.slab.float32(n);
      for (let i = 0; i < n; i++) samples[i] = s[i]! * k;
    }
    this.deliver(samples, n / this.out!.channels);
  }

  private deliver(samples: Int16Array | Float32Array | Uint8Array, sampleCount: number): void {
    const out = this.out!;
    this.frames.push({
      samples,
      encoding: this.encoding,
      sampleRate: out.sampleRate,
      channels: out.channels,
      startSample: this.emitted,
      sampleCount,
    });
    this.emitted += sampleCount;
  }
}

/** Float in [-1, 1) → s16: round to nearest, clip. */
function toS16(x: number): number {
  const v = Math.round(x * S16_SCALE);
  return v > S16_MAX ? S16_MAX : v < S16_MIN ? S16_MIN : v;
}

const BYTE_BITS = 8;
const LOW_BYTE = 0xff;
/** One s16 sample as two bytes, high byte first (L16 network order). */
function writeS16BE(out: Uint8Array, p: number, v: number): void {
  out[p] = (v >> BYTE_BITS) & LOW_BYTE;
  out[p + 1] = v & LOW_BYTE;
}
