/** Options and results of the speech pipeline (kept apart so the Duplex file stays about wiring). */
import type { AudioFormat } from '../codec/types.js';
import type { SpeechEventMeta } from '../events/SpeechEventScanner.js';
import type { PlayheadMode } from '../play/Playhead.js';
import type { FrameStageFactory, OutputOptions } from './outputStage.js';

export interface SpeechPipelineOptions {
  /** The request's `format`. */
  format: AudioFormat;
  /** The request's `sample_rate`: required for pcm; for the others a disagreeing header wins (with a `warning`). */
  sampleRate?: number;
  /** Frame size in ms, above 0 and at most `MAX_FRAME_MS` (1000); also the output's frame size
   * unless `output.frameMs` is given. Checked at construction. @defaultValue 20 */
  frameMs?: number;
  /** Bytes of decoded audio held between the SSE input and the decoder. @defaultValue 1 MiB */
  ringCapacity?: number;
  /** @defaultValue 'fail' */
  onInvalidEvent?: 'fail' | 'skip';
  /** Maximum SSE line/event size. @defaultValue 8 MiB */
  maxEventBytes?: number;
  /**
   * Conversion stage (src/dsp/ConversionStage.ts): resample / encoding / channels / frame size of the output;
   * the playhead then counts OUTPUT samples.
   */
  output?: OutputOptions;
  /** @defaultValue 'consumer' */
  playhead?: PlayheadMode;
  /** Aborting destroys the pipeline with an AbortError. */
  signal?: AbortSignal;
  /**
   * Called with each `message` event once its alignment is applied (before its audio is decoded):
   * lets a caller time events as they arrive (the latency benchmark's gaps between audio events)
   * without parsing the body twice.
   */
  onEvent?: (meta: SpeechEventMeta) => void;
  /**
   * @internal How much audio one `readFrame()` that finds no frame ready decodes ahead, in ms
   * (benches compare visit bounds with it). @defaultValue PULL_AHEAD_MS in SpeechPipeline.ts
   */
  pullAheadMs?: number;
  /**
   * @internal With it, `readFrame()` keeps up to `pullAheadMs` decoded ahead but decodes at most
   * this much audio per call, once no more than `pullAheadMs` minus it is queued (not only when
   * nothing is): the same decode-ahead spread over visits (benches compare it with a shorter bound).
   */
  pullSpreadMs?: number;
  /** @internal Replace the conversion stage (tests). */
  stageFactory?: FrameStageFactory;
}

export interface SpeechSummary {
  /** Seconds of audio produced. */
  durationSec: number;
  /** Words in the final timeline. */
  words: number;
  /** SSE `message` events seen. */
  events: number;
  /** SSE body bytes written. */
  bytes: number;
  /** Decoded (encoded-audio) bytes carried by the events. */
  audioBytes: number;
  /** Frames produced. */
  frames: number;
}
