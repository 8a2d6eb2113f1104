import { describe, expect, it } from 'vitest';
import { BreakKind } from '../../src/captions/cueBreaks.js';
import { breakLines, splitSentence, splitSentenceGreedy, type LayoutItem, type LayoutLimits } from '../../src/captions/cueLayout.js';

const LIMITS: LayoutLimits = { maxChars: 42, maxLines: 2, maxCueSec: 7, maxWords: Infinity };

/** Items from caption texts, 0.3 s each, a trailing `,` marking a clause end. */
function items(texts: string[], secPerWord = 0.3): LayoutItem[] {
  return texts.map((t, i) => ({
    width: t.length,
    start: i * secPerWord,
    end: (i + 1) * secPerWord,
    brk: i === texts.length - 1 ? BreakKind.Sentence : t.endsWith(',') ? BreakKind.Clause : BreakKind.None,
  }));
}

function cuesOf(texts: string[], starts: number[]): string[] {
  return starts.map((a, k) => texts.slice(a, starts[k + 1] ?? texts.length).join(' '));
}

describe('splitSentence: the fewest cues, ended at clause ends', () => {
  it('a sentence that fits in two lines is one cue', () => {
    const t = 'The quick brown fox jumps over the lazy dog, and runs off.'.split(' ');
    expect(splitSentence(items(t), 0, t.length, LIMITS)).toEqual([0]);
  });

  it('a longer sentence is cut at a clause end rather than where the lines fill up', () => {
    const t = 'The quick brown fox jumps over the lazy dog, and then it runs away into the forest where nobody can find it again.'.split(
      ' ',
    );
    const cues = cuesOf(t, splitSentence(items(t), 0, t.length, LIMITS));
    expect(cues).toEqual([
      'The quick brown fox jumps over the lazy dog,',
      'and then it runs away into the forest where nobody can find it again.',
    ]);
  });

  it('with no clause end, cuts where it must, into the fewest cues', () => {
    const t = Array.from({ length: 40 }, (_, i) => `word${i}`); // 40 × 6-7 characters
    const starts = splitSentence(items(t, 0.1), 0, t.length, LIMITS);
    // filling each cue to the brim gives the fewest cues there can be
    expect(starts.length).toBe(splitSentenceGreedy(items(t, 0.1), 0, t.length, LIMITS).length);
    for (const cue of cuesOf(t, starts)) expect(cue.length).toBeLessThanOrEqual(2 * 42 + 1);
  });

  it('a cue never lasts longer than the limit, however short its text', () => {
    const t = 'a b c d e f g h i j'.split(' ');
    const starts = splitSentence(items(t, 1), 0, t.length, LIMITS); // 1 s per word
    expect(
      cuesOf(t, starts)
        .map((c) => c.split(' ').length)
        .every((n) => n <= 7),
    ).toBe(true);
    expect(starts.length).toBe(2);
  });

  it('a word longer than a line stands on a line of its own', () => {
    const long = 'x'.repeat(100);
    const t = ['see', long, 'here.'];
    const all = items(t);
    const starts = splitSentence(all, 0, t.length, LIMITS);
    expect(starts).toHaveLength(2); // three lines in all: the long word's cue has two
    expect(breakLines(all, 1, 3, 42)).toEqual([0, 1]);
    expect(breakLines(all, 0, 2, 42)).toEqual([0, 1]);
  });

  it('greedy filling ends a cue only when the next word does not fit', () => {
    const t = 'The quick brown fox jumps over the lazy dog, and then it runs away into the forest where nobody can find it again.'.split(
      ' ',
    );
    const cues = cuesOf(t, splitSentenceGreedy(items(t), 0, t.length, { ...LIMITS, maxLines: 1 }));
    expect(cues[0]).toBe('The quick brown fox jumps over the lazy');
    for (const cue of cues) expect(cue.length).toBeLessThanOrEqual(42);
  });
});

describe('breakLines: the fewest lines, at a clause end or evenly', () => {
  it('one line when the cue fits in one', () => {
    const t = 'Pack my box with five dozen liquor jugs.'.split(' ');
    expect(breakLines(items(t), 0, t.length, 42)).toEqual([0]);
  });

  it('two lines break at the clause end when there is one', () => {
    const t = 'The quick brown fox jumps over a dog, and runs off into the woods.'.split(' ');
    expect(breakLines(items(t), 0, t.length, 42)).toEqual([0, 8]); // "… a dog," / "and runs off …"
  });

  it('two lines without a clause end come out even', () => {
    const t = 'not even the hunters who search for it every single day of the year.'.split(' ');
    const [, second] = breakLines(items(t), 0, t.length, 42);
    const a = t.slice(0, second).join(' ');
    const b = t.slice(second).join(' ');
    expect(Math.abs(a.length - b.length)).toBeLessThanOrEqual(10);
  });
});
