/**
 * `pcm` format: raw s16le mono at the request's `sample_rate` (the stream carries no header).
 *
 * Transport chunks may split a sample (odd byte offsets): the odd byte is carried over to the
 * next call, so no byte is lost or shifted.
 *
 * @see docs/service-interface.md#speech-synthesis-request (format, sample_rate)
 */
import { CodecError } from '../errors.js';
import type { AudioDecoder, DecodedAudio, PcmFormat } from './types.js';
import { S16_BYTES } from '../internal/s16.js';

/** Bytes per s16le sample. */
const NO_CARRY = -1;

export interface PcmDecoderOptions {
  sampleRate: number;
  /** @defaultValue 1 (the service's pcm is mono) */
  channels?: number;
}

/**
 * @example
 * ```ts
 * const pcm = new PcmDecoder({ sampleRate: 16000 });
 * const { pcm: blocks } = pcm.decode(bytes); // Int16Array blocks; an odd trailing byte waits for the next call
 * const { errors } = pcm.flush(); // AUDIO_TRUNCATED (non-fatal) if the stream ended inside a sample
 * ```
 */
export class PcmDecoder implements AudioDecoder {
  readonly kind = 'pcm' as const;
  readonly format: PcmFormat;
  /** The low byte of a sample split across calls, or {@link NO_CARRY}. */
  private carry = NO_CARRY;
  /** Bytes seen so far (for byte offsets in errors). */
  private offset = 0;

  constructor(options: PcmDecoderOptions) {
    const { sampleRate, channels = 1 } = options;
    if (!Number.isInteger(sampleRate) || sampleRate <= 0) {
      throw new CodecError('CODEC_UNSUPPORTED', `pcm needs a positive integer sampleRate, got ${String(sampleRate)}`);
    }
    this.format = { sampleRate, channels };
  }

  /**
   * The samples of `bytes`: a view of them when they start on a 2-byte boundary with no byte
   * carried over (valid until the next call, see DecodedAudio), else a copy.
   */
  decode(bytes: Uint8Array): DecodedAudio {
    const n = bytes.length;
    if (n === 0) return { pcm: [], errors: [] };
    this.offset += n;
    const hasCarry = this.carry !== NO_CARRY;
    const total = n + (hasCarry ? 1 : 0);
    const count = total >> 1;
    let out: Int16Array;
    if (!hasCarry && (bytes.byteOffset & 1) === 0) {
      // Little-endian host: the bytes already are the samples (the Framer copies them anyway).
      out = new Int16Array(bytes.buffer, bytes.byteOffset, count);
    } else {
      out = new Int16Array(count);
      // Copy bytes into the (little-endian) sample memory: no alignment needed on the input view.
      const outBytes = new Uint8Array(out.buffer, 0, count * S16_BYTES);
      if (hasCarry) {
        if (count > 0) {
          outBytes[0] = this.carry;
          outBytes.set(bytes.subarray(0, count * S16_BYTES - 1), 1);
        }
      } else {
        outBytes.set(bytes.subarray(0, count * S16_BYTES));
      }
    }
    this.carry = total % S16_BYTES === 1 ? (bytes[n - 1] as number) : NO_CARRY;
    return { pcm: count > 0 ? [out] : [], errors: [] };
  }

  flush(): DecodedAudio {
    if (this.carry === NO_CARRY) return { pcm: [], errors: [] };
    this.carry = NO_CARRY;
    return {
      pcm: [],
      errors: [
        new CodecError('AUDIO_TRUNCATED', `pcm audio ended inside a sample (odd byte count ${this.offset}); the last byte was dropped`, {
          byteOffset: this.offset - 1,
          fatal: false,
        }),
      ],
    };
  }

  reset(): void {
    this.carry = NO_CARRY;
    this.offset = 0;
  }
}
