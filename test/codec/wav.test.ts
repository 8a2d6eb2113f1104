import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WavDecoder } from '../../src/codec/WavDecoder.js';
import type { DecodedAudio } from '../../src/codec/types.js';
import type { CodecError } from '../../src/errors.js';

interface HeaderOptions {
  rate?: number;
  channels?: number;
  bits?: number;
  tag?: number;
  /** 'ffff' / 'zero' for "until the end". */
  dataSize?: number | 'ffff' | 'zero';
  extensible?: boolean;
  /** Extra chunks between fmt and data. */
  extra?: Uint8Array;
}

function wavHeader(dataBytes: number, o: HeaderOptions = {}): Uint8Array {
  const { rate = 16000, channels = 1, bits = 16, tag = 1, extensible = false, extra = new Uint8Array(0) } = o;
  const fmtBytes = extensible ? 40 : 16;
  const h = Buffer.alloc(12 + 8 + fmtBytes + extra.length + 8);
  const size = o.dataSize === 'ffff' ? 0xffffffff : o.dataSize === 'zero' ? 0 : (o.dataSize ?? dataBytes);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(typeof o.dataSize === 'string' ? size : h.length - 8 + dataBytes + (dataBytes & 1), 4);
  h.write('WAVE', 8, 'latin1');
  h.write('fmt ', 12, 'latin1');
  h.writeUInt32LE(fmtBytes, 16);
  h.writeUInt16LE(extensible ? 0xfffe : tag, 20);
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE((rate * channels * bits) / 8, 28);
  h.writeUInt16LE((channels * bits) / 8, 32);
  h.writeUInt16LE(bits, 34);
  if (extensible) {
    h.writeUInt16LE(22, 36);
    h.writeUInt16LE(bits, 38);
    h.writeUInt32LE(3, 40);
    h.writeUInt16LE(tag, 44);
    Buffer.from('000000001000800000aa00389b71', 'hex').copy(h, 46);
  }
  Buffer.from(extra).copy(h, 12 + 8 + fmtBytes);
  h.write('data', 12 + 8 + fmtBytes + extra.length, 'latin1');
  h.writeUInt32LE(size, 12 + 8 + fmtBytes + extra.length + 4);
  return h;
}

function s16(values: number[]): Uint8Array {
  return new Uint8Array(Int16Array.from(values).buffer);
}
function cat(...parts: Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}
function samples(r: { pcm: Int16Array[] }): number[] {
  return r.pcm.flatMap((b) => Array.from(b));
}

/** Decodes `parts` (each a decode call, optionally a chunk start), then flushes. */
function run(
  parts: Array<Uint8Array | { bytes: Uint8Array; chunkStart: true }>,
  d = new WavDecoder(),
): { pcm: number[]; errors: CodecError[] } {
  const all: DecodedAudio = { pcm: [], errors: [] };
  for (const p of parts) {
    const r = p instanceof Uint8Array ? d.decode(p) : d.decode(p.bytes, { chunkStart: true });
    all.pcm.push(...r.pcm);
    all.errors.push(...r.errors);
  }
  const f = d.flush();
  return { pcm: samples(all).concat(samples(f)), errors: [...all.errors, ...f.errors] };
}

describe('WavDecoder', () => {
  it('reads a 16-bit header and its data, then knows the format', () => {
    const d = new WavDecoder();
    expect(d.format).toBeNull();
    const out = run([cat(wavHeader(6, { rate: 22050 }), s16([1, -2, 3]))], d);
    expect(out).toEqual({ pcm: [1, -2, 3], errors: [] });
    expect(d.format).toEqual({ sampleRate: 22050, channels: 1 });
  });

  it('a data size of 0xFFFFFFFF means until the end', () => {
    expect(run([cat(wavHeader(0, { dataSize: 'ffff' }), s16([5, 6, 7, 8]))])).toEqual({ pcm: [5, 6, 7, 8], errors: [] });
  });

  it('a data size of 0 means until the end', () => {
    expect(run([cat(wavHeader(0, { dataSize: 'zero' }), s16([5, 6]))])).toEqual({ pcm: [5, 6], errors: [] });
  });

  it('accepts WAVE_FORMAT_EXTENSIBLE (PCM and float sub-formats)', () => {
    expect(run([cat(wavHeader(4, { extensible: true }), s16([9, -9]))])).toEqual({ pcm: [9, -9], errors: [] });
    const f32 = new Uint8Array(Float32Array.from([0.5, -1]).buffer);
    expect(run([cat(wavHeader(8, { extensible: true, tag: 3, bits: 32 }), f32)]).pcm).toEqual([16384, -32768]);
  });

  it('skips unknown chunks (with their pad byte) before the data', () => {
    const list = cat(Buffer.from('LIST', 'latin1'), Uint8Array.from([3, 0, 0, 0]), Uint8Array.from([1, 2, 3, 0]));
    expect(run([cat(wavHeader(4, { extra: list }), s16([1, 2]))])).toEqual({ pcm: [1, 2], errors: [] });
  });

  it('converts 8-, 24- and 32-bit PCM and float to s16', () => {
    expect(run([cat(wavHeader(2, { bits: 8 }), Uint8Array.from([128, 255]))]).pcm).toEqual([0, 127 << 8]);
    expect(run([cat(wavHeader(3, { bits: 24 }), Uint8Array.from([0xff, 0x34, 0x12]))]).pcm).toEqual([0x1234]);
    expect(run([cat(wavHeader(4, { bits: 32 }), Uint8Array.from([0, 0, 0x00, 0x80]))]).pcm).toEqual([-32768]);
    expect(run([cat(wavHeader(4, { bits: 32, tag: 3 }), new Uint8Array(Float32Array.from([2]).buffer))]).pcm).toEqual([32767]);
  });

  it('keeps stereo interleaved and carries a frame split across chunks', () => {
    const bytes = cat(wavHeader(8, { channels: 2 }), s16([1, 2, 3, 4]));
    const d = new WavDecoder();
    const out = run([bytes.subarray(0, 47), bytes.subarray(47, 49), bytes.subarray(49)], d);
    expect(out).toEqual({ pcm: [1, 2, 3, 4], errors: [] });
    expect(d.format).toEqual({ sampleRate: 16000, channels: 2 });
  });

  it('one complete WAV per text chunk: after the exact data size, the next RIFF header is read', () => {
    const a = cat(wavHeader(4), s16([1, 2]));
    const b = cat(wavHeader(6), s16([3, 4, 5]));
    expect(run([cat(a, b)])).toEqual({ pcm: [1, 2, 3, 4, 5], errors: [] });
  });

  it('an odd-sized data chunk is followed by its pad byte before the next RIFF', () => {
    const a = cat(wavHeader(3, { bits: 8 }), Uint8Array.from([128, 128, 128]), Uint8Array.from([0]));
    const b = cat(wavHeader(1, { bits: 8 }), Uint8Array.from([129]), Uint8Array.from([0]));
    expect(run([cat(a, b)])).toEqual({ pcm: [0, 0, 0, 256], errors: [] });
  });

  it('a data size that ends inside a sample frame drops the tail with a non-fatal AUDIO_TRUNCATED at its offset', () => {
    const header = wavHeader(3);
    const out = run([cat(header, Uint8Array.from([1, 0, 2]), Uint8Array.from([0]))]);
    expect(out.pcm).toEqual([1]);
    expect(out.errors.map((e) => [e.code, e.fatal, e.byteOffset])).toEqual([['AUDIO_TRUNCATED', false, header.length + 2]]);
  });

  it('after the exact data size, bytes that are no RIFF header are WAV_BAD_HEADER at their offset', () => {
    const a = cat(wavHeader(4), s16([1, 2]));
    const out = run([cat(a, Buffer.from('JUNKJUNKJUNK', 'latin1'))]);
    expect(out.pcm).toEqual([1, 2]);
    expect(out.errors[0]).toMatchObject({ code: 'WAV_BAD_HEADER', byteOffset: a.length, fatal: true });
  });

  it('unknown size: a RIFF header where a new chunk_seq begins starts the next WAV, not audio', () => {
    const a = cat(wavHeader(0, { dataSize: 'zero' }), s16([1, 2]));
    const b = cat(wavHeader(0, { dataSize: 'ffff' }), s16([3]));
    expect(run([a, { bytes: b.subarray(0, 2), chunkStart: true }, b.subarray(2)])).toEqual({ pcm: [1, 2, 3], errors: [] });
  });

  it('unknown size: a chunk start that is not a RIFF header is more audio', () => {
    const a = cat(wavHeader(0, { dataSize: 'zero' }), s16([1]));
    const more = Uint8Array.from([0x52, 0x49, 0x00, 0x00]); // "RI" then not "FF"
    expect(run([a, { bytes: more.subarray(0, 1), chunkStart: true }, more.subarray(1)]).pcm).toEqual([1, 0x4952, 0]);
  });

  it('a stream that does not begin with RIFF/WAVE is WAV_BAD_HEADER at byte 0', () => {
    const out = run([Buffer.from('ID3\u0004 not a wav file', 'latin1')]);
    expect(out.errors).toHaveLength(1);
    expect(out.errors[0]).toMatchObject({ code: 'WAV_BAD_HEADER', byteOffset: 0 });
  });

  it('a compressed WAV (ADPCM) is WAV_UNSUPPORTED', () => {
    const out = run([cat(wavHeader(4, { tag: 2, bits: 4, channels: 1 }), s16([1, 2]))]);
    expect(out.errors[0]).toMatchObject({ code: 'WAV_UNSUPPORTED', byteOffset: 20 });
    expect(out.pcm).toEqual([]);
  });

  it("a 'data' chunk before 'fmt ' is WAV_BAD_HEADER", () => {
    const h = Buffer.concat([Buffer.from('RIFF\xff\xff\xff\xffWAVEdata\x04\x00\x00\x00', 'latin1'), s16([1, 2])]);
    expect(run([h]).errors[0]).toMatchObject({ code: 'WAV_BAD_HEADER', byteOffset: 12 });
  });

  it('a later WAV at another rate is FORMAT_MISMATCH', () => {
    const out = run([cat(wavHeader(2), s16([1]), wavHeader(2, { rate: 8000 }), s16([2]))]);
    expect(out.pcm).toEqual([1]);
    expect(out.errors[0]).toMatchObject({ code: 'FORMAT_MISMATCH', byteOffset: 46 + 20 });
  });

  it('data shorter than its declared size is AUDIO_TRUNCATED at the end, after the samples that came', () => {
    const out = run([cat(wavHeader(10), s16([1, 2]))]);
    expect(out.pcm).toEqual([1, 2]);
    expect(out.errors).toHaveLength(1);
    expect(out.errors[0]).toMatchObject({ code: 'AUDIO_TRUNCATED', fatal: true, byteOffset: 48 });
  });

  it('a header cut short is AUDIO_TRUNCATED', () => {
    expect(run([wavHeader(4).subarray(0, 30)]).errors[0]).toMatchObject({ code: 'AUDIO_TRUNCATED', byteOffset: 30 });
  });

  it('an empty stream is no error (no audio, format unknown)', () => {
    const d = new WavDecoder();
    expect(run([], d)).toEqual({ pcm: [], errors: [] });
    expect(d.format).toBeNull();
  });

  it('any split of a one-WAV-per-chunk stream gives the same samples (property)', () => {
    const values = (n: number, k: number) => Array.from({ length: n }, (_, i) => ((i * 7919 + k) % 65536) - 32768);
    const exact = cat(wavHeader(20), s16(values(10, 1)), wavHeader(14, { extensible: true }), s16(values(7, 2)));
    const streamed = cat(wavHeader(0, { dataSize: 'ffff' }), s16(values(10, 3)));
    const chunked = [
      cat(wavHeader(0, { dataSize: 'zero' }), s16(values(5, 4))),
      cat(wavHeader(0, { dataSize: 'zero' }), s16(values(6, 5))),
    ];
    const expected = {
      exact: run([exact]).pcm,
      streamed: run([streamed]).pcm,
      chunked: run([chunked[0]!, { bytes: chunked[1]!, chunkStart: true }]).pcm,
    };
    expect(expected.chunked).toHaveLength(11);
    const splitAt = (bytes: Uint8Array, cuts: number[]) => {
      const sorted = [...new Set(cuts.filter((c) => c > 0 && c < bytes.length))].sort((a, b) => a - b);
      const parts: Uint8Array[] = [];
      let at = 0;
      for (const c of [...sorted, bytes.length]) {
        parts.push(bytes.subarray(at, c));
        at = c;
      }
      return parts;
    };
    fc.assert(
      fc.property(fc.array(fc.nat(120), { maxLength: 10 }), (cuts) => {
        expect(run(splitAt(exact, cuts)).pcm).toEqual(expected.exact);
        expect(run(splitAt(streamed, cuts)).pcm).toEqual(expected.streamed);
        const [first, second] = [splitAt(chunked[0]!, cuts), splitAt(chunked[1]!, cuts)];
        const parts = [...first, { bytes: second[0]!, chunkStart: true as const }, ...second.slice(1)];
        expect(run(parts)).toEqual({ pcm: expected.chunked, errors: [] });
      }),
      { numRuns: 200 },
    );
  });
});
