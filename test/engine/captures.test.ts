/** The committed captures hold what they claim, and a live-paced read of one shows every rule at work. */
import { describe, expect, it } from 'vitest';
import { createSpeechPipeline, type WordEvent, type WordRevision } from '../../src/engine/SpeechPipeline.js';
import { events, expected, sse } from './helpers.js';

const NAMES = ['speech.pcm.sse', 'speech.wav.sse', 'speech.wav-per-chunk.sse', 'speech.wav-per-chunk-unknown.sse'];

describe('fixture captures (made by test/fixtures/make-captures.ts from espeak-ng speech)', () => {
  for (const name of NAMES) {
    it(`${name}: several chunks, nulls before the first snapshot, repeats, odd transport sizes, a trailing correction`, () => {
      const evs = events(name);
      expect(new Set(evs.map((e) => e.chunk_seq))).toEqual(new Set([0, 1]));
      for (const seq of [0, 1]) {
        const chunk = evs.filter((e) => e.chunk_seq === seq);
        expect(chunk[0]!.alignment).toBeNull();
        expect(chunk.filter((e) => e.alignment !== null).length).toBeGreaterThan(3);
      }
      const snapshots = evs.filter((e) => e.alignment !== null).map((e) => `${e.chunk_seq}:${JSON.stringify(e.alignment)}`);
      expect(new Set(snapshots).size).toBeLessThan(snapshots.length); // byte-identical repeats
      expect(evs.some((e) => (Buffer.from(e.audio_base64, 'base64').length & 1) === 1)).toBe(true);
      const last = evs.at(-1)!;
      expect(last.audio_base64).toBe('');
      const lastAudio = evs.filter((e) => e.chunk_seq === last.chunk_seq && e.audio_base64 !== '').at(-1)!;
      expect(JSON.stringify(last.alignment)).not.toBe(JSON.stringify(lastAudio.alignment)); // it corrects
    });
  }
});

describe('reading while the stream arrives (live pacing)', () => {
  it('provisional words are emitted, then revised by later snapshots; each word once; the final timeline wins', async () => {
    const p = createSpeechPipeline({ format: 'pcm', sampleRate: 22050 });
    const words: WordEvent[] = [];
    const revisions: WordRevision[] = [];
    p.on('word', (w) => words.push(w));
    p.on('wordRevised', (r) => revisions.push(r));
    const read = () => {
      while (p.read() !== null);
    };
    p.on('readable', read);
    for (const e of events('speech.pcm.sse')) {
      p.write(sse([e]));
      await new Promise((r) => setImmediate(r));
    }
    p.end();
    await new Promise((r) => p.once('end', r));
    const keys = words.map((w) => `${w.chunkSeq}:${w.index}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(words).toHaveLength(expected.words.length);
    expect(revisions.length).toBeGreaterThan(0);
    // Apply the revisions to what was emitted: the result is the final timeline.
    const latest = new Map(words.map((w) => [`${w.chunkSeq}:${w.index}`, w]));
    for (const r of revisions) latest.set(`${r.old.chunkSeq}:${r.old.index}`, r.new!);
    const final = [...latest.values()]
      .sort((a, b) => a.start - b.start)
      .map((w) => ({
        text: w.text,
        start: Math.round(w.start * 1000) / 1000,
        end: Math.round(w.end * 1000) / 1000,
        chunk_seq: w.chunkSeq,
      }));
    expect(final).toEqual(expected.words);
  });
});
