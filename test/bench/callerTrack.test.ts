import { describe, expect, it } from 'vitest';
import { callerSounds, callerTrack, CALLER_SPEECH_SHARE, lineFiller } from '../../bench/lib/callerTrack.js';
import { CORPUS_RATE, loadCorpus } from '../fixtures/vad/corpus.js';

const clips = loadCorpus();
const sounds = callerSounds(clips);
const filler = lineFiller(clips);
const MINUTE = 60 * CORPUS_RATE;

describe('the telephony bench caller track', () => {
  it('says only utterances, coughs and hums at 20 and 10 dB, over silence and pink noise', () => {
    expect(sounds.length).toBeGreaterThan(0);
    expect(new Set(sounds.map((c) => c.kind))).toEqual(new Set(['speech', 'cough', 'hum']));
    expect(sounds.every((c) => c.snrDb === 20 || c.snrDb === 10)).toBe(true);
    expect(new Set(filler.map((c) => c.kind))).toEqual(new Set(['silence', 'pink']));
  });

  it('a minute of it is the caller speaking about 30 % of the time, in many separate sounds (one every few seconds)', () => {
    for (const seed of [1, 2, 3, 0xca11e5]) {
      const t = callerTrack(sounds, filler, MINUTE, seed);
      expect(t.mulaw.length).toBe(MINUTE);
      const share = t.soundSamples / MINUTE;
      expect(share).toBeGreaterThan(CALLER_SPEECH_SHARE - 0.08);
      expect(share).toBeLessThan(CALLER_SPEECH_SHARE + 0.08);
      expect(t.sounds).toBeGreaterThanOrEqual(8);
    }
  });

  it('is the same bytes for the same seed, and other bytes for another', () => {
    const a = callerTrack(sounds, filler, 10 * CORPUS_RATE, 7);
    const b = callerTrack(sounds, filler, 10 * CORPUS_RATE, 7);
    const c = callerTrack(sounds, filler, 10 * CORPUS_RATE, 8);
    expect(Buffer.from(a.mulaw).equals(Buffer.from(b.mulaw))).toBe(true);
    expect(Buffer.from(a.mulaw).equals(Buffer.from(c.mulaw))).toBe(false);
  });

  it('is made of the clips themselves: every placed sound is a clip byte for byte', () => {
    const t = callerTrack(
      sounds.slice(0, 1),
      filler.filter((c) => c.kind === 'silence'),
      5 * CORPUS_RATE,
      3,
    );
    const clip = sounds[0]!.mulaw;
    const text = Buffer.from(t.mulaw).toString('latin1');
    expect(text.includes(Buffer.from(clip).toString('latin1'))).toBe(true);
  });

  it('refuses to build with no sound or no filler', () => {
    expect(() => callerTrack([], filler, CORPUS_RATE, 1)).toThrow(/at least one sound/);
    expect(() => callerTrack(sounds, [], CORPUS_RATE, 1)).toThrow(/at least one sound/);
  });
});
