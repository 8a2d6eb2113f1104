import type { CodecError } from '../errors.js';

/** The `format` values of a speech synthesis request. */
export type AudioFormat = 'pcm' | 'wav' | 'mp3' | 'opus';

/** Sample encodings the engine can output. */
export type SampleEncoding = 's16le' | 'f32le' | 'mulaw';

export interface PcmFormat {
  sampleRate: number;
  channels: number;
}

/**
 * One fixed-size block of audio, owned by the consumer: nothing later overwrites it.
 * `samples` is interleaved: Int16Array for s16le, Float32Array for f32le, Uint8Array for μ-law.
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

/** What a decoder call gives back: PCM blocks (interleaved s16) in order, and faults as data. */
export interface DecodedAudio {
  pcm: Int16Array[];
  /** Faults found. One with `fatal: true` means the stream cannot go on; `pcm` still holds
   * everything decoded before it. */
  errors: CodecError[];
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
 * copies whatever it keeps.
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
  readonly sourceSampleRate?: number | null;
  /** Resolves when an asynchronously loaded backend (wasm) is ready; absent when synchronous. */
  readonly ready?: Promise<void>;
  decode(bytes: Uint8Array, hint?: DecodeHint): DecodedAudio;
  /** End of stream: emit what is held back, report truncation. */
  flush(): DecodedAudio;
  reset(): void;
  /** Frees native or wasm memory. */
  free?(): void;
}
