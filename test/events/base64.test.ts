import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DECODE_ERROR,
  DECODE_NEED_INPUT,
  DECODE_NEED_OUTPUT,
  DECODE_STOP,
  StrictBase64Decoder,
  base64Fault,
  isStrictBase64Bytes,
} from '../../src/events/base64.js';
import { decodeBlocksSimd } from '../../src/events/simdBase64.js';

/** Decodes `text` fed in pieces into an output cut into spans; null when the decoder rejects it. */
function decodePieces(text: string, inCuts: number[], outSpan: number): Buffer | null {
  const src = Buffer.from(text, 'latin1');
  const out = Buffer.alloc(src.length + 8);
  const dec = new StrictBase64Decoder();
  let o = 0;
  const pts = [...new Set([...inCuts.map((c) => c % (src.length + 1)), src.length])].sort((a, b) => a - b);
  let prev = 0;
  for (const p of pts) {
    let i = prev;
    for (;;) {
      const st = dec.decode(src, i, p, out, o, Math.min(out.length, o + outSpan));
      i = dec.srcPos;
      o = dec.dstPos;
      if (st === DECODE_NEED_INPUT) break;
      if (st === DECODE_STOP || st === DECODE_ERROR) return null;
      expect(st).toBe(DECODE_NEED_OUTPUT);
    }
    prev = p;
  }
  if (!dec.complete || dec.pending !== 0) return null;
  return out.subarray(0, o);
}

describe('strict base64', () => {
  it('wasm SIMD is available on this Node (else the JS loop decodes everything)', () => {
    expect(decodeBlocksSimd).not.toBeNull();
  });
  it('decodes any bytes exactly like Buffer, for any input and output cuts', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 3000 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.integer({ min: 1, max: 5000 }),
        (bytes, cuts, span) => {
          const text = Buffer.from(bytes).toString('base64');
          expect(base64Fault(text)).toBeNull();
          const src = Buffer.from(text, 'latin1');
          expect(isStrictBase64Bytes(src, 0, src.length)).toBe(true);
          expect(decodePieces(text, cuts, span)).toEqual(Buffer.from(bytes));
        },
      ),
      { numRuns: 300 },
    );
  });
  it('rejects exactly what base64Fault rejects (garbage anywhere, bad padding, missing padding)', () => {
    const corrupt = fc.tuple(
      fc.uint8Array({ minLength: 1, maxLength: 1500 }),
      fc.nat(),
      fc.constantFrom('!', '-', '_', ' ', '\n', '=', '"', '\\', 'é', '==', 'A'),
      fc.constantFrom('replace', 'insert', 'truncate'),
    );
    fc.assert(
      fc.property(corrupt, fc.array(fc.nat(), { maxLength: 4 }), fc.integer({ min: 1, max: 100 }), ([bytes, at, ch, how], cuts, span) => {
        let text = Buffer.from(bytes).toString('base64');
        const p = at % text.length;
        if (how === 'replace') text = text.slice(0, p) + ch + text.slice(p + 1);
        else if (how === 'insert') text = text.slice(0, p) + ch + text.slice(p);
        else text = text.slice(0, p);
        const fault = base64Fault(text);
        const got = decodePieces(text, cuts, span);
        expect(got === null).toBe(fault !== null);
        const src = Buffer.from(text, 'latin1');
        // eslint-disable-next-line no-control-regex -- the latin1 range test: \x00 is meant
        if (!/[^\x00-\xff]/.test(text)) expect(isStrictBase64Bytes(src, 0, src.length)).toBe(fault === null);
        if (fault === null) expect(got).toEqual(Buffer.from(text, 'base64'));
      }),
      { numRuns: 400 },
    );
  });
  it('Buffer.from accepts garbage that strict decoding rejects', () => {
    expect(Buffer.from('QU!JD', 'base64').length).toBeGreaterThan(0);
    expect(base64Fault('QU!JD')).toMatch(/unexpected character "!" at offset 2/);
    expect(base64Fault('QUJD-_==')).not.toBeNull();
    expect(base64Fault('QQ')).toMatch(/padding is required/);
    expect(base64Fault('Q===')).toMatch(/misplaced padding/);
    expect(base64Fault('QQ==QUJD')).toMatch(/misplaced padding/);
    expect(base64Fault('')).toBeNull();
  });
  it('stops at a closing quote and says where', () => {
    const src = Buffer.from('QUJD"rest');
    const dec = new StrictBase64Decoder();
    const out = Buffer.alloc(8);
    expect(dec.decode(src, 0, src.length, out, 0, out.length)).toBe(DECODE_STOP);
    expect(dec.srcPos).toBe(4);
    expect(dec.complete).toBe(true);
    expect(out.subarray(0, dec.dstPos).toString()).toBe('ABC');
  });
});
