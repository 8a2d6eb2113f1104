/**
 * G.711 μ-law, bit-exact with the ITU-T G.191 reference (`ulaw_compress` / `ulaw_expand`):
 * 16-bit input, magnitude taken as one's complement for negatives and truncated to 14 bits,
 * bias 33, eight segments, all bits inverted on the wire. Encoding is one table lookup on the
 * sample's top 14 bits ({@link MULAW_ENCODE_14BIT}, 16 KiB).
 */
import { S16_MAX, S16_MIN } from '../internal/s16.js';

const BIAS = 33;
const MAX_MAGNITUDE = 0x1fff;
const SEGMENT_SHIFT = 6;
const SIGN_BIT = 0x80;
const NIBBLE = 0x0f;
const SEGMENTS = 8;
/** The encode table has one entry per s16 value, indexed from S16_MIN. */
const S16_VALUES = S16_MAX - S16_MIN + 1;
const S16_OFFSET = -S16_MIN;

/** One sample, computed from the definition (the table below is built from this). */
export function mulawEncodeSample(x: number): number {
  let magnitude = (x < 0 ? ~x >> 2 : x >> 2) + BIAS;
  if (magnitude > MAX_MAGNITUDE) magnitude = MAX_MAGNITUDE;
  let segment = 1;
  for (let i = magnitude >> SEGMENT_SHIFT; i !== 0; i >>= 1) segment++;
  const high = SEGMENTS - segment;
  const low = NIBBLE - ((magnitude >> segment) & NIBBLE);
  const code = (high << 4) | low;
  return x >= 0 ? code | SIGN_BIT : code;
}

/** One code back to linear 16-bit (G.191 `ulaw_expand`). */
export function mulawDecodeSample(code: number): number {
  const sign = code < SIGN_BIT ? -1 : 1;
  const inverted = ~code;
  const exponent = (inverted >> 4) & 0x07;
  const mantissa = inverted & NIBBLE;
  const step = 4 << (exponent + 1);
  return sign * ((0x80 << exponent) + step * mantissa + step / 2 - 4 * BIAS) + 0; // + 0: no -0
}

/**
 * The encoder reads only the top 14 bits of a sample (G.191 truncates the magnitude to 14 bits, and
 * for s16 `~x >> 2 === ~(x >> 2)`): `x >> 2` is in [-8192, 8191], offset by this.
 */
export const MULAW_14BIT_OFFSET = 8192;
const MULAW_14BIT_VALUES = 2 * MULAW_14BIT_OFFSET;
/** The low bits of an s16 the encoder ignores. */
export const MULAW_DROPPED_BITS = 2;

/**
 * s16 → μ-law code, indexed by `(x >> 2) + MULAW_14BIT_OFFSET`: the same codes as
 * {@link MULAW_ENCODE_TABLE} (checked for every s16 in test/dsp/mulaw.test.ts) in a quarter of the
 * memory. 16 KiB sit in a core's L1 data cache beside the decoder's state; the 64 KiB table did
 * not, and at telephony load every 20 ms frame of every stream found it evicted
 * (native-notes/engine-performance.md, tenth pass).
 */
export const MULAW_ENCODE_14BIT: Uint8Array = (() => {
  const t = new Uint8Array(MULAW_14BIT_VALUES);
  for (let i = 0; i < MULAW_14BIT_VALUES; i++) t[i] = mulawEncodeSample((i - MULAW_14BIT_OFFSET) << MULAW_DROPPED_BITS);
  return t;
})();

/** s16 (offset by 32768) → μ-law code: the definition tabulated for every s16 (tests, tools). */
export const MULAW_ENCODE_TABLE: Uint8Array = (() => {
  const t = new Uint8Array(S16_VALUES);
  for (let i = 0; i < S16_VALUES; i++) t[i] = mulawEncodeSample(i - S16_OFFSET);
  return t;
})();

/** μ-law code → s16. */
export const MULAW_DECODE_TABLE: Int16Array = (() => {
  const t = new Int16Array(256);
  for (let c = 0; c < 256; c++) t[c] = mulawDecodeSample(c);
  return t;
})();

export function mulawEncode(pcm: Int16Array, out: Uint8Array = new Uint8Array(pcm.length)): Uint8Array {
  const t = MULAW_ENCODE_14BIT;
  for (let i = 0; i < pcm.length; i++) out[i] = t[(pcm[i]! >> MULAW_DROPPED_BITS) + MULAW_14BIT_OFFSET]!;
  return out;
}

export function mulawDecode(codes: Uint8Array, out: Int16Array = new Int16Array(codes.length)): Int16Array {
  const t = MULAW_DECODE_TABLE;
  for (let i = 0; i < codes.length; i++) out[i] = t[codes[i]!]!;
  return out;
}
