/**
 * G.711 A-law, bit-exact with the ITU-T G.191 reference (`alaw_compress` / `alaw_expand`):
 * 16-bit input, magnitude taken as one's complement for negatives and shifted to 12 bits (sign
 * apart), eight segments (the first two with the same step), the sign bit set for non-negative
 * samples and the even bits inverted on the wire (XOR 0x55). Encoding is one 64 KiB table lookup,
 * as for μ-law (src/dsp/mulaw.ts).
 */
import { S16_MAX, S16_MIN } from '../internal/s16.js';

/** G.711 inverts every even bit of the code on the line. */
export const ALAW_EVEN_BIT_INVERSION = 0x55;
/** Set for samples ≥ 0 (before the even-bit inversion, which leaves it alone). */
const SIGN_BIT = 0x80;
/** s16 → the 11-bit magnitude the segments are laid on (G.191 shifts by 4). */
const MAGNITUDE_SHIFT = 4;
/** Steps per segment (4-bit mantissa). */
const STEPS = 16;
const NIBBLE = 0x0f;
const SEGMENT_MASK = 0x70;
const CODE_MASK = 0x7f;
/** Half a step in 16-bit units at segment 0/1: the decoder answers the middle of the interval. */
const HALF_STEP = 8;
const S16_VALUES = S16_MAX - S16_MIN + 1;
const S16_OFFSET = -S16_MIN;

/** One sample, computed from the definition (the table below is built from this). */
export function alawEncodeSample(x: number): number {
  let magnitude = x < 0 ? ~x >> MAGNITUDE_SHIFT : x >> MAGNITUDE_SHIFT;
  if (magnitude >= STEPS) {
    let segment = 1;
    while (magnitude >= 2 * STEPS) {
      magnitude >>= 1;
      segment++;
    }
    magnitude = (segment << 4) + magnitude - STEPS;
  }
  const code = x >= 0 ? magnitude | SIGN_BIT : magnitude;
  return code ^ ALAW_EVEN_BIT_INVERSION;
}

/** One code back to linear 16-bit (G.191 `alaw_expand`). */
export function alawDecodeSample(code: number): number {
  const c = (code ^ ALAW_EVEN_BIT_INVERSION) & CODE_MASK;
  const segment = (c & SEGMENT_MASK) >> 4;
  let mantissa = c & NIBBLE;
  if (segment > 0) mantissa += STEPS;
  let value = (mantissa << MAGNITUDE_SHIFT) + HALF_STEP;
  if (segment > 1) value <<= segment - 1;
  return code & SIGN_BIT ? value : -value;
}

/** s16 (offset by 32768) → A-law code. */
export const ALAW_ENCODE_TABLE: Uint8Array = (() => {
  const t = new Uint8Array(S16_VALUES);
  for (let i = 0; i < S16_VALUES; i++) t[i] = alawEncodeSample(i - S16_OFFSET);
  return t;
})();

/** A-law code → s16. */
export const ALAW_DECODE_TABLE: Int16Array = (() => {
  const t = new Int16Array(256);
  for (let c = 0; c < 256; c++) t[c] = alawDecodeSample(c);
  return t;
})();

export function alawEncode(pcm: Int16Array, out: Uint8Array = new Uint8Array(pcm.length)): Uint8Array {
  const t = ALAW_ENCODE_TABLE;
  for (let i = 0; i < pcm.length; i++) out[i] = t[pcm[i]! + S16_OFFSET]!;
  return out;
}

export function alawDecode(codes: Uint8Array, out: Int16Array = new Int16Array(codes.length)): Int16Array {
  const t = ALAW_DECODE_TABLE;
  for (let i = 0; i < codes.length; i++) out[i] = t[codes[i]!]!;
  return out;
}
