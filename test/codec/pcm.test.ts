import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PcmDecoder } from '../../src/codec/PcmDecoder.js';
import { createDecoder } from '../../src/codec/createDecoder.js';
import { CodecError, InvalidOptionError } from '../../src/errors.js';

function concat(blocks: Int16Array[]): Int16Array {
  const out = new Int16Array(blocks.reduce((n, b) => n + b.length, 0));
  let o = 0;
  for (const b of blocks) {
    out.set(b, o);
    o += b.length;
  }
  return out;
}

function decodeSplit(bytes: Uint8Array, cuts: number[]): { pcm: Int16Array; errors: CodecError[] } {
  const d = new PcmDecoder({ sampleRate: 16000 });
  const blocks: Int16Array[] = [];
  const errors: CodecError[] = [];
  let at = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length)].sort((a, b) => a - b).concat(bytes.length)) {
    const r = d.decode(bytes.subarray(at, cut));
    blocks.push(...r.pcm);
    errors.push(...r.errors);
    at = cut;
  }
  const f = d.flush();
  return { pcm: concat([...blocks, ...f.pcm]), errors: [...errors, ...f.errors] };
}

describe('PcmDecoder', () => {
  it('reads s16le samples at the request rate, mono', () => {
    const d = new PcmDecoder({ sampleRate: 24000 });
    expect(d.format).toEqual({ sampleRate: 24000, channels: 1 });
    const r = d.decode(Uint8Array.from([0x01, 0x00, 0xff, 0x7f, 0x00, 0x80]));
    expect(Array.from(concat(r.pcm))).toEqual([1, 32767, -32768]);
  });

  it('carries the odd byte of a sample split across chunks over to the next chunk', () => {
    const d = new PcmDecoder({ sampleRate: 8000 });
    expect(concat(d.decode(Uint8Array.from([0x34])).pcm)).toHaveLength(0);
    expect(Array.from(concat(d.decode(Uint8Array.from([0x12, 0x78, 0x56, 0xcd])).pcm))).toEqual([0x1234, 0x5678]);
    expect(Array.from(concat(d.decode(Uint8Array.from([0xab])).pcm))).toEqual([(0xabcd << 16) >> 16]);
    expect(d.flush().errors).toEqual([]);
  });

  it('decodes unaligned views (a ring buffer span at an odd offset)', () => {
    const backing = new Uint8Array(9);
    backing.set([0x02, 0x00, 0x03, 0x00], 1);
    const r = new PcmDecoder({ sampleRate: 8000 }).decode(backing.subarray(1, 5));
    expect(Array.from(concat(r.pcm))).toEqual([2, 3]);
  });

  it('a stream ending inside a sample reports AUDIO_TRUNCATED as a non-fatal fault', () => {
    const d = new PcmDecoder({ sampleRate: 8000 });
    d.decode(Uint8Array.from([1, 0, 2]));
    const { errors } = d.flush();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'AUDIO_TRUNCATED', fatal: false, byteOffset: 2 });
  });

  it('any split of the bytes gives the same samples (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 301 }), fc.array(fc.nat(300), { maxLength: 12 }), (bytes, cuts) => {
        const whole = decodeSplit(bytes, []);
        const split = decodeSplit(bytes, cuts);
        expect(Array.from(split.pcm)).toEqual(Array.from(whole.pcm));
        expect(split.errors.map((e) => e.code)).toEqual(whole.errors.map((e) => e.code));
      }),
      { numRuns: 200 },
    );
  });

  it('createDecoder: pcm needs sampleRate, wav reads its header', () => {
    expect(() => createDecoder('pcm')).toThrow(InvalidOptionError);
    expect(createDecoder('pcm', { sampleRate: 16000 }).kind).toBe('pcm');
    expect(createDecoder('wav').kind).toBe('wav');
    expect(() => createDecoder('bogus' as never)).toThrow(InvalidOptionError);
  });
});
