/**
 * Strict base64 (RFC 4648 §4 alphabet, `=` padding required, nothing after the padding).
 *
 * Why our own decoder: `Buffer.from(s, 'base64')` and `buf.write(s, off, 'base64')` silently skip
 * or stop at garbage, so a corrupt `audio_base64` would turn into plausible noise. And the hot path
 * has the base64 as bytes (the HTTP body), not as a string: decoding straight from those bytes
 * into the ring avoids an 8 KiB string per event. Non-zero bits in the last character before the
 * padding are tolerated (RFC 4648 §3.5 lets decoders accept them; Node does too).
 */

import { SIMD_BLOCK_BYTES, SIMD_BLOCK_CHARS, decodeBlocksSimd } from './simdBase64.js';

/** Table value of a byte that is not in the alphabet. */
const B64_INVALID = 255;
/** Table value of `=`. */
const B64_PAD = 64;
/** Any table value with one of these bits is not a 6-bit digit. */
const B64_NOT_DIGIT = 0xc0;
const PAD_CHAR = 0x3d; // '='
/** Below this many characters the wasm call costs more than the JS loop. */
const SIMD_MIN_CHARS = 64;
/** Characters in a base64 quad, and the bytes one quad of digits decodes to. */
export const BASE64_QUAD_CHARS = 4;
const QUAD_BYTES = 3;
const BITS_PER_CHAR = 6;
const BYTE_MASK = 0xff;

const TABLE = new Uint8Array(256).fill(B64_INVALID);
{
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < alphabet.length; i++) TABLE[alphabet.charCodeAt(i)] = i;
  TABLE[PAD_CHAR] = B64_PAD;
}

/** Returns null when `s` is strict base64, else why not (for the error message). */
export function base64Fault(s: string): string | null {
  const len = s.length;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    const t = c < 256 ? TABLE[c]! : B64_INVALID;
    if (t === B64_INVALID) return `unexpected character ${JSON.stringify(s[i])} at offset ${i}`;
    if (t === B64_PAD) {
      const paddingOk = i === len - 1 || (i === len - 2 && s.charCodeAt(len - 1) === PAD_CHAR);
      if (!paddingOk || len % BASE64_QUAD_CHARS !== 0) return `misplaced padding '=' at offset ${i}`;
    }
  }
  if (len % BASE64_QUAD_CHARS !== 0) return `length ${len} is not a multiple of 4 (padding is required)`;
  return null;
}

/** Bytes decoded from a strict base64 text of `len` characters ending in `pads` `=`. */
export function base64DecodedLength(len: number, pads: number): number {
  return (len / BASE64_QUAD_CHARS) * QUAD_BYTES - pads;
}

/** Upper bound of the bytes `len` base64 characters can decode to. */
export function base64MaxDecodedLength(len: number): number {
  return Math.ceil(len / BASE64_QUAD_CHARS) * QUAD_BYTES;
}

/** {@link StrictBase64Decoder.decode} stopped because the input ran out. */
export const DECODE_NEED_INPUT = 0;
/** … because the output ran out (call again with more room; up to 2 bytes are held back). */
export const DECODE_NEED_OUTPUT = 1;
/** … at a byte that is not base64 (`srcPos` points at it): a closing quote, or garbage. */
export const DECODE_STOP = 2;
/** … at a padding fault (`srcPos` points at it; `error` says what). */
export const DECODE_ERROR = 3;
export type DecodeStatus = typeof DECODE_NEED_INPUT | typeof DECODE_NEED_OUTPUT | typeof DECODE_STOP | typeof DECODE_ERROR;

/**
 * A resumable strict base64 decoder from bytes into a caller's byte span. Input may be cut
 * anywhere (≤ 3 characters are carried) and output may be cut anywhere (≤ 2 bytes are held back
 * and written first on the next call), so it can fill a ring buffer across its wrap point.
 * Allocates nothing after construction.
 */
export class StrictBase64Decoder {
  /** Where the last {@link decode} stopped reading. */
  srcPos = 0;
  /** Where the last {@link decode} stopped writing. */
  dstPos = 0;
  /** Why the last {@link decode} returned {@link DECODE_ERROR}. */
  error = '';
  private acc = 0;
  private count = 0;
  private pads = 0;
  private done = false;
  private pend = 0;
  private pendN = 0;

  reset(): void {
    this.acc = 0;
    this.count = 0;
    this.pads = 0;
    this.done = false;
    this.pend = 0;
    this.pendN = 0;
    this.error = '';
  }

  /** True when the characters so far form a complete strict base64 text. */
  get complete(): boolean {
    return this.count === 0 && this.pads === 0;
  }
  /** Bytes decoded but not yet written (waiting for output room). */
  get pending(): number {
    return this.pendN;
  }

  decode(src: Uint8Array, start: number, end: number, dst: Uint8Array, dstStart: number, dstEnd: number): DecodeStatus {
    let i = start;
    let o = dstStart;
    while (this.pendN > 0) {
      if (o >= dstEnd) return this.stop(i, o, DECODE_NEED_OUTPUT);
      this.pendN--;
      dst[o++] = (this.pend >>> (8 * this.pendN)) & BYTE_MASK;
    }
    for (;;) {
      if (this.count === 0 && !this.done) {
        if (decodeBlocksSimd !== null && end - i >= SIMD_MIN_CHARS && dstEnd - o >= SIMD_BLOCK_BYTES) {
          const c = decodeBlocksSimd(src, i, end, dst, o, dstEnd - o);
          i += c;
          o += (c / SIMD_BLOCK_CHARS) * SIMD_BLOCK_BYTES;
        }
        // Whole quads of digits while there is room for 3 bytes (the tail, or everything without wasm).
        const lim = end - BASE64_QUAD_CHARS;
        const olim = dstEnd - QUAD_BYTES;
        while (i <= lim && o <= olim) {
          const a = TABLE[src[i]!]!;
          const b = TABLE[src[i + 1]!]!;
          const c = TABLE[src[i + 2]!]!;
          const d = TABLE[src[i + 3]!]!;
          if ((a | b | c | d) & B64_NOT_DIGIT) break;
          const v = (a << (3 * BITS_PER_CHAR)) | (b << (2 * BITS_PER_CHAR)) | (c << BITS_PER_CHAR) | d;
          dst[o] = v >>> 16;
          dst[o + 1] = (v >>> 8) & BYTE_MASK;
          dst[o + 2] = v & BYTE_MASK;
          i += BASE64_QUAD_CHARS;
          o += QUAD_BYTES;
        }
      }
      if (i >= end) return this.stop(i, o, DECODE_NEED_INPUT);
      // Slow path: one character at a time (quad tails, padding, a full output span, stops).
      const t = TABLE[src[i]!]!;
      if (t === B64_INVALID) return this.stop(i, o, DECODE_STOP);
      if (this.done) return this.fail(i, o, 'data after the padding');
      let emit = 0;
      let bytes = 0;
      if (t === B64_PAD) {
        if (this.count === 2 && this.pads === 0) {
          this.pads = 1;
        } else if (this.count === 2 && this.pads === 1) {
          bytes = this.acc >>> 4;
          emit = 1;
        } else if (this.count === 3 && this.pads === 0) {
          bytes = this.acc >>> 2;
          emit = 2;
        } else return this.fail(i, o, "misplaced padding '='");
      } else {
        if (this.pads !== 0) return this.fail(i, o, "data after a single '='");
        this.acc = (this.acc << BITS_PER_CHAR) | t;
        if (++this.count === BASE64_QUAD_CHARS) {
          bytes = this.acc;
          emit = QUAD_BYTES;
        }
      }
      i++;
      if (emit === 0) continue;
      if (emit !== QUAD_BYTES) this.done = true; // a padded quad ends the text
      this.acc = 0;
      this.count = 0;
      this.pads = 0;
      // Write what fits, hold back the rest.
      let n = emit;
      while (n > 0 && o < dstEnd) {
        n--;
        dst[o++] = (bytes >>> (8 * n)) & BYTE_MASK;
      }
      if (n > 0) {
        this.pend = bytes & ((1 << (8 * n)) - 1);
        this.pendN = n;
        return this.stop(i, o, DECODE_NEED_OUTPUT);
      }
    }
  }

  private stop(i: number, o: number, status: DecodeStatus): DecodeStatus {
    this.srcPos = i;
    this.dstPos = o;
    return status;
  }
  private fail(i: number, o: number, why: string): DecodeStatus {
    this.error = `${why} at offset ${i}`;
    return this.stop(i, o, DECODE_ERROR);
  }
}

/**
 * True when `src[a..b)` is strict base64 (the byte form of {@link base64Fault}). Used to validate
 * audio before any of it is exposed, when it must be written to the ring in several goes.
 */
export function isStrictBase64Bytes(src: Uint8Array, a: number, b: number): boolean {
  const len = b - a;
  if (len % BASE64_QUAD_CHARS !== 0) return false;
  let end = b;
  if (len > 0 && src[b - 1] === PAD_CHAR) end = src[b - 2] === PAD_CHAR ? b - 2 : b - 1;
  let bad = 0;
  for (let i = a; i < end; i++) bad |= TABLE[src[i]!]!;
  return (bad & B64_NOT_DIGIT) === 0;
}

/** Number of `=` at the end of `src[a..b)` (0, 1 or 2). */
export function base64PadCount(src: Uint8Array, a: number, b: number): number {
  if (b - a < 2) return b > a && src[b - 1] === PAD_CHAR ? 1 : 0;
  return src[b - 1] === PAD_CHAR ? (src[b - 2] === PAD_CHAR ? 2 : 1) : 0;
}
