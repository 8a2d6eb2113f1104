import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Framer } from '../../src/codec/Framer.js';
import type { AudioFrame, PcmFrame } from '../../src/codec/types.js';
import { ConversionStage, type ResolvedOutputOptions } from '../../src/dsp/ConversionStage.js';
import { loadResampler } from '../../src/dsp/Resampler.js';
import { MulawFramer } from '../../src/engine/MulawFramer.js';
import { createSpeechPipeline, type SpeechPipeline } from '../../src/engine/SpeechPipeline.js';
import { CAPTURES, capture, runPipeline, splitRandom } from './helpers.js';

interface Plain {
  bytes: number[];
  startSample: number;
  sampleCount: number;
  encoding: string;
  sampleRate: number;
  channels: number;
}
const plain = (frames: AudioFrame[]): Plain[] =>
  frames.map((f) => ({
    bytes: Array.from(f.samples as Uint8Array),
    startSample: f.startSample,
    sampleCount: f.sampleCount,
    encoding: f.encoding,
    sampleRate: f.sampleRate,
    channels: f.channels,
  }));

/** The two-stage way: the s16 framer, then the conversion stage's μ-law encode. */
function twoStage(blocks: Int16Array[], sampleRate: number, channels: number, frameSamples: number): AudioFrame[] {
  const frameMs = (frameSamples * 1000) / sampleRate;
  const framer = new Framer({ sampleRate, channels, frameMs });
  const stage = new ConversionStage({ encoding: 'mulaw', frameMs });
  const pcm: PcmFrame[] = [];
  for (const b of blocks) framer.push(b, pcm);
  framer.flush(pcm);
  const out: AudioFrame[] = [];
  for (const f of pcm) stage.push(f, out);
  stage.flush(out);
  return out;
}

function fused(blocks: Int16Array[], sampleRate: number, channels: number, frameSamples: number): AudioFrame[] {
  const framer = new MulawFramer({ sampleRate, channels }, frameSamples);
  const out: AudioFrame[] = [];
  for (const b of blocks) framer.push(b, out);
  framer.flush(out);
  return out;
}

describe('MulawFramer: framing and μ-law encoding in one pass', () => {
  it('gives the frames the framer and the conversion stage give, byte for byte, for any blocks (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1, 2),
        fc.constantFrom(80, 160, 320),
        fc.array(fc.array(fc.integer({ min: -32768, max: 32767 }), { maxLength: 700 }), { maxLength: 12 }),
        (channels, frameSamples, raw) => {
          const blocks = raw.map((b) => Int16Array.from(b.slice(0, b.length - (b.length % channels))));
          const a = fused(blocks, 8000, channels, frameSamples);
          const b = twoStage(blocks, 8000, channels, frameSamples);
          expect(plain(a)).toEqual(plain(b));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a 20 ms frame at 8 kHz is 160 bytes; the tail is one short frame; every s16 value maps to its G.711 code', () => {
    const all = new Int16Array(65536);
    for (let i = 0; i < all.length; i++) all[i] = i - 32768;
    const frames = fused([all.subarray(0, 40000), all.subarray(40000)], 8000, 1, 160);
    expect(frames.length).toBe(Math.ceil(65536 / 160));
    expect(frames.slice(0, -1).every((f) => f.sampleCount === 160 && f.samples.length === 160)).toBe(true);
    expect(frames.at(-1)!.sampleCount).toBe(65536 % 160);
    expect(plain(frames)).toEqual(plain(twoStage([all], 8000, 1, 160)));
  });
});

/** Whether the pipeline's producer framed and encoded in one pass. */
const oneFramer = (p: SpeechPipeline): boolean =>
  (p as unknown as { producer: { mulawFramer: MulawFramer | null } }).producer.mulawFramer !== null;

describe('a pipeline with μ-law output at the decoder rate takes the one-pass way, with the same frames', () => {
  const viaStage = (o: ResolvedOutputOptions): ConversionStage => new ConversionStage(o); // a stageFactory: two stages

  it('real opus capture → 8 kHz μ-law: default pipeline and the two-stage pipeline give the same frames', async () => {
    await loadResampler();
    const body = readFileSync(join(CAPTURES, 'real', 'opus-normal-long.sse'));
    const parts = splitRandom(body, 11, 16384);
    const output = { sampleRate: 8000, encoding: 'mulaw', channels: 1 } as const;
    const pa = createSpeechPipeline({ format: 'opus', output });
    const pb = createSpeechPipeline({ format: 'opus', output, stageFactory: viaStage });
    const a = await runPipeline(pa, parts);
    const b = await runPipeline(pb, parts);
    expect([oneFramer(pa), oneFramer(pb)]).toEqual([true, false]);
    expect(a.error).toBeNull();
    expect(a.frames.length).toBeGreaterThan(1000);
    expect(plain(a.frames)).toEqual(plain(b.frames));
    expect(a.summary).toEqual(b.summary);
    expect(a.words.map((w) => [w.text, w.start])).toEqual(b.words.map((w) => [w.text, w.start]));
  });

  it('pcm capture → μ-law at its own rate, 10 ms frames: same frames; output.frameMs of its own takes the stage', async () => {
    const body = capture('speech.pcm.sse');
    const parts = splitRandom(body, 5, 3000);
    for (const output of [{ encoding: 'mulaw' }, { encoding: 'mulaw', frameMs: 30 }] as const) {
      const pa = createSpeechPipeline({ format: 'pcm', sampleRate: 22050, frameMs: 10, output });
      const a = await runPipeline(pa, parts);
      expect(oneFramer(pa)).toBe(output.frameMs === undefined);
      const b = await runPipeline(
        createSpeechPipeline({ format: 'pcm', sampleRate: 22050, frameMs: 10, output, stageFactory: viaStage }),
        parts,
      );
      expect(a.error).toBeNull();
      expect(a.frames[0]!.sampleCount).toBe(output.frameMs === undefined ? 221 : 662);
      expect(plain(a.frames)).toEqual(plain(b.frames));
    }
  });
});
