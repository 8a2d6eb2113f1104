import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { AudioFrame } from '../../src/codec/types.js';
import { createSpeechPipeline, type SpeechPipeline, type WordEvent, type WordRevision } from '../../src/engine/SpeechPipeline.js';
import { capture, events, expected, sse, type WireEvent } from './helpers.js';

const RATE = 22050;
const FRAME = 441; // 20 ms
const FRAME_SEC = FRAME / RATE;

/** A consumer that reads one frame per tick of a fake clock (never sleeps). */
async function readOnFakeClock(p: SpeechPipeline, onTick?: (now: number, frame: AudioFrame) => void): Promise<number> {
  let now = 0;
  for (;;) {
    const frame = p.read() as AudioFrame | null;
    if (frame !== null) {
      now += frame.sampleCount / frame.sampleRate;
      onTick?.(now, frame);
      continue;
    }
    if (p.readableEnded || p.destroyed) return now;
    await Promise.race([once(p, 'readable'), once(p, 'end')]);
    if (p.readableEnded) return now;
  }
}

describe('playhead and word events', () => {
  it('a word is emitted when the frame holding its start is read (±1 frame), on a fake playback clock', async () => {
    const p = createSpeechPipeline({ format: 'pcm', sampleRate: RATE });
    const seen: Array<{ word: WordEvent; position: number; frames: number }> = [];
    let framesRead = 0;
    p.on('word', (word) => seen.push({ word, position: p.playhead.position, frames: framesRead }));
    p.end(capture('speech.pcm.sse'));
    await readOnFakeClock(p, () => framesRead++);
    expect(seen.map((s) => s.word.text)).toEqual(expected.words.map((w) => w.text));
    for (const { word, position } of seen) {
      expect(word.late).toBe(false);
      const playedSec = position / RATE; // end of the frame whose read emitted the word
      expect(word.start).toBeLessThan(playedSec);
      expect(word.start).toBeGreaterThanOrEqual(playedSec - 2 * FRAME_SEC);
    }
  });

  it('bytes arriving do not move the playhead: with nothing read, no word is emitted', async () => {
    const p = createSpeechPipeline({ format: 'pcm', sampleRate: RATE });
    const words: WordEvent[] = [];
    p.on('word', (w) => words.push(w));
    p.write(capture('speech.pcm.sse'));
    await new Promise((r) => setImmediate(r));
    expect(p.alignment.timeline()).toHaveLength(expected.words.length);
    expect(words).toEqual([]);
    expect(p.playhead.position).toBe(0);
    // Reading the first 0.3 s reaches "Hello" and "from" (start 0.288) only.
    const frames = Math.ceil(0.3 / FRAME_SEC);
    await once(p, 'readable');
    for (let i = 0; i < frames; i++) expect(p.read()).not.toBeNull();
    expect(words.map((w) => w.text)).toEqual(['Hello', 'from']);
    p.destroy();
  });

  it('a word whose snapshot arrives after the playhead passed its start is emitted at once, late: true', async () => {
    const evs = events('speech.pcm.sse');
    const audioOnly = evs.filter((e) => e.audio_base64 !== '').map((e) => ({ ...e, alignment: null }));
    const finals = evs.filter((e) => e.audio_base64 === '');
    const p = createSpeechPipeline({ format: 'pcm', sampleRate: RATE });
    const words: WordEvent[] = [];
    p.on('word', (w) => words.push(w));
    p.write(sse(audioOnly));
    let read = 0;
    await once(p, 'readable');
    for (let f = p.read() as AudioFrame | null; f !== null; f = p.read() as AudioFrame | null) read += f.sampleCount;
    expect(read).toBe(expected.samples - (expected.samples % FRAME)); // the partial last frame waits for the end
    expect(words).toEqual([]);
    p.write(sse(finals)); // the snapshots of both chunks, after all the audio was played
    expect(words.map((w) => [w.text, w.late])).toEqual(expected.words.map((w) => [w.text, w.start < read / RATE]));
    expect(words.filter((w) => w.late)).toHaveLength(expected.words.length);
    p.end();
    await readOnFakeClock(p);
    expect(words).toHaveLength(expected.words.length); // each word exactly once
  });

  it('a later snapshot that changes or removes an emitted word emits wordRevised', async () => {
    const first = events('speech.pcm.sse').filter((e) => e.chunk_seq === 0 && e.audio_base64 !== '');
    const snapshot = (segments: WireEvent['alignment'] extends infer A ? (A extends { segments: infer S } ? S : never) : never) => ({
      audio_duration: 1,
      segments,
    });
    const withSnap = first.map((e) => ({
      ...e,
      alignment: snapshot([
        { text: 'Hello', start: 0, end: 0.25 },
        { text: 'frum', start: 0.288, end: 0.5 },
      ]),
    }));
    const p = createSpeechPipeline({ format: 'pcm', sampleRate: RATE });
    const words: WordEvent[] = [];
    const revisions: WordRevision[] = [];
    p.on('word', (w) => words.push(w));
    p.on('wordRevised', (r) => revisions.push(r));
    p.write(sse(withSnap));
    await once(p, 'readable');
    while (p.read() !== null);
    expect(words.map((w) => w.text)).toEqual(['Hello', 'frum']);
    p.end(sse([{ ...first[0]!, audio_base64: '', alignment: snapshot([{ text: 'Hello', start: 0, end: 0.288 }]) }]));
    await readOnFakeClock(p);
    expect(revisions).toEqual([
      { old: expect.objectContaining({ text: 'Hello', end: 0.25 }), new: expect.objectContaining({ text: 'Hello', end: 0.288, index: 0 }) },
      { old: expect.objectContaining({ text: 'frum', index: 1 }), new: null },
    ]);
    expect(words).toHaveLength(2);
  });

  it("'external' playhead: reading frames emits no words; advanceTo(sample) does, also after 'end'", async () => {
    const p = createSpeechPipeline({ format: 'wav', playhead: 'external' });
    const words: WordEvent[] = [];
    const order: string[] = [];
    p.on('word', (w) => words.push(w));
    p.on('summary', () => order.push('summary'));
    p.on('end', () => order.push('end'));
    p.end(capture('speech.wav.sse'));
    await readOnFakeClock(p);
    expect(order).toEqual(['summary', 'end']);
    expect(words).toEqual([]);
    p.playhead.advanceTo(Math.round(0.3 * RATE));
    expect(words.map((w) => w.text)).toEqual(['Hello', 'from']);
    p.playhead.advanceTo(expected.samples);
    expect(words.map((w) => w.text)).toEqual(expected.words.map((w) => w.text));
    expect(words.every((w) => !w.late)).toBe(true);
  });

  it("in 'consumer' mode advanceTo is refused and the playhead ends at the last sample read", async () => {
    const p = createSpeechPipeline({ format: 'wav' });
    expect(() => p.playhead.advanceTo(10)).toThrow(/external/);
    p.end(capture('speech.wav.sse'));
    await readOnFakeClock(p);
    expect(p.playhead.position).toBe(expected.samples);
  });
});
