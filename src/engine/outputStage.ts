/**
 * The optional conversion stage (resample / s16 | f32 | μ-law / channels / re-framing) that runs
 * after the framer when the pipeline gets `output` options: {@link ConversionStage}.
 * Also the one place the pipeline's frame size and output format are resolved from its options.
 */
import { DEFAULT_FRAME_MS } from '../codec/Framer.js';
import type { AudioFrame, PcmFormat, PcmFrame, SampleEncoding } from '../codec/types.js';
import {
  checkFrameMs,
  ConversionStage,
  outputFormatFor,
  resolveOutputOptions,
  type OutputOptions,
  type ResolvedOutputOptions,
} from '../dsp/ConversionStage.js';

export type { OutputOptions, ResolvedOutputOptions } from '../dsp/ConversionStage.js';

/** A pure frame-to-frame stage. */
export interface FrameStage {
  /** Resolves when an asynchronously loaded backend (the resampler's wasm) is ready. */
  readonly ready?: Promise<void>;
  /** Output frames completed by `frame`: appended to `into` when given (no array per call), else a new array. */
  push(frame: PcmFrame, into?: AudioFrame[]): AudioFrame[];
  flush(into?: AudioFrame[]): AudioFrame[];
  free?(): void;
}

/** Builds the stage for resolved `output` options (its `frameMs` is final: the pipeline's when
 * `output.frameMs` was not given). */
export type FrameStageFactory = (output: ResolvedOutputOptions) => FrameStage;

export const defaultStageFactory: FrameStageFactory = (output) => new ConversionStage(output);

/** The pipeline's frame size and output options, resolved once at construction. */
export interface ResolvedOutput {
  /** Frame size of the decoder's framer, ms. */
  readonly frameMs: number;
  /** The conversion stage's options, or null for no stage (frames leave as the framer cuts them). */
  readonly output: ResolvedOutputOptions | null;
}

/**
 * Reads `frameMs` and `output` once, for everything after: checks them (throws
 * InvalidOptionError naming `frameMs` or `output.frameMs`, ...) and fills in the defaults. An
 * option given as `undefined` counts as not given: `output: { frameMs: undefined }` keeps the
 * pipeline's `frameMs`.
 */
export function resolveOutput(options: { frameMs?: number | undefined; output?: OutputOptions | undefined }): ResolvedOutput {
  const frameMs = options.frameMs === undefined ? DEFAULT_FRAME_MS : checkFrameMs(options.frameMs, 'frameMs');
  return { frameMs, output: options.output === undefined ? null : resolveOutputOptions(options.output, frameMs) };
}

/** The output format for a stream of format `input`. */
export function outputFormatOf(input: PcmFormat, output: ResolvedOutputOptions | null): PcmFormat & { encoding: SampleEncoding } {
  if (output !== null) return outputFormatFor(output, input);
  return { sampleRate: input.sampleRate, channels: input.channels, encoding: 's16le' };
}
