import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { toWebVtt } from '../../src/captions/toWebVtt.js';
import { toSrt } from '../../src/captions/toSrt.js';
import { cueLines, formatTimestamp, groupIntoCues, type CaptionWord } from '../../src/captions/captionCues.js';
import { createLineCaptionRenderer, createTtyCaptionRenderer } from '../../src/captions/CaptionRenderer.js';

const words: CaptionWord[] = [
  { text: 'Hello', start: 0.31, end: 0.62, chunkSeq: 0 },
  { text: 'world', start: 0.62, end: 1.1, chunkSeq: 0 },
  { text: 'again', start: 2.5, end: 2.9, chunkSeq: 0 },
];

function collector() {
  const chunks: string[] = [];
  return { chunks, write: (s: string) => chunks.push(s), text: () => chunks.join('') };
}

describe('caption files', () => {
  it('a WebVTT document starts with the signature and times each cue', () => {
    const vtt = toWebVtt(words);
    expect(vtt.startsWith('WEBVTT\n\n')).toBe(true);
    expect(vtt).toContain('00:00:00.310 --> 00:00:01.100\nHello <00:00:00.620>world\n');
    expect(vtt).toContain('00:00:02.500 --> 00:00:02.900\nagain\n');
  });

  it('WebVTT word timestamps can be turned off and cue text is escaped', () => {
    const vtt = toWebVtt(
      [
        { text: 'a<b&c', start: 0, end: 1 },
        { text: 'd', start: 0.5, end: 1 },
      ],
      { wordTimestamps: false },
    );
    expect(vtt).toContain('a&lt;b&amp;c d\n');
    expect(vtt).not.toContain('<00:');
  });

  it('an SRT document numbers cues and uses a comma before milliseconds', () => {
    expect(toSrt(words)).toBe('1\n00:00:00,310 --> 00:00:01,100\nHello world\n\n2\n00:00:02,500 --> 00:00:02,900\nagain\n');
  });

  it('an empty timeline gives an empty but valid document', () => {
    expect(toWebVtt([])).toBe('WEBVTT\n');
    expect(toSrt([])).toBe('');
  });

  it('timestamps carry hours and round to the millisecond', () => {
    expect(formatTimestamp(3725.0004, '.')).toBe('01:02:05.000');
    expect(formatTimestamp(-1, ',')).toBe('00:00:00,000');
    expect(formatTimestamp(59.9996, '.')).toBe('00:01:00.000');
  });

  it('a new text chunk starts a new cue', () => {
    const cues = groupIntoCues([
      { text: 'a', start: 0, end: 0.1, chunkSeq: 0 },
      { text: 'b', start: 0.1, end: 0.2, chunkSeq: 1 },
    ]);
    expect(cues).toHaveLength(2);
  });

  it('cues list every word once, in order, never overlap and keep to 2 lines of 42 characters and 7 s (property)', () => {
    const wordArb = fc.record({
      text: fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !/\s/.test(s)),
      dur: fc.double({ min: 0, max: 2, noNaN: true }),
      gap: fc.double({ min: 0, max: 2, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(wordArb, { maxLength: 60 }), (specs) => {
        let t = 0;
        const ws: CaptionWord[] = specs.map((s) => {
          const w = { text: s.text, start: t + s.gap, end: t + s.gap + s.dur };
          t = w.end;
          return w;
        });
        const cues = groupIntoCues(ws);
        expect(cues.flatMap((c) => c.words)).toEqual(ws);
        for (let i = 0; i < cues.length; i++) {
          expect(cues[i]!.end).toBeGreaterThan(cues[i]!.start);
          if (i > 0) expect(cues[i]!.start).toBeGreaterThanOrEqual(cues[i - 1]!.end);
          const lines = cueLines(cues[i]!);
          expect(lines.length).toBeLessThanOrEqual(2);
          for (const line of lines) expect(line.length <= 42 || !line.includes(' ')).toBe(true);
          expect(cues[i]!.end - cues[i]!.start).toBeLessThanOrEqual(7 + 1e-9);
        }
      }),
    );
  });
});

describe('live caption renderers', () => {
  it('outside a TTY each word is one line: start time, two spaces, the word', () => {
    const out = collector();
    const r = createLineCaptionRenderer(out);
    for (const w of words) r.word(w);
    r.finish();
    expect(out.text()).toBe('0.31  Hello\n0.62  world\n2.50  again\n');
  });

  it('in a TTY the whole line is shown and the word being heard is highlighted', () => {
    const out = collector();
    const r = createTtyCaptionRenderer(out, { timeline: () => words, columns: () => 80 });
    r.word(words[0]!);
    expect(out.chunks.at(-1)).toBe('\r\x1b[2K\x1b[7mHello\x1b[27m \x1b[2mworld\x1b[22m');
    r.word(words[1]!);
    expect(out.chunks.at(-1)).toBe('\r\x1b[2K' + 'Hello \x1b[7mworld\x1b[27m');
    r.word(words[2]!);
    // the finished line stays, plain, and the next line starts below it
    expect(out.text()).toContain('\r\x1b[2KHello world\n\r\x1b[2K\x1b[7magain\x1b[27m');
    r.finish();
    expect(out.text().endsWith('\r\x1b[2Kagain\n')).toBe(true);
  });

  it('in a TTY with the source text the line reads as written and ends with its sentence', () => {
    const spoken: CaptionWord[] = ['Hello', 'world', 'Dr', 'Who', 'is', 'here'].map((text, i) => ({
      text,
      start: i * 0.3,
      end: (i + 1) * 0.3,
    }));
    const out = collector();
    const r = createTtyCaptionRenderer(out, { timeline: () => spoken, columns: () => 80, sourceText: '"Hello, world!" Dr. Who is here.' });
    r.word(spoken[0]!);
    expect(out.chunks.at(-1)).toBe('\r\x1b[2K\x1b[7m"Hello,\x1b[27m \x1b[2mworld!"\x1b[22m');
    for (const w of spoken.slice(1)) r.word(w);
    r.finish();
    expect(out.text()).toContain('\r\x1b[2K"Hello, world!"\n');
    expect(out.text().endsWith('\r\x1b[2KDr. Who is here.\n')).toBe(true);
  });

  it('in a TTY a line is one line of at most the line length, also when the subtitle cue has two', () => {
    const spoken: CaptionWord[] = 'The quick brown fox jumps over the lazy dog and keeps on running'
      .split(' ')
      .map((text, i) => ({ text, start: i * 0.3, end: (i + 1) * 0.3 }));
    const out = collector();
    const r = createTtyCaptionRenderer(out, { timeline: () => spoken, columns: () => 200 });
    for (const w of spoken) r.word(w);
    r.finish();
    const shown = out
      .text()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.slice(l.lastIndexOf('\x1b[2K') + 4));
    expect(shown.join(' ')).toBe(spoken.map((w) => w.text).join(' '));
    for (const line of shown) expect(line.length).toBeLessThanOrEqual(42);
  });

  it('in a TTY without a timeline the line grows word by word and fits the width', () => {
    const out = collector();
    const r = createTtyCaptionRenderer(out, { columns: () => 8 });
    r.word(words[0]!);
    r.word(words[1]!);
    expect(out.chunks.at(-1)).toBe('\r\x1b[2KHello');
    const tiny = collector();
    const r2 = createTtyCaptionRenderer(Object.assign(tiny, { columns: 0 }));
    r2.word(words[0]!);
    expect(tiny.chunks.at(-1)).toBe('\r\x1b[2K\x1b[7mHello\x1b[27m'); // 0 columns = unknown
  });
});
