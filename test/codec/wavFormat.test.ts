/** The one RIFF/WAVE header writer (codec/wavFormat.ts), shared by the WAV file sink and the service's `wav` encoder. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseWavFmt, WAV_SIZE_UNKNOWN, wavHeader, wavHeaderLength } from '../../src/codec/wavFormat.js';
import { WavDecoder } from '../../src/codec/WavDecoder.js';
import { WavEncoder } from '../../src/service/encode/WavEncoder.js';

/** A streamed 22050 Hz mono s16 header, written out field by field (RIFF/WAVE, WAVEFORMAT). */
const STREAMED_S16_22050 = [
  '52494646',
  'ffffffff',
  '57415645', // "RIFF", size unknown, "WAVE"
  '666d7420',
  '10000000', // "fmt ", 16
  '0100',
  '0100',
  '22560000',
  '44ac0000',
  '0200',
  '1000', // PCM, 1 channel, 22050 Hz, 44100 B/s, align 2, 16 bits
  '64617461',
  'ffffffff', // "data", size unknown
].join('');

describe('wavHeader', () => {
  it('a streamed s16 header is 44 bytes with both sizes 0xFFFFFFFF, field by field', () => {
    const h = wavHeader({ sampleRate: 22050, channels: 1 });
    expect(h.length).toBe(wavHeaderLength());
    expect(h.toString('hex')).toBe(STREAMED_S16_22050);
    expect(WAV_SIZE_UNKNOWN).toBe(0xffffffff);
  });

  it('known sizes: the RIFF size counts the header after its own 8 bytes, the data and a pad byte for odd data', () => {
    const even = wavHeader({ sampleRate: 8000, channels: 2 }, 100);
    expect(even.readUInt32LE(4)).toBe(36 + 100);
    expect(even.readUInt32LE(40)).toBe(100);
    const odd = wavHeader({ sampleRate: 8000, channels: 1, encoding: 'mulaw' }, 7);
    expect(odd.readUInt32LE(4)).toBe(58 - 8 + 8);
    expect(odd.readUInt32LE(46)).toBe(7); // fact: sample frames
    expect(odd.readUInt32LE(54)).toBe(7);
  });

  it('a size too large for 32 bits is clamped below the "unknown" value, never equal to it', () => {
    const h = wavHeader({ sampleRate: 48000, channels: 1 }, 2 ** 33);
    expect(h.readUInt32LE(4)).toBe(WAV_SIZE_UNKNOWN - 1);
    expect(h.readUInt32LE(40)).toBe(WAV_SIZE_UNKNOWN - 1);
  });

  it('the fmt chunk it writes parses back to the same format (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 384_000 }),
        fc.integer({ min: 1, max: 16 }),
        fc.constantFrom('s16le' as const, 'f32le' as const),
        (sampleRate, channels, encoding) => {
          const h = wavHeader({ sampleRate, channels, encoding });
          const fmtBytes = h.readUInt32LE(16);
          const fmt = parseWavFmt(h.subarray(20, 20 + fmtBytes), 20);
          const bytes = encoding === 's16le' ? 2 : 4;
          expect(fmt).toEqual({
            formatTag: encoding === 's16le' ? 1 : 3,
            channels,
            sampleRate,
            blockAlign: channels * bytes,
            bitsPerSample: bytes * 8,
            kind: encoding === 's16le' ? 's16' : 'f32',
          });
          expect(h.readUInt32LE(28)).toBe(sampleRate * channels * bytes);
        },
      ),
    );
  });

  it("the local service's wav stream starts with the sink's streamed header, and our decoder reads it to the end", () => {
    const enc = new WavEncoder(22050);
    const head = enc.start();
    expect(head.map((b) => Buffer.from(b).toString('hex'))).toEqual([STREAMED_S16_22050]);
    const d = new WavDecoder();
    const out = d.decode(Buffer.concat([...head, ...enc.encode(Int16Array.from([1, -2, 3]))]));
    expect(out.pcm.flatMap((b) => Array.from(b))).toEqual([1, -2, 3]);
    expect(d.format).toEqual({ sampleRate: 22050, channels: 1 });
    expect([...out.errors, ...d.flush().errors]).toEqual([]);
  });
});
