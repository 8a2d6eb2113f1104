/**
 * The optional conversion stage (resample / s16 | f32 | μ-law / channels / re-framing) that runs
 * after the framer when the pipeline gets `output` options: the dsp engineer's ConversionStage.
 *
 * @see ../../ENGINE-CONTRACT.md (C)
 */
import type { AudioFrame, PcmFormat, PcmFrame, SampleEncoding } from '../codec/types.js';
import { ConversionStage, type OutputOptions } from '../dsp/ConversionStage.js';

export type { OutputOptions } from '../dsp/ConversionStage.js';

/** A pure frame-to-frame stage. */
export interface FrameStage {
  /** Resolves when an asynchronously loaded backend (the resampler's wasm) is ready. */
  readonly ready?: Promise<void>;
  /** Output frames completed by `frame`: appended to `into` when given (no array per call), else a new array. */
  push(frame: PcmFrame, into?: AudioFrame[]): AudioFrame[];
  flush(into?: AudioFrame[]): AudioFrame[];
  free?(): void;
}

/** Builds the stage for `output`; `frameMs` is the pipeline's frame size (the default for the output's). */
export type FrameStageFactory = (output: OutputOptions, frameMs: number) => FrameStage;

export const defaultStageFactory: FrameStageFactory = (output, frameMs) => new ConversionStage({ frameMs, ...output });

/** The output format for a stream of format `input`. */
export function outputFormatOf(input: PcmFormat, output: OutputOptions | undefined): PcmFormat & { encoding: SampleEncoding } {
  return {
    sampleRate: output?.sampleRate ?? input.sampleRate,
    channels: output?.channels ?? input.channels,
    encoding: output?.encoding ?? 's16le',
  };
}
