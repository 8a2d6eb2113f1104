import { beforeAll, describe, expect, it } from 'vitest';
import { ConversionStage, DEFAULT_OUTPUT_FRAME_MS, MAX_FRAME_MS } from '../../src/dsp/ConversionStage.js';
import { loadResampler } from '../../src/dsp/Resampler.js';
import { MULAW_ENCODE_TABLE } from '../../src/dsp/mulaw.js';
import type { AudioFrame, PcmFrame } from '../../src/codec/types.js';
import { InvalidOptionError } from '../../src/errors.js';
import { OggOpusDecoder } from '../../src/codec/OpusDecoder.js';
import { collect, fixture } from '../codec/audioFixtures.js';

beforeAll(() => loadResampler());

/** Cuts interleaved s16 into PcmFrames of `frameSamples` per channel. */
function frames(pcm: Int16Array, sampleRate: number, channels: number, frameSamples: number): PcmFrame[] {
  const out: PcmFrame[] = [];
  for (let s = 0; s * channels < pcm.length; s += frameSamples) {
    const samples = pcm.slice(s * channels, Math.min(pcm.length, (s + frameSamples) * channels));
    out.push({ samples, encoding: 's16le', sampleRate, channels, startSample: s, sampleCount: samples.length / channels });
  }
  return out;
}

function runStage(stage: ConversionStage, input: PcmFrame[]): AudioFrame[] {
  return [...input.flatMap((f) => stage.push(f)), ...stage.flush()];
}

function sine(freq: number, rate: number, n: number, channels = 1): Int16Array {
  const x = new Int16Array(n * channels);
  for (let i = 0; i < n; i++)
    for (let c = 0; c < channels; c++)
      x[i * channels + c] = Math.round(8000 * Math.sin((2 * Math.PI * freq * i) / rate)) * (c === 0 ? 1 : -1);
  return x;
}

describe('ConversionStage', () => {
  it('48 kHz s16 → 8 kHz μ-law gives 160-byte frames every 20 ms with output sample indices', async () => {
    const stage = new ConversionStage({ sampleRate: 8000, encoding: 'mulaw', frameMs: 20 });
    await stage.ready;
    const out = runStage(stage, frames(sine(1000, 48000, 48000 + 480), 48000, 1, 960));
    const total = out.reduce((a, f) => a + f.sampleCount, 0);
    expect(total).toBe(8080); // exactly round(48480 / 6)
    expect(out.slice(0, -1).every((f) => f.samples instanceof Uint8Array && f.samples.length === 160)).toBe(true);
    expect(out.at(-1)!.sampleCount).toBe(80);
    expect(out.map((f) => f.startSample)).toEqual(out.map((_, i) => i * 160));
    expect(out[0]).toMatchObject({ encoding: 'mulaw', sampleRate: 8000, channels: 1 });
    expect(stage.emittedSamples).toBe(8080);
  });

  it('the same audio in differently sized input frames gives the same output', async () => {
    const pcm = sine(440, 44100, 30000);
    const a = new ConversionStage({ sampleRate: 16000 });
    const b = new ConversionStage({ sampleRate: 16000 });
    await a.ready;
    const outA = runStage(a, frames(pcm, 44100, 1, 882));
    const outB = runStage(b, frames(pcm, 44100, 1, 37));
    expect(outB).toEqual(outA);
    expect(outA.reduce((s, f) => s + f.sampleCount, 0)).toBe(Math.round((30000 * 16000) / 44100));
  });

  it('without a rate it only re-frames and re-encodes: s16 in = s16 out, sample for sample', () => {
    const pcm = sine(300, 24000, 10000);
    const out = runStage(new ConversionStage({ frameMs: 10 }), frames(pcm, 24000, 1, 333));
    expect(out.every((f, i) => i === out.length - 1 || f.sampleCount === 240)).toBe(true);
    const joined = new Int16Array(out.flatMap((f) => Array.from(f.samples as Int16Array)));
    expect(joined).toEqual(pcm);
  });

  it('μ-law output equals the G.711 table applied to the s16 output', () => {
    const pcm = sine(700, 8000, 1600);
    const mu = runStage(new ConversionStage({ encoding: 'mulaw' }), frames(pcm, 8000, 1, 160));
    const expected = Uint8Array.from(pcm, (x) => MULAW_ENCODE_TABLE[x + 32768]!);
    expect(new Uint8Array(mu.flatMap((f) => Array.from(f.samples)))).toEqual(expected);
  });

  it.each(['s16le', 'f32le', 'mulaw'] as const)(
    '%s: whole frames (direct path) and odd-sized frames (re-framed) give the same bits',
    (encoding) => {
      const pcm = sine(900, 8000, 1700);
      const whole = runStage(new ConversionStage({ encoding }), frames(pcm, 8000, 1, 160));
      const odd = runStage(new ConversionStage({ encoding }), frames(pcm, 8000, 1, 37));
      expect(odd).toEqual(whole);
    },
  );

  it('f32le output is the s16 input / 32768', () => {
    const pcm = Int16Array.from([0, 16384, -32768, 32767]);
    const [f] = runStage(new ConversionStage({ encoding: 'f32le' }), frames(pcm, 8000, 1, 4));
    expect(f!.samples).toEqual(Float32Array.from([0, 0.5, -1, 32767 / 32768]));
  });

  it('downmixes stereo to mono as the mean of the channels', () => {
    const pcm = Int16Array.from([100, 300, -200, 0, 32767, 32767]);
    const [f] = runStage(new ConversionStage({ channels: 1 }), frames(pcm, 8000, 2, 3));
    expect(Array.from(f!.samples)).toEqual([200, -100, 32767]);
    expect(f!.channels).toBe(1);
  });

  it('upmixes mono to stereo by duplication', () => {
    const [f] = runStage(new ConversionStage({ channels: 2 }), frames(Int16Array.from([5, -7]), 8000, 1, 2));
    expect(Array.from(f!.samples)).toEqual([5, 5, -7, -7]);
  });

  it('stereo 48 kHz opus → mono 8 kHz μ-law: 160-byte frames, exact total', async () => {
    const dec = new OggOpusDecoder();
    const pcm = collect(dec.decode(fixture('opus/stereo.opus')), dec.flush()).pcm;
    const stage = new ConversionStage({ sampleRate: 8000, encoding: 'mulaw', channels: 1 });
    await stage.ready;
    const out = runStage(stage, frames(pcm, 48000, 2, 960));
    expect(out.reduce((a, f) => a + f.samples.length, 0)).toBe(Math.round(pcm.length / 2 / 6));
    expect(out[0]!.samples.length).toBe(160);
  });

  it('rejects bad options with InvalidOptionError naming the field', () => {
    expect(() => new ConversionStage({ sampleRate: 0 })).toThrow(InvalidOptionError);
    expect(() => new ConversionStage({ encoding: 'g722' as never })).toThrow(/output.encoding/);
    expect(() => new ConversionStage({ channels: 3 as never })).toThrow(/output.channels/);
    expect(() => new ConversionStage({ frameMs: 0 })).toThrow(/output.frameMs/);
  });

  it('a frame size that is not a finite number of ms in (0, MAX_FRAME_MS] is refused at construction', () => {
    for (const frameMs of [Infinity, -Infinity, NaN, -1, MAX_FRAME_MS + 0.5, '20', null]) {
      expect(() => new ConversionStage({ frameMs: frameMs as number })).toThrow(InvalidOptionError);
      expect(() => new ConversionStage({ frameMs: frameMs as number })).toThrow(/^output\.frameMs must be/);
    }
    expect(new ConversionStage({ frameMs: MAX_FRAME_MS }).options.frameMs).toBe(MAX_FRAME_MS);
    expect(new ConversionStage({ frameMs: undefined }).options.frameMs).toBe(DEFAULT_OUTPUT_FRAME_MS);
  });
});

describe('ConversionStage output memory', () => {
  it('push and flush append to the array given, and the stage keeps no reference to it', async () => {
    const stage = new ConversionStage({ encoding: 'mulaw' });
    await stage.ready;
    const out: AudioFrame[] = [];
    const input = frames(sine(1000, 8000, 160 * 3 + 40), 8000, 1, 160);
    for (const f of input) expect(stage.push(f, out)).toBe(out);
    expect(stage.flush(out)).toBe(out);
    expect(out.map((f) => f.sampleCount)).toEqual([160, 160, 160, 40]);
    // A later push goes to its own new array, not to `out`.
    expect(stage.push(input[0]!)).not.toBe(out);
    expect(out).toHaveLength(4);
  });

  it('μ-law frames are views into shared slabs, each keeping its own bytes', async () => {
    const stage = new ConversionStage({ encoding: 'mulaw' });
    await stage.ready;
    const pcm = sine(440, 8000, 160 * 40);
    const out = runStage(stage, frames(pcm, 8000, 1, 160));
    expect(new Set(out.map((f) => f.samples.buffer)).size).toBeLessThan(out.length);
    out.forEach((f, k) => {
      const want = Array.from(pcm.subarray(k * 160, (k + 1) * 160), (x) => MULAW_ENCODE_TABLE[x + 32768]);
      expect(Array.from(f.samples)).toEqual(want);
    });
  });
});
