import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AudioFrame, PcmFrame } from '../../src/codec/types.js';
import { wavHeader } from '../../src/codec/wavFormat.js';
import { ALAW_ENCODE_TABLE, alawEncode } from '../../src/dsp/alaw.js';
import { ConversionStage, type OutputOptions } from '../../src/dsp/ConversionStage.js';
import { l16Decode, l16Encode } from '../../src/dsp/l16.js';
import { loadResampler } from '../../src/dsp/Resampler.js';
import { CodecError } from '../../src/errors.js';

beforeAll(() => loadResampler());

function frames(pcm: Int16Array, sampleRate: number, frameSamples: number): PcmFrame[] {
  const out: PcmFrame[] = [];
  for (let s = 0; s < pcm.length; s += frameSamples) {
    const samples = pcm.slice(s, Math.min(pcm.length, s + frameSamples));
    out.push({ samples, encoding: 's16le', sampleRate, channels: 1, startSample: s, sampleCount: samples.length });
  }
  return out;
}

function run(options: OutputOptions, input: PcmFrame[]): AudioFrame[] {
  const stage = new ConversionStage(options);
  return [...input.flatMap((f) => stage.push(f)), ...stage.flush()];
}

function bytesOf(out: AudioFrame[]): Uint8Array {
  return Uint8Array.from(out.flatMap((f) => Array.from(f.samples as Uint8Array)));
}
function s16Of(out: AudioFrame[]): Int16Array {
  return Int16Array.from(out.flatMap((f) => Array.from(f.samples as Int16Array)));
}

function sine(freq: number, rate: number, n: number): Int16Array {
  return Int16Array.from({ length: n }, (_, i) => Math.round(20000 * Math.sin((2 * Math.PI * freq * i) / rate)));
}

describe('ConversionStage: A-law and big-endian L16 output', () => {
  it('A-law output is the G.711 A-law table applied to the s16 the stage would give, frame for frame', () => {
    const pcm = sine(700, 8000, 1600);
    const out = run({ encoding: 'alaw' }, frames(pcm, 8000, 160));
    expect(out.every((f) => f.encoding === 'alaw' && f.samples instanceof Uint8Array && f.samples.length === f.sampleCount)).toBe(true);
    expect(bytesOf(out)).toEqual(Uint8Array.from(pcm, (x) => ALAW_ENCODE_TABLE[x + 32768]!));
  });

  it('s16be output is two bytes a sample, high byte first, with sample counts and indices as for s16le', () => {
    const pcm = sine(300, 16000, 3000);
    const be = run({ encoding: 's16be', frameMs: 20 }, frames(pcm, 16000, 320));
    const le = run({ encoding: 's16le', frameMs: 20 }, frames(pcm, 16000, 320));
    expect(be.map((f) => [f.startSample, f.sampleCount])).toEqual(le.map((f) => [f.startSample, f.sampleCount]));
    expect(be.every((f) => f.samples.byteLength === f.sampleCount * 2)).toBe(true);
    expect(bytesOf(be)).toEqual(l16Encode(pcm, 'be'));
    expect(l16Decode(bytesOf(be), 'be')).toEqual(pcm);
  });

  it('48 kHz → 8 kHz A-law and → 16 kHz s16be are the resampled s16 output, encoded', async () => {
    const pcm = sine(440, 48000, 48000 / 2);
    const input = frames(pcm, 48000, 960);
    for (const [rate, encoding] of [
      [8000, 'alaw'],
      [16000, 's16be'],
    ] as const) {
      const ref = new ConversionStage({ sampleRate: rate });
      await ref.ready;
      const s16 = s16Of([...input.flatMap((f) => ref.push(f)), ...ref.flush()]);
      const out = run({ sampleRate: rate, encoding }, input);
      expect(bytesOf(out)).toEqual(encoding === 'alaw' ? alawEncode(s16) : l16Encode(s16, 'be'));
    }
  });

  it('any audio in any input frame sizes gives the same bits as the s16le output encoded (direct and re-framed paths)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -32768, max: 32767 }), { minLength: 1, maxLength: 1200 }),
        fc.integer({ min: 1, max: 400 }),
        fc.constantFrom('alaw' as const, 's16be' as const),
        (xs, size, encoding) => {
          const pcm = Int16Array.from(xs);
          const s16 = s16Of(run({ frameMs: 20 }, frames(pcm, 8000, size)));
          expect(s16).toEqual(pcm);
          const out = bytesOf(run({ encoding, frameMs: 20 }, frames(pcm, 8000, size)));
          const whole = bytesOf(run({ encoding, frameMs: 20 }, frames(pcm, 8000, 160)));
          expect(out).toEqual(encoding === 'alaw' ? alawEncode(pcm) : l16Encode(pcm, 'be'));
          expect(whole).toEqual(out);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('A-law WAV is format 6; s16be has no WAV form and is refused by name', () => {
    const h = wavHeader({ sampleRate: 8000, channels: 1, encoding: 'alaw' }, 160);
    expect(h.readUInt16LE(20)).toBe(6);
    expect(h.readUInt16LE(34)).toBe(8);
    try {
      wavHeader({ sampleRate: 8000, channels: 1, encoding: 's16be' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(CodecError);
      expect((err as CodecError).code).toBe('WAV_UNSUPPORTED');
    }
  });

  it('an unknown encoding is still refused by name', () => {
    expect(() => new ConversionStage({ encoding: 'l16' as never })).toThrow(
      /output.encoding must be one of s16le, f32le, mulaw, alaw, s16be/,
    );
  });
});
