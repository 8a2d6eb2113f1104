import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AlignmentStore, type AlignmentInput, type AlignmentSnapshot } from '../../src/align/AlignmentStore.js';
import { Playhead } from '../../src/play/Playhead.js';
import { WordClock, type WordEvent, type WordRevision } from '../../src/play/WordClock.js';
import { InvalidOptionError } from '../../src/errors.js';

const snap = (...words: Array<[string, number, number]>): AlignmentSnapshot => ({
  audio_duration: 0,
  segments: words.map(([text, start, end]) => ({ text, start, end })),
});

function setup() {
  const store = new AlignmentStore();
  const words: WordEvent[] = [];
  const revisions: WordRevision[] = [];
  const clock = new WordClock({ onWord: (w) => words.push(w), onRevised: (r) => revisions.push(r) });
  const apply = (chunkSeq: number, offset: number, alignment: AlignmentSnapshot | null) => {
    const change = store.apply({ chunkSeq, chunkAudioOffsetSec: offset, alignment });
    if (change) clock.update(change);
  };
  return { store, clock, words, revisions, apply };
}

/**
 * What a consumer does that writes the next event from inside a clock handler: the first call
 * applies `input` to the store and hands the change to the clock (re-entering it); later calls
 * do nothing.
 */
function feedOnce(store: AlignmentStore, clock: () => WordClock, input: AlignmentInput): () => void {
  let fed = false;
  return () => {
    if (fed) return;
    fed = true;
    const change = store.apply(input);
    if (change) clock().update(change);
  };
}

describe('WordClock', () => {
  it('emits a word when the playhead passes its start, not before', () => {
    const { clock, words, apply } = setup();
    apply(0, 0, snap(['Hello', 0.1, 0.4], ['world', 0.5, 0.9]));
    expect(words).toEqual([]);
    clock.advance(0.1);
    expect(words).toEqual([]); // the audio read so far ends exactly at the start: not reached yet
    clock.advance(0.12);
    expect(words.map((w) => [w.text, w.late])).toEqual([['Hello', false]]);
    clock.advance(2);
    expect(words.map((w) => w.text)).toEqual(['Hello', 'world']);
    expect(words[1]).toEqual({ text: 'world', start: 0.5, end: 0.9, chunkSeq: 0, index: 1, late: false });
  });

  it('a word handler that delivers the next snapshot (update inside advance) neither crashes the clock nor repeats a word', () => {
    const store = new AlignmentStore();
    const words: string[] = [];
    // The consumer writes the next event from its 'word' listener.
    const next = feedOnce(store, () => clock, {
      chunkSeq: 0,
      chunkAudioOffsetSec: 0,
      alignment: snap(['a', 0.1, 0.2], ['b', 0.3, 0.4], ['c', 0.5, 0.6]),
    });
    const clock: WordClock = new WordClock({
      onWord: (w) => {
        words.push(w.text);
        next();
      },
      onRevised: () => undefined,
    });
    clock.update(store.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['a', 0.1, 0.2], ['b', 0.3, 0.4]) })!);
    clock.advance(1);
    expect(words).toEqual(['a', 'b', 'c']);
    expect(clock.emittedCount).toBe(3);
  });

  it("late words: a word handler that delivers the same chunk's next snapshot gets each word once", () => {
    const store = new AlignmentStore();
    const words: string[] = [];
    const revised: string[] = [];
    // Inside the first late word: the next snapshot, with 'b' retimed later and 'c' gone.
    const next = feedOnce(store, () => clock, { chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['a', 0.1, 0.2], ['b', 2.0, 2.1]) });
    const clock: WordClock = new WordClock({
      onWord: (w) => {
        words.push(`${w.text}${w.late ? '!' : ''}`);
        next();
      },
      onRevised: (r) => revised.push(`${r.old.text}→${r.new?.text ?? '∅'}`),
    });
    clock.advance(1); // the playhead is past every word below before its snapshot arrives
    clock.update(store.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['a', 0.1, 0.2], ['b', 0.3, 0.4], ['c', 0.5, 0.6]) })!);
    clock.advance(3);
    // 'b' and 'c' of the superseded snapshot are not emitted late after the newer one was applied:
    // 'b' comes once, on time at 2.0 s, and 'c' never.
    expect(words).toEqual(['a!', 'b']);
    expect(revised).toEqual([]);
    expect(clock.emittedCount).toBe(2);
  });

  it("a revision handler that delivers the same chunk's next snapshot: no stale revision after the newer one", () => {
    const store = new AlignmentStore();
    const revised: string[] = [];
    const next = feedOnce(store, () => clock, { chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['a2', 0.1, 0.2], ['b3', 0.3, 0.4]) });
    const clock: WordClock = new WordClock({
      onWord: () => undefined,
      onRevised: (r) => {
        revised.push(`${r.old.text}→${r.new?.text ?? '∅'}`);
        next();
      },
    });
    clock.update(store.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['a', 0.1, 0.2], ['b', 0.3, 0.4]) })!);
    clock.advance(1);
    clock.update(store.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['a2', 0.1, 0.2], ['b2', 0.3, 0.4]) })!);
    // The b → b2 revision of the superseded update would land after b2 → b3 and leave a consumer at b2.
    expect(revised).toEqual(['a→a2', 'b2→b3']);
  });

  it('a revision handler that delivers another snapshot is not undone by the update that called it', () => {
    const store = new AlignmentStore();
    const revised: string[] = [];
    const words: string[] = [];
    const next = feedOnce(store, () => clock, { chunkSeq: 1, chunkAudioOffsetSec: 1, alignment: snap(['next', 0.1, 0.3]) });
    const clock: WordClock = new WordClock({
      onWord: (w) => words.push(w.text),
      onRevised: (r) => {
        revised.push(`${r.old.text}→${r.new?.text ?? '∅'}`);
        next();
      },
    });
    clock.update(store.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['helo', 0.1, 0.2]) })!);
    clock.advance(0.15); // 'helo' emitted
    clock.update(store.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: snap(['hello', 0.1, 0.2], ['there', 0.3, 0.4]) })!);
    clock.advance(5);
    expect(revised).toEqual(['helo→hello']);
    expect(words).toEqual(['helo', 'there', 'next']); // chunk 1's word survived the outer update
  });

  it('a word whose snapshot arrives after the playhead passed its start is emitted at once, late', () => {
    const { clock, words, apply } = setup();
    clock.advance(1);
    apply(0, 0, snap(['early', 0.2, 0.5], ['later', 1.2, 1.5]));
    expect(words.map((w) => [w.text, w.late])).toEqual([['early', true]]);
    clock.advance(1.3);
    expect(words.map((w) => [w.text, w.late])).toEqual([
      ['early', true],
      ['later', false],
    ]);
  });

  it('after most pending words are emitted, the next updates keep only the rest (the pending list shrinks)', () => {
    const { clock, words, apply } = setup();
    const first = (chunk: number, n: number) =>
      snap(...Array.from({ length: n }, (_, i): [string, number, number] => [`w${chunk}.${i}`, i * 0.3, i * 0.3 + 0.2]));
    apply(0, 0, first(0, 5));
    apply(1, 10, first(1, 5));
    clock.advance(1);
    apply(0, 0, first(0, 6));
    apply(1, 10, first(1, 6));
    clock.advance(20);
    apply(0, 0, first(0, 7));
    clock.finish();
    expect(words.map((w) => w.text)).toEqual([
      ...Array.from({ length: 6 }, (_, i) => `w0.${i}`),
      ...Array.from({ length: 6 }, (_, i) => `w1.${i}`),
      'w0.6',
    ]);
    expect(words.at(-1)!.late).toBe(true);
  });

  it('cumulative snapshots of several chunks, growing and interleaved, emit each final word once and in time order', () => {
    // Many updates of changing sizes reuse the clock's two pending arrays: no word may be lost,
    // repeated or left behind from an earlier update.
    const step = fc.record({
      chunk: fc.nat(3),
      count: fc.integer({ min: 1, max: 12 }),
      advance: fc.double({ min: 0, max: 0.5, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 60 }), (steps) => {
        const { clock, words, revisions, apply } = setup();
        const shown = [0, 0, 0, 0];
        let at = 0;
        for (const s of steps) {
          shown[s.chunk] = Math.max(shown[s.chunk]!, s.count); // cumulative: a snapshot only grows
          const ws = Array.from({ length: shown[s.chunk]! }, (_, i): [string, number, number] => [
            `w${s.chunk}.${i}`,
            i * 0.3,
            i * 0.3 + 0.2,
          ]);
          apply(s.chunk, s.chunk * 10, snap(...ws));
          clock.advance((at += s.advance));
        }
        clock.finish();
        const expected = shown.flatMap((n, c) => Array.from({ length: n }, (_, i) => `w${c}.${i}`));
        expect(words.map((w) => w.text).sort()).toEqual(expected.sort());
        expect(revisions).toEqual([]);
        const onTime = words.filter((w) => !w.late);
        for (let i = 1; i < onTime.length; i++) expect(onTime[i]!.start).toBeGreaterThanOrEqual(onTime[i - 1]!.start);
      }),
      { numRuns: 100 },
    );
  });

  it('snapshots that share their unchanged segment objects (as the scanner parses them) give the words, revisions and changes of fresh copies', () => {
    // The store reuses a word without reading it when its segment is the previous snapshot's own
    // object (offset unchanged), and the clock skips a word it emitted as that very object: the
    // result must be exactly that of snapshots whose every segment is a new object. Steps:
    // append words, correct the last word, change a middle word, drop words, move the offset,
    // repeat; over several chunks, the playhead moving between.
    type Seg = { text: string; start: number; end: number };
    const step = fc.record({
      chunk: fc.nat(2),
      kind: fc.constantFrom('append', 'correctLast', 'changeMiddle', 'drop', 'offset', 'repeat', 'null'),
      n: fc.integer({ min: 1, max: 4 }),
      advance: fc.double({ min: 0, max: 0.6, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 50 }), (steps) => {
        const shared = setup();
        const fresh = setup();
        const segs: Seg[][] = [[], [], []];
        const offsets = [0, 10, 20];
        const changes: unknown[][] = [[], []];
        let at = 0;
        let serial = 0;
        for (const st of steps) {
          const prev = segs[st.chunk]!;
          let next: Seg[] = prev.slice(); // unchanged segments: the same objects
          const word = (i: number): Seg => ({ text: `w${st.chunk}.${i}.${serial++}`, start: i * 0.3, end: i * 0.3 + 0.2 });
          if (st.kind === 'append') for (let k = 0; k < st.n; k++) next.push(word(next.length));
          else if (st.kind === 'correctLast' && next.length > 0)
            next[next.length - 1] = { ...next[next.length - 1]!, end: next[next.length - 1]!.end + 0.05 };
          else if (st.kind === 'changeMiddle' && next.length > 0) next[Math.floor(next.length / 2)] = word(Math.floor(next.length / 2));
          else if (st.kind === 'drop') next = next.slice(0, Math.max(0, next.length - st.n));
          else if (st.kind === 'offset') offsets[st.chunk] = offsets[st.chunk]! + st.n * 0.01;
          segs[st.chunk] = next;
          const alignment = st.kind === 'null' ? null : { audio_duration: next.length * 0.3, segments: next };
          const copy = alignment === null ? null : { audio_duration: alignment.audio_duration, segments: next.map((x) => ({ ...x })) };
          for (const [k, run, a] of [
            [0, shared, alignment],
            [1, fresh, copy],
          ] as const) {
            const change = run.store.apply({ chunkSeq: st.chunk, chunkAudioOffsetSec: offsets[st.chunk]!, alignment: a });
            changes[k]!.push(change === null ? null : { previous: [...change.previous], current: [...change.current] });
            if (change) run.clock.update(change);
            run.clock.advance(at + st.advance);
          }
          at += st.advance;
        }
        shared.clock.finish();
        fresh.clock.finish();
        expect(changes[0]).toEqual(changes[1]);
        expect(shared.words).toEqual(fresh.words);
        expect(shared.revisions).toEqual(fresh.revisions);
        expect(shared.store.timeline()).toEqual(fresh.store.timeline());
      }),
      { numRuns: 300 },
    );
  });

  it('each word is emitted exactly once, in time order across chunks, however often snapshots repeat', () => {
    const { clock, words, apply } = setup();
    apply(1, 1, snap(['c', 0, 0.2]));
    apply(0, 0, snap(['a', 0, 0.3]));
    apply(0, 0, snap(['a', 0, 0.3], ['b', 0.5, 0.9]));
    apply(0, 0, snap(['a', 0, 0.3], ['b', 0.5, 0.9]));
    clock.advance(5);
    apply(0, 0, snap(['a', 0, 0.3], ['b', 0.5, 0.9]));
    expect(words.map((w) => w.text)).toEqual(['a', 'b', 'c']);
    expect(clock.emittedCount).toBe(3);
  });

  it('a later snapshot that changes an emitted word emits wordRevised with old and new', () => {
    const { clock, words, revisions, apply } = setup();
    apply(0, 0, snap(['Hello', 0, 0.3], ['wor', 0.3, 0.4]));
    clock.advance(0.5);
    apply(0, 0, snap(['Hello', 0, 0.3], ['world', 0.3, 0.7]));
    expect(words).toHaveLength(2);
    expect(revisions).toEqual([
      {
        old: { text: 'wor', start: 0.3, end: 0.4, chunkSeq: 0, index: 1, late: false },
        new: { text: 'world', start: 0.3, end: 0.7, chunkSeq: 0, index: 1, late: false },
      },
    ]);
  });

  it('a later snapshot that removes an emitted word emits wordRevised with new: null', () => {
    const { clock, revisions, apply } = setup();
    apply(0, 0, snap(['a', 0, 0.1], ['b', 0.1, 0.2]));
    clock.advance(1);
    apply(0, 0, snap(['a', 0, 0.1]));
    expect(revisions).toEqual([{ old: expect.objectContaining({ text: 'b' }), new: null }]);
  });

  it('a change to a word not yet emitted is silent: the word comes once, as revised', () => {
    const { clock, words, revisions, apply } = setup();
    apply(0, 0, snap(['a', 0.5, 0.6]));
    apply(0, 0, snap(['a', 0.7, 0.8]));
    clock.advance(0.65);
    expect(words).toEqual([]);
    clock.advance(0.75);
    expect(words.map((w) => w.start)).toEqual([0.7]);
    expect(revisions).toEqual([]);
  });

  it('finish() emits the words still pending (starting at or after the end of the audio)', () => {
    const { clock, words, apply } = setup();
    apply(0, 0, snap(['a', 0, 0.1], ['b', 1, 1.1]));
    clock.advance(1);
    clock.finish();
    expect(words.map((w) => [w.text, w.late])).toEqual([
      ['a', false],
      ['b', false],
    ]);
  });
});

describe('Playhead', () => {
  it("in 'external' mode only advanceTo moves it, forward only, in output samples", () => {
    const p = new Playhead('external');
    const seen: number[] = [];
    p.onAdvance((s) => seen.push(s));
    p.advanceTo(800); // before the rate is known: remembered
    expect(p.position).toBe(800);
    p.setSampleRate(8000);
    p.consumedTo(4000); // reads do not move an external playhead
    p.advanceTo(1600);
    p.advanceTo(100); // backwards: ignored
    expect(p.position).toBe(1600);
    expect(seen).toEqual([0.1, 0.2]);
    expect(() => p.advanceTo(Number.NaN)).toThrow(InvalidOptionError);
  });

  it("in 'consumer' mode reads move it and advanceTo is refused", () => {
    const p = new Playhead();
    p.setSampleRate(16000);
    p.consumedTo(320);
    expect(p.seconds).toBe(0.02);
    expect(() => p.advanceTo(640)).toThrow(InvalidOptionError);
  });
});

describe('WordClock ordering across updates', () => {
  it('words listed out of time order, and pending words of other chunks, still come out in time order', () => {
    const { clock, words, apply } = setup();
    apply(1, 1, snap(['later', 0.5, 0.6]));
    apply(0, 0, snap(['two', 0.4, 0.5], ['one', 0.1, 0.2]));
    apply(0, 0, snap(['two', 0.4, 0.5], ['one', 0.1, 0.2], ['three', 0.8, 0.9]));
    clock.advance(3);
    expect(words.map((w) => w.text)).toEqual(['one', 'two', 'three', 'later']);
  });

  it('late words of one update are emitted in time order', () => {
    const { clock, words, apply } = setup();
    clock.advance(1);
    apply(0, 0, snap(['b', 0.6, 0.7], ['a', 0.2, 0.3], ['c', 1.5, 1.6]));
    expect(words.map((w) => [w.text, w.late])).toEqual([
      ['a', true],
      ['b', true],
    ]);
    clock.advance(2);
    expect(words.map((w) => w.text)).toEqual(['a', 'b', 'c']);
  });
});

describe('WordClock revisions of late words', () => {
  it('a revised or removed late word still says late: true, old and new', () => {
    const { clock, revisions, apply } = setup();
    clock.advance(1);
    apply(0, 0, snap(['a', 0.2, 0.3], ['b', 0.4, 0.5]));
    apply(0, 0, snap(['A', 0.2, 0.3]));
    expect(revisions).toEqual([
      {
        old: { text: 'a', start: 0.2, end: 0.3, chunkSeq: 0, index: 0, late: true },
        new: { text: 'A', start: 0.2, end: 0.3, chunkSeq: 0, index: 0, late: true },
      },
      { old: { text: 'b', start: 0.4, end: 0.5, chunkSeq: 0, index: 1, late: true }, new: null },
    ]);
    apply(0, 0, snap(['A!', 0.2, 0.3]));
    expect(revisions[2]).toEqual({
      old: { text: 'A', start: 0.2, end: 0.3, chunkSeq: 0, index: 0, late: true },
      new: { text: 'A!', start: 0.2, end: 0.3, chunkSeq: 0, index: 0, late: true },
    });
  });
});
