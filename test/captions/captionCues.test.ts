import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  cueLines,
  groupIntoCues,
  MAX_CUE_SEC,
  MAX_LINE_CHARS,
  MAX_LINES,
  type CaptionCue,
  type CaptionWord,
} from '../../src/captions/captionCues.js';
import { toSrt } from '../../src/captions/toSrt.js';
import { toWebVtt } from '../../src/captions/toWebVtt.js';

/** The words of `text` as a service's alignment gives them: bare, 0.3 s each, back to back. */
function spoken(text: string, secPerWord = 0.3): CaptionWord[] {
  return text
    .split(/\s+/)
    .map((t) => t.replace(/^\p{P}+|\p{P}+$/gu, ''))
    .filter((t) => t !== '')
    .map((t, i) => ({ text: t, start: i * secPerWord, end: (i + 1) * secPerWord, chunkSeq: 0 }));
}

const text = (cues: CaptionCue[]): string[] => cues.map((c) => cueLines(c).join(' / '));

/** Every limit a cue file must keep, for any input. */
function expectValidCues(cues: CaptionCue[], words: readonly CaptionWord[]): void {
  expect(cues.flatMap((c) => c.words)).toEqual(words);
  for (let i = 0; i < cues.length; i++) {
    const cue = cues[i]!;
    expect(cue.texts).toHaveLength(cue.words.length);
    expect(cue.lineStarts[0]).toBe(0);
    const lines = cueLines(cue);
    expect(lines.length).toBeLessThanOrEqual(MAX_LINES);
    for (const [k, line] of lines.entries()) {
      const lineWords = (cue.lineStarts[k + 1] ?? cue.words.length) - cue.lineStarts[k]!;
      expect(lineWords).toBeGreaterThan(0);
      if (lineWords > 1) expect([...line].length).toBeLessThanOrEqual(MAX_LINE_CHARS);
    }
    expect(cue.end).toBeGreaterThan(cue.start);
    expect(cue.end - cue.start).toBeLessThanOrEqual(MAX_CUE_SEC + 1e-9);
    if (i > 0) expect(cue.start).toBeGreaterThanOrEqual(cues[i - 1]!.end);
  }
}

describe('groupIntoCues with the source text', () => {
  it('a cue never runs across a sentence end ("dog. Pack my box")', () => {
    const source = 'The quick brown fox jumps over the lazy dog. Pack my box with five dozen liquor jugs.';
    const words = spoken(source);
    expect(text(groupIntoCues(words)).some((cue) => cue.includes('dog Pack'))).toBe(true);
    expect(text(groupIntoCues(words, { sourceText: source }))).toEqual([
      'The quick brown fox / jumps over the lazy dog.', // 44 characters: two lines
      'Pack my box with five dozen liquor jugs.',
    ]);
  });

  it('abbreviation periods do not end a cue; numbers, quotes and casing come out as written', () => {
    const source = '"Dr. Smith paid $42.50 for 3.5 kg," she said, "on Jan. 5th at 10:30 p.m." The U.S.A. won!';
    const cues = groupIntoCues(spoken(source), { sourceText: source });
    expect(text(cues)).toEqual(['"Dr. Smith paid $42.50 for 3.5 kg," / she said, "on Jan. 5th at 10:30 p.m."', 'The U.S.A. won!']);
  });

  it('a long sentence is cut at its clauses, each cue at most two lines', () => {
    const source =
      'The fox runs away into the forest, where nobody can find it ever again; ' +
      'not even the hunters who search for it every single day of the year.';
    const words = spoken(source);
    const cues = groupIntoCues(words, { sourceText: source });
    expect(text(cues)).toEqual([
      'The fox runs away into the forest, / where nobody can find it ever again;',
      'not even the hunters who search for / it every single day of the year.',
    ]);
    expectValidCues(cues, words);
  });

  it('a word the service added, dropped or spelled differently keeps the rest in place', () => {
    const source = 'Hello there, my friend. It costs $42. See you!';
    const words = ['hello', 'there', 'um', 'friend', 'it', 'costs', 'forty', 'two', 'dollars', 'see', 'you'].map((t, i) => ({
      text: t,
      start: i * 0.3,
      end: (i + 1) * 0.3,
    }));
    expect(text(groupIntoCues(words, { sourceText: source }))).toEqual([
      'Hello there, um friend.',
      'It costs forty two dollars.',
      'See you!',
    ]);
  });

  it('with the source text a new text chunk does not end a cue; its sentences do', () => {
    // a service that cut its chunks after "Dr."
    const source = 'Dr. Smith is here. Hi.';
    const words = spoken(source).map((w, i) => ({ ...w, chunkSeq: i === 0 ? 0 : 1 }));
    expect(text(groupIntoCues(words))).toEqual(['Dr', 'Smith is here Hi']);
    expect(text(groupIntoCues(words, { sourceText: source }))).toEqual(['Dr. Smith is here.', 'Hi.']);
  });

  it('a short cue stays up into the silence after it, never past the next cue', () => {
    const words: CaptionWord[] = [
      { text: 'Yes', start: 0, end: 0.2 },
      { text: 'Then', start: 0.6, end: 0.9 },
      { text: 'we', start: 0.9, end: 1 },
      { text: 'go', start: 1, end: 1.1 },
    ];
    const source = 'Yes. Then we go.';
    const cues = groupIntoCues(words, { sourceText: source });
    expect(cues.map((c) => [c.start, c.end])).toEqual([
      [0, 0.6],
      [0.6, 1.1],
    ]); // the last cue keeps its end
    expect(groupIntoCues(words, { sourceText: source, minDisplaySec: 0 })[0]!.end).toBe(0.2);
    expect(groupIntoCues(words)[0]!.end).toBe(1.1); // no source: one cue, the old times
  });

  it('the WebVTT and SRT writers print the cue lines, word timestamps inside the lines', () => {
    const source = 'The quick brown fox jumps over a dog, and runs off into the woods. Bye.';
    const words = spoken(source);
    expect(toSrt(words, { sourceText: source })).toBe(
      '1\n00:00:00,000 --> 00:00:04,200\nThe quick brown fox jumps over a dog,\nand runs off into the woods.\n\n' +
        '2\n00:00:04,200 --> 00:00:04,500\nBye.\n',
    );
    const vtt = toWebVtt(words, { sourceText: source });
    expect(vtt).toContain('00:00:00.000 --> 00:00:04.200\nThe <00:00:00.300>quick');
    expect(vtt).toContain('<00:00:02.100>dog,\n<00:00:02.400>and');
    expect(toWebVtt(words, { sourceText: source, wordTimestamps: false })).toContain('a dog,\nand runs off into the woods.\n');
  });

  it('any words and any source text give valid cues: every word once, in order, every limit kept (property)', () => {
    const token = fc.oneof(
      fc.constantFrom(
        'Dr.',
        'the',
        'dog.',
        '"Hello,',
        'world!',
        '—',
        '42',
        '$3.50',
        'e.g.',
        "don't",
        '(wait)',
        '...',
        'extraordinarily-long-hyphenated-word-that-never-fits-a-line',
      ),
      fc.string({ minLength: 1, maxLength: 10 }),
    );
    const wordArb = fc.record({
      text: token.filter((s) => !/\s/.test(s)),
      dur: fc.double({ min: 0, max: 3, noNaN: true }),
      gap: fc.double({ min: 0, max: 1, noNaN: true }),
      chunk: fc.nat({ max: 2 }),
    });
    fc.assert(
      fc.property(
        fc.array(wordArb, { maxLength: 80 }),
        fc.option(fc.array(token, { maxLength: 80 }).map((t) => t.join(' '))),
        (specs, source) => {
          let t = 0;
          let chunkSeq = 0;
          const words: CaptionWord[] = specs.map((s) => {
            chunkSeq += s.chunk === 0 ? 1 : 0;
            const w = { text: s.text, start: t + s.gap, end: t + s.gap + s.dur, chunkSeq };
            t = w.end;
            return w;
          });
          const cues = groupIntoCues(words, source === null ? {} : { sourceText: source });
          expectValidCues(cues, words);
        },
      ),
    );
  });
});
