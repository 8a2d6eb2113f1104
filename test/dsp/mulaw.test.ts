import { describe, expect, it } from 'vitest';
import {
  MULAW_14BIT_OFFSET,
  MULAW_DECODE_TABLE,
  MULAW_DROPPED_BITS,
  MULAW_ENCODE_14BIT,
  MULAW_ENCODE_TABLE,
  mulawDecode,
  mulawEncode,
} from '../../src/dsp/mulaw.js';

/**
 * G.711 μ-law from its definition (Table 2a/2b of ITU-T G.711): 8 segments of 16 steps, the
 * step doubling per segment, decision values in the 14-bit domain (input >> 2). Written here
 * independently of src/dsp/mulaw.ts as the reference table.
 */
function referenceExpand(code: number): number {
  const c = ~code & 0xff;
  const segment = (c >> 4) & 7;
  const step = c & 0x0f;
  // 14-bit magnitude: ((2 × step + 33) << segment) − 33, scaled to 16 bits (× 4)
  const magnitude = (((2 * step + 33) << segment) - 33) * 4;
  return (c & 0x80 ? -magnitude : magnitude) + 0; // + 0: no -0
}

/** Decision thresholds: the 14-bit magnitude m (+33 bias) falls in segment s when m < 64 << s. */
function referenceCompress(x: number): number {
  const negative = x < 0;
  const m14 = Math.min((negative ? -x - 1 : x) >> 2, 8158) + 33; // one's complement for negatives
  let segment = 0;
  while (m14 >= 64 << segment) segment++;
  const step = (m14 >> (segment + 1)) - 16;
  const code = (segment << 4) | step;
  return (~code & 0x7f) | (negative ? 0 : 0x80);
}

describe('G.711 μ-law', () => {
  it('known values from the standard', () => {
    const enc = (x: number) => MULAW_ENCODE_TABLE[x + 32768];
    expect(enc(0)).toBe(0xff);
    expect(enc(-1)).toBe(0x7f);
    expect(enc(32767)).toBe(0x80);
    expect(enc(-32768)).toBe(0x00);
    expect(MULAW_DECODE_TABLE[0x80]).toBe(32124);
    expect(MULAW_DECODE_TABLE[0x00]).toBe(-32124);
    expect(MULAW_DECODE_TABLE[0x01]).toBe(-31100);
    expect(MULAW_DECODE_TABLE[0xff]).toBe(0);
    expect(MULAW_DECODE_TABLE[0x7f]).toBe(0);
    expect(MULAW_DECODE_TABLE[0xfe]).toBe(8);
    expect(MULAW_DECODE_TABLE[0xf0]).toBe(120);
  });

  it('encoding is bit-exact against the reference for all 65 536 inputs', () => {
    let mismatches = 0;
    for (let x = -32768; x <= 32767; x++) if (MULAW_ENCODE_TABLE[x + 32768] !== referenceCompress(x)) mismatches++;
    expect(mismatches).toBe(0);
  });

  it('the 14-bit encode table gives the reference code for all 65 536 inputs', () => {
    let mismatches = 0;
    for (let x = -32768; x <= 32767; x++) {
      if (MULAW_ENCODE_14BIT[(x >> MULAW_DROPPED_BITS) + MULAW_14BIT_OFFSET] !== referenceCompress(x)) mismatches++;
    }
    expect(MULAW_ENCODE_14BIT.length).toBe(16384);
    expect(mismatches).toBe(0);
  });

  it('mulawEncode gives the reference code for every s16 in one frame', () => {
    const all = new Int16Array(65536);
    for (let i = 0; i < all.length; i++) all[i] = i - 32768;
    const codes = mulawEncode(all);
    let mismatches = 0;
    for (let i = 0; i < all.length; i++) if (codes[i] !== referenceCompress(all[i]!)) mismatches++;
    expect(mismatches).toBe(0);
  });

  it('decoding is bit-exact against the reference for all 256 codes', () => {
    for (let c = 0; c < 256; c++) expect(MULAW_DECODE_TABLE[c]).toBe(referenceExpand(c));
  });

  it('decode then encode gives every code back (0x7f and 0xff are both zero)', () => {
    for (let c = 0; c < 256; c++) {
      if (c === 0x7f) continue;
      expect(MULAW_ENCODE_TABLE[MULAW_DECODE_TABLE[c]! + 32768]).toBe(c);
    }
  });

  it('mulawEncode / mulawDecode work on whole frames', () => {
    const pcm = Int16Array.from([0, 1000, -1000, 32767, -32768]);
    expect(Array.from(mulawDecode(mulawEncode(pcm)))).toEqual([0, 988, -988, 32124, -32124]);
  });
});
