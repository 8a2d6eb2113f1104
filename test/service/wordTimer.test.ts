import { describe, expect, it } from 'vitest';
import type { EspeakEvent } from '../../src/service/speech/SpeechEngine.js';
import { buildChunkSsml, escapeSsmlText, stripPunctuation } from '../../src/service/speech/ssml.js';
import { WordTimer } from '../../src/service/speech/WordTimer.js';

describe('SSML for a chunk', () => {
  it('escapes & < > and breaks up [[ so user text cannot switch espeak into phoneme mode', () => {
    expect(escapeSsmlText('a & b < c > d [[x]]')).toBe('a &amp; b &lt; c &gt; d [ [x] ]');
  });

  it('segments are punctuation-stripped words; pure punctuation is no word', () => {
    expect(stripPunctuation('"world,"')).toBe('world');
    expect(stripPunctuation("isn't")).toBe("isn't");
    const { groups } = buildChunkSsml('Hello, "world" — yes.');
    expect(groups).toEqual([['Hello'], ['world'], ['yes']]);
  });

  it('each word range points at its spoken text in the SSML (1-based code points)', () => {
    const { ssml, ranges } = buildChunkSsml('Héllo 42 cats.');
    const cps = [...ssml];
    expect(ranges.map(([a, b]) => cps.slice(a - 1, b - 1).join(''))).toEqual(['Héllo', '42', 'cats']);
  });

  it('dictionary entries change the spoken form, not the words', () => {
    const { ssml, groups } = buildChunkSsml('I love NYC and New York.', [
      { words: ['nyc'], alias: 'New York City' },
      { words: ['new', 'york'], phonemes: "nu: j'O@k" },
    ]);
    expect(ssml).toContain('New York City');
    expect(ssml).toContain("[[nu: j'O@k]]");
    expect(groups).toEqual([['I'], ['love'], ['NYC'], ['and'], ['New', 'York']]);
  });
});

describe('word timer', () => {
  const ev = (type: string, ms: number, name = '', pos = 0): EspeakEvent => [type, ms, name, pos];

  it('a word starts at its word event and ends at the event after its last phoneme', () => {
    const t = new WordTimer(
      [['Hello'], ['world']],
      [
        [10, 15],
        [30, 35],
      ],
    );
    t.push([
      ev('word', 0, '', 10),
      ev('phoneme', 10, 'h'),
      ev('phoneme', 200, 'oʊ'),
      ev('mark', 290, 'e0'),
      ev('word', 300, '', 30),
      ev('phoneme', 310, 'w'),
      ev('phoneme', 500, 'd'),
      ev('phoneme', 560, ''),
      ev('phoneme', 700, ''),
      ev('mark', 700, 'e1'),
    ]);
    expect(t.words).toEqual([
      { text: 'Hello', start: 0, end: 0.29 },
      { text: 'world', start: 0.3, end: 0.56 },
    ]);
  });

  it('several word events inside one token ("42" → forty two) make one word', () => {
    const t = new WordTimer([['42']], [[5, 7]]);
    t.push([ev('word', 0, '', 5), ev('phoneme', 0, 'f'), ev('word', 300, '', 6), ev('phoneme', 300, 't'), ev('mark', 500, 'e0')]);
    expect(t.words).toEqual([{ text: '42', start: 0, end: 0.5 }]);
  });

  it('a word espeak ran into the word before ("I am": one word event) shares that word\'s span by length', () => {
    // Real espeak events for "Yes I am. It …": "am" has no word event; marks e1 and e2 fire together.
    const t = new WordTimer(
      [['Yes'], ['I'], ['am'], ['It']],
      [
        [8, 11],
        [29, 30],
        [48, 50],
        [69, 71],
      ],
    );
    t.push([
      ev('word', 0, '', 8),
      ev('phoneme', 0, 'j'),
      ev('phoneme', 182, 's'),
      ev('mark', 255, 'e0', 29),
      ev('word', 255, '', 29),
      ev('phoneme', 255, 'aɪ'),
      ev('phoneme', 342, 'ˈæ'),
      ev('phoneme', 531, 'm'),
      ev('mark', 641, 'e1'),
      ev('mark', 641, 'e2'),
      ev('phoneme', 641, ''),
      ev('phoneme', 942, ''),
      ev('word', 942, '', 69),
      ev('phoneme', 942, 'ɪ'),
    ]);
    const words = t.finish(1044);
    expect(words.map((w) => w.text)).toEqual(['Yes', 'I', 'am', 'It']);
    expect(words[1]!.start).toBe(0.255);
    expect(words[1]!.end).toBeCloseTo(0.255 + 0.386 / 3, 9);
    expect(words[2]!.start).toBeCloseTo(words[1]!.end, 9);
    expect(words[2]!.end).toBeCloseTo(0.641, 9); // not after the sentence pause
    expect(words[3]).toEqual({ text: 'It', start: 0.942, end: 1.044 });
  });

  it("a skipped word at the end of a chunk shares the last spoken word's span", () => {
    const t = new WordTimer(
      [['a'], ['bb']],
      [
        [1, 2],
        [3, 5],
      ],
    );
    t.push([ev('word', 0, '', 1), ev('phoneme', 0, 'a'), ev('phoneme', 300, '')]);
    const words = t.finish(400);
    expect(words).toEqual([
      { text: 'a', start: 0, end: 0.1 },
      { text: 'bb', start: 0.1, end: 0.3 },
    ]);
  });

  it('a word with no spoken word before it still appears, zero-length, where the next word starts', () => {
    const t = new WordTimer(
      [['a'], ['b'], ['c']],
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
    );
    t.push([ev('word', 100, '', 5), ev('phoneme', 100, 'c')]);
    const words = t.finish(250);
    expect(words.map((w) => w.text)).toEqual(['a', 'b', 'c']);
    expect(words[0]).toEqual({ text: 'a', start: 0.1, end: 0.1 });
    expect(words[1]).toEqual({ text: 'b', start: 0.1, end: 0.1 });
    expect(words[2]).toEqual({ text: 'c', start: 0.1, end: 0.25 });
  });

  it('a multi-word group is shared by length', () => {
    const t = new WordTimer([['New', 'York']], [[1, 9]]);
    t.push([ev('word', 0, '', 1), ev('phoneme', 0, 'n'), ev('mark', 700, 'e0')]);
    expect(t.words).toEqual([
      { text: 'New', start: 0, end: 0.3 },
      { text: 'York', start: 0.3, end: 0.7 },
    ]);
  });
});
