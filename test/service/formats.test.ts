/**
 * Every format over real HTTP on loopback, decoded by voicewire's own engine: the word timeline
 * is monotonic, matches the text, ends within the audio, and the duration is plausible.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalService, TTS_PATH, type LocalService } from '../../src/service/index.js';
import { decodeWithEngine } from './engineDecode.js';
import { checkTimeline, wordsOf } from './helpers.js';
import type { AudioFormat } from '../../src/codec/types.js';

let svc: LocalService;
beforeAll(async () => {
  svc = await startLocalService();
});
afterAll(async () => {
  await svc.close();
});

const TEXT = 'The quick brown fox jumps over 3 lazy dogs. Then, it rests!';
/** espeak at 175 wpm says about 14 characters a second, pauses included. */
const CHARS_PER_SEC = 14;

async function speak(format: AudioFormat, sampleRate: number | null, extra: Record<string, unknown> = {}): Promise<Response> {
  const res = await fetch(`${svc.baseUrl}${TTS_PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: TEXT, format, sample_rate: sampleRate, latency: 'balanced', ...extra }),
  });
  expect(res.status).toBe(200);
  return res;
}

const CASES: [AudioFormat, number | null, number][] = [
  ['pcm', 8000, 8000],
  ['pcm', 44100, 44100],
  ['wav', 16000, 16000],
  ['wav', null, 44100],
  ['mp3', null, 44100],
  ['mp3', 22050, 22050],
  ['mp3', 8000, 8000],
  ['opus', null, 48000],
  ['opus', 24000, 48000],
];

describe('every format, decoded by the engine', () => {
  it.each(CASES)('%s at %s Hz: words match the text, monotonic, within the audio', async (format, rate, decodedRate) => {
    const res = await speak(format, rate, format === 'mp3' ? { mp3_bitrate: 64 } : format === 'opus' ? { opus_bitrate: 32000 } : {});
    const out = await decodeWithEngine(res.body!, format, format === 'pcm' ? rate! : undefined);
    expect(out.sampleRate).toBe(decodedRate);
    expect(out.words.map((w) => w.text)).toEqual(wordsOf(TEXT));
    checkTimeline(
      out.words.map((w) => ({ ...w, chunkSeq: 0 })),
      out.durationSec,
    );
    const expected = TEXT.length / CHARS_PER_SEC;
    expect(out.durationSec).toBeGreaterThan(expected * 0.5);
    expect(out.durationSec).toBeLessThan(expected * 2);
    // The end: the final sentence pause (~0.3 s) plus, for mp3, the encoder's untrimmed padding.
    expect(out.words[out.words.length - 1]!.end).toBeGreaterThan(out.durationSec - 1.0);
  });

  it('mp3 and opus decode in step with pcm: the speech starts at the same time (encoder delay and pre-skip trimmed)', async () => {
    const onset = (pcm: Int16Array, rate: number): number => {
      const block = Math.round(rate / 1000);
      for (let i = 0; i + block <= pcm.length; i += block) {
        let e = 0;
        for (let j = i; j < i + block; j++) e += Math.abs(pcm[j]!);
        if (e / block > 1500) return i / rate;
      }
      return -1;
    };
    const text = 'Papa pours pepper.';
    const at = async (format: AudioFormat, rate: number): Promise<number> => {
      const res = await fetch(`${svc.baseUrl}${TTS_PATH}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${svc.token}` },
        body: JSON.stringify({ text, format, sample_rate: rate, mp3_bitrate: 192, opus_bitrate: 64000 }),
      });
      const out = await decodeWithEngine(res.body!, format, format === 'pcm' ? rate : undefined, true);
      return onset(out.pcm!, out.sampleRate);
    };
    const ref = await at('pcm', 48000);
    expect(ref).toBeGreaterThan(0);
    expect(Math.abs((await at('mp3', 48000)) - ref)).toBeLessThan(0.004);
    expect(Math.abs((await at('opus', 48000)) - ref)).toBeLessThan(0.004);
  });
});
