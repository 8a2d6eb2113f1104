/**
 * Captions from real speech: the local service (espeak-ng) speaks a text with numbers,
 * abbreviations and quotes; the client collects the word events; the cue files built with the
 * source text must read as the text was written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/createClient.js';
import { startLocalService, type LocalService } from '../../src/service/index.js';
import { cueLines, groupIntoCues, MAX_CUE_SEC, MAX_LINE_CHARS, MAX_LINES, type CaptionWord } from '../../src/captions/captionCues.js';
import { toSrt } from '../../src/captions/toSrt.js';
import { toWebVtt } from '../../src/captions/toWebVtt.js';
import type { AudioFrame } from '../../src/codec/types.js';
import type { LatencyMode } from '../../src/protocol/ttsRequest.js';

/** The sentences of the text, as a reader splits them. */
const SENTENCES = [
  'Dr. Smith paid $42.50 for 3.5 kg of apples on Jan. 5th, at 10:30 p.m.',
  '"It\'s a bargain," he said.',
  'The U.S.A. won 2-1!',
  'Did you know?',
  "Mr. O'Brien — the well-known chef — cooks e.g. 12 dishes a day, i.e. too many.",
  'The quick brown fox jumps over the lazy dog, and then it runs away into the forest, ' +
    'where nobody can find it ever again; not even the hunters who search for it every single day.',
  'Pack my box with five dozen liquor jugs.',
];
const SOURCE = SENTENCES.join(' ');

let service: LocalService;
beforeAll(async () => {
  service = await startLocalService();
});
afterAll(async () => {
  await service?.close();
});

async function speak(
  text: string,
  latency: LatencyMode,
): Promise<{ heard: CaptionWord[]; timeline: readonly CaptionWord[]; requestText: string }> {
  const client = createClient({ baseUrl: service.baseUrl, apiKey: service.token });
  const { stream, request } = await client.tts.streamWithTimestamps({ text, format: 'pcm', sample_rate: 16000, latency });
  const heard: CaptionWord[] = [];
  stream.on('word', (w: CaptionWord) => heard.push(w));
  for await (const frame of stream as AsyncIterable<AudioFrame>) void frame;
  return { heard, timeline: stream.alignment.timeline(), requestText: request.text };
}

describe('captions of real speech read as the source text was written', () => {
  for (const latency of ['normal', 'balanced'] as const) {
    it(`${latency} chunks: punctuation and casing from the text, no cue across a sentence end, every limit kept`, async () => {
      const { heard, timeline, requestText } = await speak(SOURCE, latency);
      expect(requestText).toBe(SOURCE);
      expect(heard.map((w) => w.text)).toEqual(timeline.map((w) => w.text));

      const cues = groupIntoCues(heard, { sourceText: requestText });
      // every word exactly once, in order
      expect(cues.flatMap((c) => c.words)).toEqual(heard);
      // the cue texts put back together are the source text, token for token
      expect(cues.flatMap((c) => c.texts).join(' ')).toBe(SOURCE);
      for (const [i, cue] of cues.entries()) {
        const lines = cueLines(cue);
        const whole = lines.join(' ');
        // inside one sentence: its text is part of exactly one of them
        expect(
          SENTENCES.filter((s) => s.includes(whole)),
          whole,
        ).toHaveLength(1);
        expect(lines.length).toBeLessThanOrEqual(MAX_LINES);
        for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(MAX_LINE_CHARS);
        expect(cue.end - cue.start).toBeLessThanOrEqual(MAX_CUE_SEC);
        expect(cue.end).toBeGreaterThan(cue.start);
        if (i > 0) expect(cue.start).toBeGreaterThanOrEqual(cues[i - 1]!.end);
      }
      // every sentence ends a cue
      const cueEnds = cues.map((c) => c.texts[c.texts.length - 1]);
      for (const s of SENTENCES) expect(cueEnds).toContain(s.split(' ').at(-1));

      const srt = toSrt(timeline, { sourceText: requestText });
      expect(srt).toContain('\nThe U.S.A. won 2-1!\n');
      expect(srt).toContain('\nPack my box with five dozen liquor jugs.\n');
      expect(srt).toMatch(/\n"It's a bargain," he said\.\n/);
      const vtt = toWebVtt(timeline, { sourceText: requestText, wordTimestamps: false });
      expect(vtt).toContain('Dr. Smith paid $42.50');
      expect(vtt).toContain('Did you know?');
    });
  }

  it('without the source text the words stay bare, and the cues keep the same limits', async () => {
    const { timeline } = await speak('"Hello," she said. Dr. Who? Yes.', 'normal');
    const cues = groupIntoCues(timeline);
    expect(cues.flatMap((c) => c.texts)).toEqual(['Hello', 'she', 'said', 'Dr', 'Who', 'Yes']);
    for (const cue of cues) for (const line of cueLines(cue)) expect(line.length).toBeLessThanOrEqual(MAX_LINE_CHARS);
  });
});
