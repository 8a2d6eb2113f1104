/**
 * The pure core of the pipeline's audio path: validated bytes in the ring → decoder → framer →
 * optional conversion stage → frames. No streams: the pipeline calls {@link FrameProducer.step}
 * when its readable side wants frames, and {@link FrameProducer.finish} at the end.
 *
 * It also places the "a new chunk_seq's audio begins here" hints (one-WAV-per-chunk streams with
 * unknown sizes): a decode call never spans a chunk boundary, and the first one after it carries
 * `{chunkStart: true}`.
 */
import type { RingBuffer } from '../buffer/RingBuffer.js';
import { Framer } from '../codec/Framer.js';
import type {
  AudioDecoder,
  AudioFormat,
  AudioFrame,
  DecodedAudio,
  DecodeHint,
  PcmFormat,
  PcmFrame,
  SampleEncoding,
} from '../codec/types.js';
import { CodecError, type VoicewireError } from '../errors.js';
import { MulawFramer } from './MulawFramer.js';
import { outputFormatOf, type FrameStage, type ResolvedOutputOptions } from './outputStage.js';

/**
 * Ring bytes handed to the decoder per step: small enough to keep frames flowing early. A decoder
 * built with a step limit (`stepMs`, see DECODE_STEP_MS) decodes only part of them per call and
 * reports `pending`; the steps after that continue its backlog before it gets more bytes.
 */
export const DECODE_STEP_BYTES = 16 * 1024;
const CHUNK_START: DecodeHint = Object.freeze({ chunkStart: true });
/** "Continue the backlog" (AudioDecoder.pending). */
const NO_BYTES = new Uint8Array(0);

export type OutputFormat = PcmFormat & { encoding: SampleEncoding };

export interface FrameProducerOptions {
  ring: RingBuffer;
  decoder: AudioDecoder;
  frameMs: number;
  stage: FrameStage | null;
  /** The resolved output options (see resolveOutput); null or absent without a stage. */
  output?: ResolvedOutputOptions | null;
  /**
   * The stage is the default ConversionStage (not a `stageFactory`'s): when all it would do is
   * encode the framer's frames to μ-law, a {@link MulawFramer} does both in one pass instead.
   */
  defaultStage?: boolean;
  /** The request's format and sample_rate (a disagreeing stream header is a warning). */
  declared: { format: AudioFormat; sampleRate?: number };
  onWarning(warning: VoicewireError): void;
  onFormat(format: OutputFormat): void;
}

export class FrameProducer {
  /** The first fatal decoder fault: nothing more is decoded after it. */
  fault: CodecError | null = null;
  /** Output format, once the decoder knows the stream's. */
  format: OutputFormat | null = null;
  /** Output samples (per channel) produced so far. */
  samples = 0;
  private framer: Framer | null = null;
  /** Framing and μ-law encoding in one (see FrameProducerOptions.defaultStage); the stage then gets nothing. */
  private mulawFramer: MulawFramer | null = null;
  private finished = false;
  /** Ring offsets where a new chunk_seq's audio begins. */
  private boundaries: number[] = [];
  private boundaryHead = 0;
  /** Framer output waiting for the stage, reused from step to step. */
  private readonly staged: PcmFrame[] = [];

  constructor(private readonly o: FrameProducerOptions) {}

  /** The audio of a new chunk_seq begins at ring offset `offset` (ring.totalWritten terms). */
  markChunkStart(offset: number): void {
    // Not `boundaries[length - 1]` on an empty list: index -1 is a named-property lookup, which
    // V8 serves megamorphic (seen with --log-ic, once per chunk start).
    const n = this.boundaries.length;
    if (n === 0 || this.boundaries[n - 1] !== offset) this.boundaries.push(offset);
  }

  /**
   * Decodes one span of the ring below `limit` (a ring.totalWritten offset) into `out`, or one
   * more step of the decoder's backlog; false when nothing is decodable.
   */
  step(limit: number, out: AudioFrame[]): boolean {
    if (this.fault !== null || this.finished) return false;
    const decoder = this.o.decoder;
    if (decoder.pending === true) {
      // Bounded work per step: the decoder goes on with input it already holds.
      this.take(decoder.decode(NO_BYTES), false, out);
      return true;
    }
    const ring = this.o.ring;
    const at = ring.totalRead;
    let length = Math.min(ring.readSpanLength, limit - at, DECODE_STEP_BYTES);
    if (length <= 0) return false;
    let hint: DecodeHint | undefined;
    while (this.boundaryHead < this.boundaries.length && (this.boundaries[this.boundaryHead] as number) < at) this.boundaryHead++;
    if (this.boundaryHead > 0 && this.boundaryHead === this.boundaries.length) {
      // All passed: forget them (one per chunk_seq would otherwise pile up for the whole stream).
      this.boundaries.length = 0;
      this.boundaryHead = 0;
    }
    let next = this.boundaries[this.boundaryHead];
    if (next === at) {
      hint = CHUNK_START;
      next = this.boundaries[++this.boundaryHead];
    }
    if (next !== undefined) length = Math.min(length, next - at);
    const start = ring.readIndex;
    const result = decoder.decode(ring.buffer.subarray(start, start + length), hint);
    // PCM blocks may be views of these ring bytes: frame them before the ring may reuse them.
    this.take(result, false, out);
    ring.consume(length);
    return true;
  }

  /**
   * End of input: flush the decoder (unless it faulted), the framer and the stage into `out`.
   * `afterFault`: the input already failed, so the decoder's own complaints (truncation) are
   * only warnings.
   */
  finish(afterFault: boolean, out: AudioFrame[]): void {
    if (this.finished) return;
    this.finished = true;
    if (this.fault === null) this.take(this.o.decoder.flush(), afterFault, out);
    if (this.mulawFramer !== null) {
      const before = out.length;
      this.mulawFramer.flush(out);
      this.noteSamples(out, before);
      return; // the stage never got a frame: nothing to flush there
    }
    const frames: PcmFrame[] = [];
    this.framer?.flush(frames);
    this.toOut(frames, out);
    const stage = this.o.stage;
    if (stage !== null) {
      const before = out.length;
      appendReturned(stage.flush(out), out);
      this.noteSamples(out, before);
    }
  }

  private take(result: DecodedAudio, warnOnly: boolean, out: AudioFrame[]): void {
    const blocks = result.pcm;
    if (blocks.length > 0 && this.mulawFramer !== null) {
      const before = out.length;
      for (const pcm of blocks) this.mulawFramer.push(pcm, out);
      this.noteSamples(out, before);
    } else if (blocks.length > 0) {
      // Without a stage the framer's frames are the output; with one they pass through a scratch
      // array this producer reuses: no array per step either way.
      const direct = this.o.stage === null;
      const frames: PcmFrame[] = direct ? (out as PcmFrame[]) : this.staged;
      const before = out.length;
      const owned = result.ownedBuffers === true;
      for (const pcm of blocks) {
        if (pcm.length === 0) continue;
        const framer = this.framer ?? this.startFraming();
        if (framer === null) break;
        if (this.mulawFramer !== null) {
          // Set up just now (the stream's first block): this block and the rest go the fused way.
          this.mulawFramer.push(pcm, out);
          continue;
        }
        framer.push(pcm, frames, owned);
      }
      if (!direct) {
        this.toOut(frames, out);
        frames.length = 0;
      }
      this.noteSamples(out, before);
    }
    for (const error of result.errors) {
      if (!error.fatal || warnOnly) this.o.onWarning(error);
      else this.fault ??= error;
    }
  }

  /** Framer output to `out`, through the stage when there is one (it appends to `out` itself). */
  private toOut(frames: PcmFrame[], out: AudioFrame[]): void {
    if (frames.length === 0) return;
    const stage = this.o.stage;
    const before = out.length;
    if (stage === null) for (const frame of frames) out.push(frame);
    else for (const frame of frames) appendReturned(stage.push(frame, out), out);
    this.noteSamples(out, before);
  }

  /** Output samples so far: the end of the last frame added to `out` after index `before`. */
  private noteSamples(out: AudioFrame[], before: number): void {
    if (out.length === before) return;
    const last = out[out.length - 1]!;
    this.samples = last.startSample + last.sampleCount;
  }

  /** The decoder knows the stream's format: set up the framer and announce the output format. */
  private startFraming(): Framer | null {
    const format = this.o.decoder.format;
    if (format === null) return null;
    const { format: declared, sampleRate } = this.o.declared;
    const streamRate = this.o.decoder.sourceSampleRate ?? format.sampleRate;
    if (sampleRate !== undefined && declared !== 'pcm' && sampleRate !== streamRate) {
      this.o.onWarning(
        new CodecError(
          'FORMAT_MISMATCH',
          `the request asked for ${sampleRate} Hz but the ${declared} stream is ${streamRate} Hz; using the stream's rate`,
          { field: 'sample_rate', fatal: false },
        ),
      );
    }
    this.framer = new Framer({ ...format, frameMs: this.o.frameMs });
    this.format = outputFormatOf(format, this.o.output ?? null);
    const output = this.o.output;
    if (
      this.o.defaultStage === true &&
      output != null &&
      output.encoding === 'mulaw' &&
      (output.sampleRate === undefined || output.sampleRate === format.sampleRate) &&
      (output.channels === undefined || output.channels === format.channels) &&
      output.frameMs === this.o.frameMs
    ) {
      this.mulawFramer = new MulawFramer(format, this.framer.frameSamples);
    }
    this.o.onFormat(this.format);
    return this.framer;
  }
}

/**
 * A stage appends to the array it is given (ConversionStage does); one that returns its frames
 * in an array of its own instead (the FrameStage contract allows both) has them appended here.
 */
function appendReturned(frames: AudioFrame[], out: AudioFrame[]): void {
  if (frames !== out) for (const frame of frames) out.push(frame);
}
