import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { oggCrc, oggCrcUpdate } from '../../src/internal/oggCrc.js';

/** The definition, one bit at a time (RFC 3533: polynomial 0x04c11db7, init 0, no reflection). */
function bitwiseCrc(bytes: Uint8Array): number {
  let c = 0;
  for (const b of bytes) {
    c ^= b << 24;
    for (let bit = 0; bit < 8; bit++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
  }
  return c >>> 0;
}

const CRC_FIELD = 22;
const HEADER_BYTES = 27;

describe('oggCrc', () => {
  it('every page of a real opusenc file checks against the CRC it carries', () => {
    const ogg = new Uint8Array(readFileSync(new URL('../fixtures/opus/20ms-pages.opus', import.meta.url)));
    let pages = 0;
    for (let p = 0; p < ogg.length; pages++) {
      const segments = ogg[p + 26]!;
      let body = 0;
      for (let s = 0; s < segments; s++) body += ogg[p + HEADER_BYTES + s]!;
      const page = ogg.slice(p, p + HEADER_BYTES + segments + body);
      const stored = new DataView(page.buffer).getUint32(CRC_FIELD, true);
      page.fill(0, CRC_FIELD, CRC_FIELD + 4);
      expect(oggCrc(page)).toBe(stored);
      p += page.length;
    }
    expect(pages).toBeGreaterThan(100);
  });

  it('property: equals the bit-by-bit definition for any bytes, continued across any split (fast-check)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.array(fc.nat(), { maxLength: 6 }), (bytes, cuts) => {
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        let crc = 0;
        let from = 0;
        for (const to of [...points, bytes.length]) {
          crc = oggCrcUpdate(crc, bytes, from, to);
          from = to;
        }
        expect(crc).toBe(bitwiseCrc(bytes));
        expect(oggCrc(bytes)).toBe(crc);
      }),
      { numRuns: 500 },
    );
  });
});
