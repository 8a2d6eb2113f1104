import { describe, expect, it } from 'vitest';
import { AlignmentStore, type AlignmentSnapshot } from '../../src/align/AlignmentStore.js';

const snap = (...words: Array<[string, number, number]>): AlignmentSnapshot => ({
  audio_duration: words.length ? words[words.length - 1]![2] : 0,
  segments: words.map(([text, start, end]) => ({ text, start, end })),
});
const texts = (s: AlignmentStore) => s.timeline().map((w) => w.text);

describe('AlignmentStore (spec "Speech stream event" rules)', () => {
  it('rule 1: the latest non-null snapshot replaces the previous one; segments are never appended', () => {
    const s = new AlignmentStore();
    s.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['Hello', 0, 0.3], ['wor', 0.3, 0.4]) });
    const change = s.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['Hello', 0, 0.3], ['world', 0.3, 0.7]) });
    expect(texts(s)).toEqual(['Hello', 'world']);
    expect(change?.previous.map((w) => w.text)).toEqual(['Hello', 'wor']);
    expect(change?.current.map((w) => w.text)).toEqual(['Hello', 'world']);
    s.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['Hi', 0, 0.2]) });
    expect(texts(s)).toEqual(['Hi']);
  });

  it('rule: null never erases a snapshot', () => {
    const s = new AlignmentStore();
    s.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['Hello', 0, 0.3]) });
    expect(s.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: null })).toBeNull();
    expect(texts(s)).toEqual(['Hello']);
    expect(s.stats.nulls).toBe(1);
  });

  it('rule: null before the first snapshot gives no words', () => {
    const s = new AlignmentStore();
    expect(s.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: null })).toBeNull();
    expect(s.timeline()).toEqual([]);
  });

  it('rule 4: an identical repeat is a cheap no-op (flagged repeats are not even read)', () => {
    const s = new AlignmentStore();
    const a = snap(['Hello', 0, 0.3]);
    s.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: a });
    const before = s.timeline();
    // A flagged repeat carries the earlier object; a poisoned getter proves it is never read.
    const poisoned = {
      get segments(): never {
        throw new Error('re-processed');
      },
      audio_duration: 0.3,
    } as unknown as AlignmentSnapshot;
    expect(s.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: poisoned, alignmentRepeat: true })).toBeNull();
    expect(s.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: a })).toBeNull();
    expect(s.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['Hello', 0, 0.3]) })).toBeNull();
    expect(s.timeline()).toBe(before); // not even re-sorted
    expect(s.stats).toMatchObject({ applied: 1, repeats: 3 });
  });

  it('rule 2: global time = local time + chunk_audio_offset_sec', () => {
    const s = new AlignmentStore();
    s.apply({ chunkSeq: 1, chunkAudioOffsetSec: 1.5, alignment: snap(['there', 0.1, 0.4]) });
    expect(s.timeline()).toEqual([{ text: 'there', start: 1.6, end: 1.9, chunkSeq: 1, index: 0 }]);
  });

  it('rule 3: several chunks, each with its own snapshots, make one timeline sorted by start', () => {
    const s = new AlignmentStore();
    s.apply({ chunkSeq: 1, chunkAudioOffsetSec: 1, alignment: snap(['c', 0, 0.2]) });
    s.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['a', 0, 0.3]) });
    s.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['a', 0, 0.3], ['b', 0.5, 0.9]) });
    s.apply({ chunkSeq: 1, chunkAudioOffsetSec: 1, alignment: snap(['c', 0, 0.2], ['d', 0.3, 0.6]) });
    expect(s.timeline().map((w) => [w.text, w.chunkSeq, w.start])).toEqual([
      ['a', 0, 0],
      ['b', 0, 0.5],
      ['c', 1, 1],
      ['d', 1, 1.3],
    ]);
    expect(s.chunkCount).toBe(2);
    expect(s.chunk(0)?.snapshot?.segments).toHaveLength(2);
  });

  it('rule: a trailing event with empty audio may correct the last snapshot', () => {
    const s = new AlignmentStore();
    s.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['Hello', 0, 0.3], ['world', 0.3, 0.5]) });
    // The trailing event carries no audio; it is a snapshot like any other.
    const change = s.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['Hello', 0, 0.3], ['world', 0.3, 0.72]) });
    expect(change).not.toBeNull();
    expect(s.timeline()[1]?.end).toBe(0.72);
  });

  it('a later snapshot with fewer words removes the dropped words', () => {
    const s = new AlignmentStore();
    s.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['a', 0, 0.1], ['b', 0.1, 0.2]) });
    s.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['a', 0, 0.1]) });
    expect(texts(s)).toEqual(['a']);
  });

  it('wordAt(t) finds the word spoken at t, and nothing in the gaps', () => {
    const s = new AlignmentStore();
    s.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['a', 0, 0.3], ['b', 0.5, 0.9]) });
    s.apply({ chunkSeq: 1, chunkAudioOffsetSec: 1, alignment: snap(['c', 0, 0.2]) });
    expect(s.wordAt(0)?.text).toBe('a');
    expect(s.wordAt(0.29)?.text).toBe('a');
    expect(s.wordAt(0.3)).toBeNull();
    expect(s.wordAt(0.4)).toBeNull();
    expect(s.wordAt(0.5)?.text).toBe('b');
    expect(s.wordAt(1.1)?.text).toBe('c');
    expect(s.wordAt(-1)).toBeNull();
    expect(s.wordAt(5)).toBeNull();
  });
});

describe('AlignmentStore memory', () => {
  it('a cumulative snapshot keeps the word objects of the words it repeats (only new words are allocated)', () => {
    const s = new AlignmentStore();
    s.apply({ chunkSeq: 3, chunkAudioOffsetSec: 1, alignment: snap(['Hello', 0, 0.3]) });
    const first = s.timeline()[0];
    const change = s.apply({ chunkSeq: 3, chunkAudioOffsetSec: 1, alignment: snap(['Hello', 0, 0.3], ['world', 0.3, 0.7]) });
    expect(change?.current[0]).toBe(first);
    expect(s.timeline().map((w) => [w.text, w.start, w.end, w.index])).toEqual([
      ['Hello', 1, 1.3, 0],
      ['world', 1.3, 1.7, 1],
    ]);
    // A changed word is a new object.
    s.apply({ chunkSeq: 3, chunkAudioOffsetSec: 1, alignment: snap(['Hello', 0, 0.25], ['world', 0.3, 0.7]) });
    expect(s.timeline()[0]).not.toBe(first);
    expect(s.timeline()[0]!.end).toBe(1.25);
  });
});
