import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { l16Decode, l16Encode } from '../../src/dsp/l16.js';
import { CodecError } from '../../src/errors.js';

describe('L16 bytes', () => {
  it('big-endian puts the high byte first (RTP network order), little-endian the low byte', () => {
    const pcm = Int16Array.from([0x0102, -2, -32768, 32767]);
    expect(Array.from(l16Encode(pcm, 'be'))).toEqual([0x01, 0x02, 0xff, 0xfe, 0x80, 0x00, 0x7f, 0xff]);
    expect(Array.from(l16Encode(pcm, 'le'))).toEqual([0x02, 0x01, 0xfe, 0xff, 0x00, 0x80, 0xff, 0x7f]);
  });

  it('little-endian bytes equal the host memory of an Int16Array (what s16le frames already are)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -32768, max: 32767 }), { maxLength: 300 }), (xs) => {
        const pcm = Int16Array.from(xs);
        expect(Buffer.from(l16Encode(pcm, 'le'))).toEqual(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
      }),
    );
  });

  it('decode(encode(x)) is x in both byte orders, and the orders are byte swaps of each other', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -32768, max: 32767 }), { maxLength: 300 }), (xs) => {
        const pcm = Int16Array.from(xs);
        const be = l16Encode(pcm, 'be');
        const le = l16Encode(pcm, 'le');
        expect(l16Decode(be, 'be')).toEqual(pcm);
        expect(l16Decode(le, 'le')).toEqual(pcm);
        expect(Buffer.from(be).swap16()).toEqual(Buffer.from(le));
      }),
    );
  });

  it('any even number of bytes decodes; an odd count is a truncated sample naming the stray byte', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 301 }), fc.constantFrom('be' as const, 'le' as const), (bytes, order) => {
        if (bytes.length % 2 === 0) {
          expect(Array.from(l16Encode(l16Decode(bytes, order), order))).toEqual(Array.from(bytes));
        } else {
          try {
            l16Decode(bytes, order);
            expect.unreachable();
          } catch (err) {
            expect(err).toBeInstanceOf(CodecError);
            expect((err as CodecError).code).toBe('AUDIO_TRUNCATED');
            expect((err as CodecError).byteOffset).toBe(bytes.length - 1);
          }
        }
      }),
    );
  });
});
