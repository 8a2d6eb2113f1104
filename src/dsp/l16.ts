/**
 * L16: signed 16-bit linear PCM as bytes, in either byte order. RTP's L16 (RFC 3551 §4.5.11,
 * which Telnyx and Plivo carry) is big-endian, network order; Vonage's WebSocket and Exotel's
 * Voicebot document little-endian. Pure loops over DataView-free byte arithmetic: no copies
 * beyond the output, which the caller may give.
 */
import { CodecError } from '../errors.js';
import { S16_BYTES } from '../internal/s16.js';

export type L16ByteOrder = 'be' | 'le';
export const L16_BYTE_ORDERS: readonly L16ByteOrder[] = ['be', 'le'];

const BYTE = 8;
const LOW_BYTE = 0xff;
/** Sign-extends a 16-bit value held in a 32-bit number. */
const SIGN_EXTEND_SHIFT = 16;

/** s16 samples → L16 bytes in `order` (2 bytes a sample). */
export function l16Encode(pcm: Int16Array, order: L16ByteOrder, out: Uint8Array = new Uint8Array(pcm.length * S16_BYTES)): Uint8Array {
  const hi = order === 'be' ? 0 : 1;
  const lo = 1 - hi;
  for (let i = 0, p = 0; i < pcm.length; i++, p += S16_BYTES) {
    const v = pcm[i]!;
    out[p + hi] = (v >> BYTE) & LOW_BYTE;
    out[p + lo] = v & LOW_BYTE;
  }
  return out;
}

/**
 * L16 bytes in `order` → s16 samples. An odd byte count is a cut sample: a
 * {@link CodecError} (`AUDIO_TRUNCATED`, `byteOffset` at the stray byte), nothing decoded.
 */
export function l16Decode(bytes: Uint8Array, order: L16ByteOrder, out?: Int16Array): Int16Array {
  if (bytes.length % S16_BYTES !== 0) {
    throw new CodecError('AUDIO_TRUNCATED', `L16 audio must be whole 16-bit samples, got ${bytes.length} bytes`, {
      byteOffset: bytes.length - 1,
    });
  }
  const n = bytes.length / S16_BYTES;
  const pcm = out ?? new Int16Array(n);
  const hi = order === 'be' ? 0 : 1;
  const lo = 1 - hi;
  for (let i = 0, p = 0; i < n; i++, p += S16_BYTES) {
    pcm[i] = (((bytes[p + hi]! << BYTE) | bytes[p + lo]!) << SIGN_EXTEND_SHIFT) >> SIGN_EXTEND_SHIFT;
  }
  return pcm;
}
