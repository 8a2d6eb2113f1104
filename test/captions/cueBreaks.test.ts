import { describe, expect, it } from 'vitest';
import { breakAfter, BreakKind, PAUSE_BREAK_SEC } from '../../src/captions/cueBreaks.js';

const { None, Pause, Clause, Sentence } = BreakKind;

describe('breakAfter: sentence and clause ends from the caption text', () => {
  it('. ! ? … end a sentence, also with closing quotes or brackets after them', () => {
    expect(breakAfter('dog.', 'Pack', 0)).toBe(Sentence);
    expect(breakAfter('won!', 'Did', 0)).toBe(Sentence);
    expect(breakAfter('know?', 'Mr.', 0)).toBe(Sentence);
    expect(breakAfter('bargain."', 'The', 0)).toBe(Sentence);
    expect(breakAfter('(really!)', 'Then', 0)).toBe(Sentence);
    expect(breakAfter('so…', 'Then', 0)).toBe(Sentence);
    expect(breakAfter('so...', 'Then', 0)).toBe(Sentence);
    expect(breakAfter('end.', undefined, 0)).toBe(Sentence);
  });

  it('a title or an initial never ends a sentence, whatever follows', () => {
    expect(breakAfter('Dr.', 'Smith', 0.3)).toBe(Pause);
    expect(breakAfter('"Mr.', 'Jones', 0)).toBe(None);
    expect(breakAfter('J.', 'R.', 0)).toBe(None);
  });

  it('an abbreviation ends a sentence only before a capitalised word', () => {
    expect(breakAfter('e.g.', 'closed', 0)).toBe(None);
    expect(breakAfter('e.g.', '12', 0)).toBe(None);
    expect(breakAfter('p.m.', 'on', 0)).toBe(None);
    expect(breakAfter('Jan.', '5th', 0)).toBe(None);
    expect(breakAfter('U.S.A.', 'won', 0)).toBe(None);
    expect(breakAfter('etc.', 'Then', 0)).toBe(Sentence);
    expect(breakAfter('p.m.', '"It\'s', 0)).toBe(Sentence);
  });

  it('decimals, times and versions inside a word end nothing; a plain word before a digit still ends its sentence', () => {
    expect(breakAfter('3.5', 'kg', 0)).toBe(None);
    expect(breakAfter('10:30', 'p.m.', 0)).toBe(None);
    expect(breakAfter('2020.', '42', 0)).toBe(Sentence);
  });

  it('! and ? before a lower-case word end a clause only ("Stop!" she said)', () => {
    expect(breakAfter('"Stop!"', 'she', 0)).toBe(Clause);
    expect(breakAfter('why?', 'he', 0)).toBe(Clause);
  });

  it('commas, semicolons, colons, dashes and brackets end clauses', () => {
    for (const text of ['dog,', 'again;', 'said:', 'Jones —', 'Jones –', 'so--', 'apples,"', '(aside)']) {
      expect(breakAfter(text, 'next', 0), text).toBe(Clause);
    }
    expect(breakAfter('waved', '(happily)', 0)).toBe(Clause);
    expect(breakAfter('waved', '—', 0)).toBe(Clause);
  });

  it('with no punctuation, only a pause is a (weak) break', () => {
    expect(breakAfter('quick', 'brown', 0)).toBe(None);
    expect(breakAfter('quick', 'brown', PAUSE_BREAK_SEC)).toBe(Pause);
    expect(breakAfter('well-known', 'apples', PAUSE_BREAK_SEC - 0.01)).toBe(None);
  });
});
