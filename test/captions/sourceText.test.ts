import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { alignToSource, wordKey } from '../../src/captions/sourceText.js';

describe('alignToSource: each word takes its written form', () => {
  it('bare words get their punctuation, quotes and casing back', () => {
    expect(alignToSource(['Dr', 'Smith', 'said', 'hi', 'to', 'me'], 'Dr. Smith said: "Hi, to me!"')).toEqual([
      'Dr.',
      'Smith',
      'said:',
      '"Hi,',
      'to',
      'me!"',
    ]);
    expect(alignToSource(['hello', 'world'], 'Hello, World.')).toEqual(['Hello,', 'World.']);
  });

  it('numbers, decimals, hyphens, apostrophes and URLs are matched whole, as the local service emits them', () => {
    const words = ['It', 'costs', '$42.50', 'or', '3.5', 'well-known', "don't", 'https://example.com/a?b=1', 'U.S.A', 'p.m'];
    const source = 'It costs $42.50, or 3.5 well-known don’t https://example.com/a?b=1. U.S.A. p.m.';
    expect(alignToSource(words, source)).toEqual([
      'It',
      'costs',
      '$42.50,',
      'or',
      '3.5',
      'well-known',
      'don’t',
      'https://example.com/a?b=1.',
      'U.S.A.',
      'p.m.',
    ]);
  });

  it('a punctuation-only token joins the word before it; an opening one the word after it', () => {
    expect(alignToSource(['Jones', 'the', 'chef', 'waved'], 'Jones — the chef — waved')).toEqual(['Jones —', 'the', 'chef —', 'waved']);
    expect(alignToSource(['he', 'said', 'wait'], '“ he said ” ( wait )')).toEqual(['“ he', 'said ”', '( wait )']);
    expect(alignToSource(['so'], '... so')).toEqual(['... so']);
  });

  it('a source word the service did not speak is skipped, and the words after it still match', () => {
    expect(alignToSource(['The', 'cat', 'sat'], 'The big cat sat.')).toEqual(['The', 'cat', 'sat.']);
    // a leading emotion tag is not spoken, also when it is the same word as the first one spoken
    expect(alignToSource(['Hello', 'there'], '[happy] Hello there!')).toEqual(['Hello', 'there!']);
    expect(alignToSource(['Excited', 'to', 'see', 'you'], '(excited) Excited to see you.')).toEqual(['Excited', 'to', 'see', 'you.']);
    expect(alignToSource(['the', 'the', 'cat'], 'The, the cat.')).toEqual(['The,', 'the', 'cat.']);
  });

  it('an extra word keeps its bare text and does not move the words around it', () => {
    expect(alignToSource(['The', 'um', 'cat', 'sat'], 'The cat sat.')).toEqual(['The', 'um', 'cat', 'sat.']);
  });

  it('a stray word that equals a later source word does not carry the cursor past the words spoken', () => {
    const source = 'One two three four five six seven the end.';
    const words = ['One', 'the', 'two', 'three', 'four', 'five', 'six', 'seven', 'the', 'end'];
    expect(alignToSource(words, source)).toEqual(['One', 'the', 'two', 'three', 'four', 'five', 'six', 'seven', 'the', 'end.']);
  });

  it('a number spoken as several words keeps the punctuation and capital of the token it stands for', () => {
    expect(alignToSource(['it', 'costs', 'forty', 'two', 'dollars', 'today'], 'It costs "$42." Today')).toEqual([
      'It',
      'costs',
      '"forty',
      'two',
      'dollars."',
      'Today',
    ]);
    expect(alignToSource(['forty', 'two', 'apples'], 'Forty-two apples.')).toEqual(['Forty', 'two', 'apples.']);
  });

  it('a token the service split in two: the first part takes its leading, the last its trailing punctuation', () => {
    expect(alignToSource(['a', 'well', 'known', 'fact'], 'a "well-known" fact.')).toEqual(['a', '"well', 'known"', 'fact.']);
  });

  it('words with no source text, or a source text that shares nothing, keep their own text', () => {
    expect(alignToSource(['a', 'b'], '')).toEqual(['a', 'b']);
    expect(alignToSource(['a', 'b'], 'x y z')).toEqual(['a', 'b']);
    expect(alignToSource([], 'x y z')).toEqual([]);
  });

  it('word keys meet across apostrophes, dots, case and width, and symbols compare as themselves', () => {
    expect(wordKey('Don’t')).toBe(wordKey("don't"));
    expect(wordKey('U.S.A.')).toBe(wordKey('U.S.A'));
    expect(wordKey('ＡＢＣ')).toBe('abc');
    expect(wordKey('+')).toBe('+');
    expect(wordKey('“+”')).toBe('+');
  });

  it('never throws, keeps one text per word in order, and never gives a word another word’s text (property)', () => {
    const token = fc.oneof(
      fc.constantFrom('Dr.', 'the', 'The', '"Hello,', 'world.', '—', '42', '$3.50', 'e.g.', "don't", '(wait)', '...', 'a', 'B!'),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(
        fc.array(token, { maxLength: 30 }),
        fc.array(token, { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (src, extra, picks) => {
          const source = src.join(' ');
          // the words: some of the source's bare words in order, mixed with unrelated ones
          const bare = src.map((t) => t.replace(/^\p{P}+|\p{P}+$/gu, '')).filter((t) => /[\p{L}\p{N}]/u.test(t) && !/\s/.test(t));
          const words = [...bare.filter((_, i) => (picks[i] ?? 0) % 3 !== 0), ...extra.filter((t) => /[\p{L}\p{N}]/u.test(t))];
          const out = alignToSource(words, source);
          expect(out).toHaveLength(words.length);
          out.forEach((text, i) => expect(wordKey(text)).toBe(wordKey(words[i]!)));
        },
      ),
    );
  });
});
