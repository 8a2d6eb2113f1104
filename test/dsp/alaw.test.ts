import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALAW_DECODE_TABLE, ALAW_ENCODE_TABLE, alawDecode, alawEncode } from '../../src/dsp/alaw.js';

/**
 * G.711 A-law from its definition (ITU-T G.711 Tables 1a/1b), written here independently of
 * src/dsp/alaw.ts: the 13-bit signed linear input (s16 >> 3, magnitude as one's complement for
 * negatives) has a 12-bit magnitude m. Segment 0 covers m < 32 with a step of 2; segment s ≥ 1
 * covers [32·2^(s−1), 32·2^s) with 16 steps of 2^s. The code is sign (1 = positive) | segment |
 * step, then every even bit is inverted (XOR 0x55). Decoding answers the middle of the interval.
 */
function referenceCompress(x: number): number {
  const positive = x >= 0;
  const m = (positive ? x : -x - 1) >> 3; // 0..4095
  let segment = 0;
  if (m >= 32) {
    segment = 1;
    while (m >= 32 << segment) segment++;
  }
  const step = segment === 0 ? m >> 1 : (m >> segment) - 16;
  return ((positive ? 0x80 : 0) | (segment << 4) | step) ^ 0x55;
}

function referenceExpand(code: number): number {
  const c = code ^ 0x55;
  const segment = (c >> 4) & 7;
  const step = c & 0x0f;
  // middle of the interval, in 12-bit magnitude units, then × 8 to 16-bit
  const m = segment === 0 ? 2 * step + 1 : (2 * step + 33) << (segment - 1);
  return (c & 0x80 ? 1 : -1) * m * 8;
}

describe('G.711 A-law', () => {
  it('known values: zero is 0xD5 / 0x55 (the even-bit inversion), full scale is 0xAA / 0x2A', () => {
    const enc = (x: number) => ALAW_ENCODE_TABLE[x + 32768];
    expect(enc(0)).toBe(0xd5);
    expect(enc(-1)).toBe(0x55);
    expect(enc(32767)).toBe(0xaa);
    expect(enc(-32768)).toBe(0x2a);
    expect(ALAW_DECODE_TABLE[0xd5]).toBe(8);
    expect(ALAW_DECODE_TABLE[0x55]).toBe(-8);
    expect(ALAW_DECODE_TABLE[0xaa]).toBe(32256);
    expect(ALAW_DECODE_TABLE[0x2a]).toBe(-32256);
    // segment 1 starts at 12-bit magnitude 32 (s16 256): code 0x90 ^ 0x55
    expect(enc(256)).toBe(0x90 ^ 0x55);
    expect(enc(255)).toBe(0x8f ^ 0x55);
  });

  it('encoding is bit-exact against the reference for all 65 536 inputs', () => {
    let mismatches = 0;
    for (let x = -32768; x <= 32767; x++) if (ALAW_ENCODE_TABLE[x + 32768] !== referenceCompress(x)) mismatches++;
    expect(mismatches).toBe(0);
  });

  it('decoding is bit-exact against the reference for all 256 codes', () => {
    for (let c = 0; c < 256; c++) expect(ALAW_DECODE_TABLE[c]).toBe(referenceExpand(c));
  });

  it('decode then encode gives every code back (A-law has no second zero)', () => {
    for (let c = 0; c < 256; c++) expect(ALAW_ENCODE_TABLE[ALAW_DECODE_TABLE[c]! + 32768]).toBe(c);
  });

  it('the error of a round trip stays within half a step of its segment', () => {
    fc.assert(
      fc.property(fc.integer({ min: -32768, max: 32767 }), (x) => {
        const y = ALAW_DECODE_TABLE[ALAW_ENCODE_TABLE[x + 32768]!]!;
        const m = Math.abs(x) >> 3;
        const halfStep = m < 64 ? 8 : 8 << (Math.floor(Math.log2(m)) - 5);
        expect(Math.abs(y - x)).toBeLessThanOrEqual(halfStep + 8);
        expect(Math.sign(y) === Math.sign(x) || x === 0 || x === -1 || Math.abs(x) < 16).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('alawEncode / alawDecode work on whole frames and write into a given buffer', () => {
    const pcm = Int16Array.from([0, 1000, -1000, 32767, -32768]);
    const codes = new Uint8Array(8);
    alawEncode(pcm, codes.subarray(2));
    expect(Array.from(codes.subarray(2, 7))).toEqual(Array.from(pcm, (x) => referenceCompress(x)));
    expect(Array.from(alawDecode(alawEncode(pcm)))).toEqual([8, 1008, -1008, 32256, -32256]);
  });
});
