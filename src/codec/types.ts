import type { CodecError } from '../errors.js';

/**
 * The `format` values of a speech synthesis request, each of which the engine decodes: the one
 * list (the request validation, the CLI and the decoder factory's message all read it).
 */
export const AUDIO_FORMATS = ['wav', 'pcm', 'mp3', 'opus'] as const;
export type AudioFormat = (typeof AUDIO_FORMATS)[number];

/**
 * Sample encodings the engine can output: the one list (output options and the CLI read it).
 * `alaw` is G.711 A-law (one byte a sample); `s16be` is L16 in network byte order (RTP, RFC 3551),
 * its bytes in a Uint8Array: no WAV form, for telephony lines that carry it.
 */
export const SAMPLE_ENCODINGS = ['s16le', 'f32le', 'mulaw', 'alaw', 's16be'] as const;
export type SampleEncoding = (typeof SAMPLE_ENCODINGS)[number];

export interface PcmFormat {
  sampleRate: number;
  channels: number;
}

/**
 * One fixed-size block of audio, owned by the consumer: nothing later overwrites it.
 * `samples` is interleaved: Int16Array for s16le, Float32Array for f32le, Uint8Array for μ-law,
 * A-law and s16be (two bytes a sample, high byte first).
 * It may be a view into a slab shared with neighbouring frames (src/codec/FrameSlab.ts): read
 * `samples.buffer` only with `byteOffset`/`byteLength`, and transfer `samples.slice()`, never
 * `samples.buffer`, to a worker.
 */
export interface AudioFrame {
  samples: Int16Array | Float32Array | Uint8Array;
  encoding: SampleEncoding;
  sampleRate: number;
  channels: number;
  /** Index of this frame's first sample (per channel) since the stream began, at `sampleRate`. */
  startSample: number;
  /** Samples per channel in this frame. The last frame may be short. */
  sampleCount: number;
}

/** A frame before the conversion stage: always s16le. */
export interface PcmFrame extends AudioFrame {
  samples: Int16Array;
  encoding: 's16le';
}

/**
 * What a decoder call gives back: PCM blocks (interleaved s16) in order, and faults as data.
 *
 * The blocks are valid until the next call on the decoder: a block may be a view of the `bytes`
 * the call was given (pcm/wav hand out the input itself when it is 2-byte aligned) or of memory
 * the decoder reuses. Copy what you keep (the Framer does).
 */
export interface DecodedAudio {
  pcm: Int16Array[];
  /** Faults found. One with `fatal: true` means the stream cannot go on; `pcm` still holds
   * everything decoded before it. */
  errors: CodecError[];
  /**
   * Every block of `pcm` is a view into an ArrayBuffer that holds nothing else and that no one
   * else references (a native decoder's fresh output): a Framer may then hand that memory out as
   * frames instead of copying it into its slabs (`Framer.push(pcm, into, true)`).
   */
  ownedBuffers?: boolean;
}

/**
 * Audio a decoder built with a step limit decodes per call, at most (plus one packet/frame): small
 * enough that frames flow after every packet or two, and that one stream's burst does not stall
 * others in the same thread (real-time telephony). The pipeline passes it as `stepMs`.
 */
export const DECODE_STEP_MS = 40;

/** Options every built-in decoder takes. */
export interface DecodeStepOptions {
  /**
   * Bounded work per `decode` call: decode about this many ms of audio and keep the rest of the
   * input (copied) as a backlog, reported by {@link AudioDecoder.pending}. Call `decode` with an
   * empty array to go on; `flush()` drains everything.
   * @defaultValue Infinity (every call decodes everything it was given)
   */
  stepMs?: number;
}

export interface DecodeHint {
  /** These bytes begin the audio of a new `chunk_seq` (its first event). */
  chunkStart?: boolean;
}

/**
 * One lifecycle for every codec (after wasm-audio-decoders): `decode(bytes)` → `{pcm, errors}`,
 * then `flush()` at the end and `reset()` to start over.
 *
 * `bytes` may be a view into the engine's ring buffer, valid only during the call: a decoder
 * copies whatever it keeps. Returned PCM blocks are valid until the next call (see {@link DecodedAudio}).
 *
 * Incremental decoding (optional, see {@link DecodeStepOptions}): a decoder whose `pending` is
 * true has input it accepted but has not decoded yet. The caller then calls `decode(EMPTY)`
 * (zero bytes; the hint is ignored) until `pending` is false before handing it more bytes, so
 * frames come out after every step; bytes given while pending are queued behind the backlog. A
 * fault found in input still queued is reported once the audio before it has been decoded.
 */
export interface AudioDecoder {
  readonly kind: AudioFormat;
  /** Known once the stream's headers are parsed (pcm: at construction). */
  readonly format: PcmFormat | null;
  /**
   * The rate the stream names for its source when that differs from the decoded rate: Ogg Opus
   * always decodes at an Opus rate, and its OpusHead carries the encoder's input rate, which is
   * what a request's `sample_rate` means for opus. Absent: the decoded rate is the stream's own.
   */
  readonly sourceSampleRate?: number | null | undefined;
  /** Resolves when an asynchronously loaded backend (wasm) is ready; absent when synchronous. */
  readonly ready?: Promise<void> | undefined;
  /** True while accepted input is still undecoded (a step-limited decoder); absent = never. */
  readonly pending?: boolean | undefined;
  decode(bytes: Uint8Array, hint?: DecodeHint): DecodedAudio;
  /** End of stream: emit what is held back, report truncation. */
  flush(): DecodedAudio;
  reset(): void;
  /** Frees native or wasm memory. */
  free?(): void;
}
