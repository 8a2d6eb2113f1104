/**
 * Voices, emotion tags, prosody and pronunciation dictionaries change the real speech.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalService, type LocalService } from '../../src/service/index.js';
import { finalTimeline, postTts } from './helpers.js';

let svc: LocalService;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vw-dict-'));
  mkdirSync(join(dir, 'names'));
  writeFileSync(join(dir, 'names', '2.json'), JSON.stringify({ entries: [{ text: 'Siobhan', alias: 'shiv awn' }] }));
  svc = await startLocalService({ dictionaryDir: dir });
});
afterAll(async () => {
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

const RATE = 16000;
function samples(audio: Uint8Array): Int16Array {
  return new Int16Array(audio.buffer.slice(audio.byteOffset, audio.byteOffset + audio.length));
}
/** RMS (dBFS) over 10 ms blocks louder than -45 dBFS: the voiced level. */
function voicedRmsDb(s: Int16Array): number {
  const block = RATE / 100;
  let sum = 0;
  let n = 0;
  for (let i = 0; i + block <= s.length; i += block) {
    let b = 0;
    for (let j = i; j < i + block; j++) b += (s[j]! / 32768) ** 2;
    if (b / block > 10 ** (-45 / 10)) {
      sum += b;
      n += block;
    }
  }
  return 10 * Math.log10(sum / n);
}
const speak = (body: Record<string, unknown>) => postTts(svc, { format: 'pcm', sample_rate: RATE, ...body });

describe('voices and emotion tags', () => {
  it('reference_id picks a voice from the table: other audio, same words', async () => {
    const a = await speak({ text: 'Good morning to you.' });
    const b = await speak({ text: 'Good morning to you.', reference_id: 'en-us-female' });
    expect(finalTimeline(b.events).map((w) => w.text)).toEqual(finalTimeline(a.events).map((w) => w.text));
    expect(Buffer.compare(Buffer.from(a.audio), Buffer.from(b.audio))).not.toBe(0);
  });

  it('a leading emotion tag is not spoken and changes the voice', async () => {
    const plain = await speak({ text: 'Keep this between us.' });
    const whisper = await speak({ text: '[whisper] Keep this between us.' });
    expect(finalTimeline(whisper.events).map((w) => w.text)).toEqual(['Keep', 'this', 'between', 'us']);
    expect(whisper.events.every((e) => !e.content.includes('whisper'))).toBe(true);
    expect(Buffer.compare(Buffer.from(plain.audio), Buffer.from(whisper.audio))).not.toBe(0);
    const unknown = await speak({ text: '(mysterious) Hi there.' });
    expect(finalTimeline(unknown.events).map((w) => w.text)).toEqual(['Hi', 'there']);
  });
});

describe('prosody', () => {
  it('speed 2 takes about half the time of speed 1', async () => {
    const slow = await speak({ text: 'The rain in Spain stays mainly in the plain.' });
    const fast = await speak({ text: 'The rain in Spain stays mainly in the plain.', prosody: { speed: 2 } });
    const ratio = fast.audio.length / slow.audio.length;
    expect(ratio).toBeGreaterThan(0.35);
    expect(ratio).toBeLessThan(0.75);
  });

  it('volume is a gain in dB (normalisation off)', async () => {
    const text = 'Louder and softer.';
    const base = voicedRmsDb(samples((await speak({ text, prosody: { normalize_loudness: false } })).audio));
    const down = voicedRmsDb(samples((await speak({ text, prosody: { volume: -6, normalize_loudness: false } })).audio));
    expect(base - down).toBeGreaterThan(4.5);
    expect(base - down).toBeLessThan(7.5);
  });

  it('normalize_loudness brings voices to the same level near -20 dBFS', async () => {
    const text = 'Every voice at one level.';
    const a = voicedRmsDb(samples((await speak({ text })).audio));
    const b = voicedRmsDb(samples((await speak({ text, reference_id: 'en-us-klatt' })).audio));
    expect(Math.abs(a - -20)).toBeLessThan(4);
    expect(Math.abs(b - -20)).toBeLessThan(4);
  });
});

describe('pronunciation dictionaries', () => {
  it('an inline alias really changes what is said, and the word timeline keeps the written word', async () => {
    const plain = await speak({ text: 'I like tomato soup.' });
    const alias = await speak({
      text: 'I like tomato soup.',
      pronunciation_dictionary: [{ entries: [{ text: 'tomato', alias: 'very big red tomato' }] }],
    });
    expect(finalTimeline(alias.events).map((w) => w.text)).toEqual(['I', 'like', 'tomato', 'soup']);
    const word = (r: typeof plain) => finalTimeline(r.events).find((w) => w.text === 'tomato')!;
    expect(word(alias).end - word(alias).start).toBeGreaterThan(1.5 * (word(plain).end - word(plain).start));
  });

  it('inline phonemes (espeak mnemonics) replace the pronunciation', async () => {
    const plain = await speak({ text: 'Say tomato.' });
    const phon = await speak({ text: 'Say tomato.', pronunciation_dictionary: [{ entries: [{ text: 'tomato', phonemes: "t@m'A:toU" }] }] });
    expect(finalTimeline(phon.events).map((w) => w.text)).toEqual(['Say', 'tomato']);
    expect(Buffer.compare(Buffer.from(plain.audio), Buffer.from(phon.audio))).not.toBe(0);
  });

  it('a reference {id, version} resolves from the dictionary directory; an unknown one is 422', async () => {
    const plain = await speak({ text: 'Hello Siobhan.' });
    const ref = await speak({ text: 'Hello Siobhan.', pronunciation_dictionary: [{ id: 'names', version: '2' }] });
    expect(ref.status).toBe(200);
    expect(finalTimeline(ref.events).map((w) => w.text)).toEqual(['Hello', 'Siobhan']);
    expect(ref.audio.length).not.toBe(plain.audio.length);
    const bad = await speak({ text: 'Hello.', pronunciation_dictionary: [{ id: 'names', version: '3' }] });
    expect(bad.status).toBe(422);
    expect(bad.json).toMatchObject({ field: 'pronunciation_dictionary[0]', rule: 'unknown_dictionary' });
    const escape = await speak({ text: 'Hello.', pronunciation_dictionary: [{ id: '..', version: 'etc' }] });
    expect(escape.status).toBe(422);
  });
});
