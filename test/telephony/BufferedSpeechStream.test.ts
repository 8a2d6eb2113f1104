import { describe, expect, it } from 'vitest';
import type { AudioFrame } from '../../src/codec/types.js';
import { BufferedSpeechStream, createPromptSpeechSource } from '../../src/telephony/BufferedSpeechStream.js';
import { LatenessHistogram } from '../../src/telephony/LatenessHistogram.js';
import { greeting } from './helpers/fixtureSource.js';
import { startHarness } from './helpers/harness.js';

describe('pre-rendered prompts', () => {
  it('a buffered stream gives 20 ms μ-law frames that add up to the prompt', async () => {
    const s = new BufferedSpeechStream(greeting.mulaw);
    const frames: AudioFrame[] = [];
    for await (const f of s) frames.push(f as AudioFrame);
    expect(frames.every((f) => f.encoding === 'mulaw' && f.sampleRate === 8000 && f.channels === 1)).toBe(true);
    expect(frames.slice(0, -1).every((f) => f.sampleCount === 160)).toBe(true);
    expect(Buffer.concat(frames.map((f) => f.samples as Uint8Array)).equals(Buffer.from(greeting.mulaw))).toBe(true);
  });

  it('words fire only when the playhead passes their start', () => {
    const s = new BufferedSpeechStream(greeting.mulaw, greeting.words);
    const fired: string[] = [];
    s.on('word', (w: { text: string }) => fired.push(w.text));
    s.playhead.advanceTo(Math.floor(0.42 * 8000)); // exactly at "for": not yet passed
    expect(fired).toEqual(['Thanks']);
    s.playhead.advanceTo(Math.floor(0.42 * 8000) + 1);
    expect(fired).toEqual(['Thanks', 'for']);
  });

  it('a prompt plays through a call with exact word timing; other text goes to the fallback', async () => {
    const fallbackTexts: string[] = [];
    const source = createPromptSpeechSource(new Map([['greeting', { mulaw: greeting.mulaw, words: greeting.words }]]), async (req, ctx) => {
      fallbackTexts.push(req.text);
      return new BufferedSpeechStream(greeting.mulaw.subarray(0, 800), [], ctx.signal);
    });
    const h = await startHarness({ source });
    try {
      const { peer, call } = await h.dial();
      const at: number[] = [];
      call.on('word', () => at.push(h.clock.now()));
      const first = call.speak('greeting');
      const second = call.speak('something else');
      let done = false;
      void second.then(() => {
        done = true;
      });
      await h.runUntil(() => done);
      expect((await first).status).toBe('completed');
      expect(fallbackTexts).toEqual(['something else']);
      expect(peer.receivedSamples).toBe(greeting.mulaw.length + 800);
      expect(at).toHaveLength(greeting.words.length);
    } finally {
      await h.close();
    }
  });
});

describe('lateness histogram', () => {
  it('percentiles come from fixed buckets and merge across calls', () => {
    const a = new LatenessHistogram();
    const b = new LatenessHistogram();
    for (let i = 0; i < 99; i++) a.record(0.5);
    b.record(12.34);
    a.merge(b);
    expect(a.count).toBe(100);
    expect(a.quantile(0.5)).toBeCloseTo(0.6, 6);
    expect(a.quantile(0.99)).toBeCloseTo(0.6, 6);
    expect(a.quantile(1)).toBeCloseTo(12.34, 6);
    expect(a.maxMs).toBe(12.34);
    a.record(-3); // early counts as on time
    expect(a.quantile(0)).toBe(0.1);
  });
});
