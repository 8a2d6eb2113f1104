/**
 * Word timings per `chunk_seq`, following every alignment rule of the spec:
 *
 * 1. the latest non-null snapshot of a chunk replaces the previous one (segments are never
 *    appended across snapshots);
 * 2. `null` never erases a snapshot;
 * 3. an identical repeat is a cheap no-op (the scanner flags byte-identical repeats, which are
 *    not even parsed; a same-object or equal snapshot also changes nothing);
 * 4. global time = local time + `chunk_audio_offset_sec` of the chunk;
 * 5. a stream may hold several chunks;
 * 6. a trailing event with empty audio may still correct the last snapshot (it is a snapshot
 *    like any other: audio bytes play no part here).
 *
 * Pure core: no streams, no timers.
 * @see docs/service-interface.md#speech-stream-events (the rules)
 */

/** The alignment object of a speech stream event (structurally the events module's `Alignment`). */
export interface AlignmentSnapshot {
  audio_duration: number;
  segments: ReadonlyArray<{ text: string; start: number; end: number }>;
}

/** One word of the global timeline (seconds from the start of the whole audio). */
export interface TimelineWord {
  text: string;
  start: number;
  end: number;
  chunkSeq: number;
  /** Position of the word in its chunk's latest snapshot. `(chunkSeq, index)` names a word. */
  index: number;
}

/** What one event tells the store (the scanner's `SpeechEventMeta` fits). */
export interface AlignmentInput {
  chunkSeq: number;
  chunkAudioOffsetSec: number;
  alignment: AlignmentSnapshot | null;
  /** Byte-identical to the previous non-null snapshot of this chunk: skipped without work. */
  alignmentRepeat?: boolean;
}

/** A chunk whose words changed: the words before and after (global times). */
export interface AlignmentChange {
  chunkSeq: number;
  previous: readonly TimelineWord[];
  current: readonly TimelineWord[];
}

export interface ChunkAlignment {
  chunkSeq: number;
  offsetSec: number;
  /** The latest non-null snapshot, as received (local times). */
  snapshot: AlignmentSnapshot | null;
  words: readonly TimelineWord[];
}

export interface AlignmentStats {
  /** Snapshots that replaced the words of a chunk. */
  applied: number;
  /** Repeats and equal snapshots skipped. */
  repeats: number;
  /** Events with `alignment: null` (they never erase). */
  nulls: number;
}

const NO_WORDS: readonly TimelineWord[] = Object.freeze([]);

function sameWords(a: readonly TimelineWord[], b: readonly TimelineWord[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as TimelineWord;
    const y = b[i] as TimelineWord;
    // The same object is the same word: not read (see toWords: a cold word costs a cache miss).
    if (x === y) continue;
    if (x.text !== y.text || x.start !== y.start || x.end !== y.end) return false;
  }
  return true;
}

/**
 * Orders words by global start; ties by chunk, then position. Returns -1, 0 or 1 (small
 * integers: a float difference would be a heap number per comparison inside `sort`).
 */
export function compareWords(a: TimelineWord, b: TimelineWord): number {
  if (a.start !== b.start) return a.start < b.start ? -1 : 1;
  if (a.chunkSeq !== b.chunkSeq) return a.chunkSeq < b.chunkSeq ? -1 : 1;
  return a.index < b.index ? -1 : a.index > b.index ? 1 : 0;
}

/**
 * Feed it every event (the scanner's metas fit); read the final timeline, or the word at a time.
 * @example
 * ```ts
 * const store = new AlignmentStore();
 * store.apply({ chunkSeq: 0, chunkAudioOffsetSec: 0, alignment: { audio_duration: 0.6, segments: [{ text: 'Hi', start: 0, end: 0.3 }] } });
 * store.apply({ chunkSeq: 1, chunkAudioOffsetSec: 0.6, alignment: null }); // null never erases
 * store.timeline(); // [{ text: 'Hi', start: 0, end: 0.3, chunkSeq: 0, index: 0 }]
 * store.wordAt(0.1)?.text; // 'Hi'
 * ```
 */
export class AlignmentStore {
  private readonly chunks = new Map<number, ChunkAlignment>();
  private sorted: TimelineWord[] | null = [];
  readonly stats: AlignmentStats = { applied: 0, repeats: 0, nulls: 0 };

  /** Applies one event; returns the change when the chunk's words changed, else null. */
  apply(input: AlignmentInput): AlignmentChange | null {
    const { chunkSeq, chunkAudioOffsetSec: offsetSec, alignment } = input;
    let chunk = this.chunks.get(chunkSeq);
    if (chunk === undefined) {
      chunk = { chunkSeq, offsetSec, snapshot: null, words: NO_WORDS };
      this.chunks.set(chunkSeq, chunk);
    }
    let snapshot = chunk.snapshot;
    if (alignment === null) {
      this.stats.nulls++; // Rule: null never erases.
    } else if (input.alignmentRepeat === true || alignment === snapshot) {
      this.stats.repeats++; // Rule: a repeat of the latest snapshot is a no-op.
    } else {
      snapshot = alignment; // Rule: the latest non-null snapshot replaces the previous one.
    }
    if (snapshot === chunk.snapshot && offsetSec === chunk.offsetSec) return null;
    const previous = chunk.words;
    const words =
      snapshot === null
        ? NO_WORDS
        : toWords(snapshot, chunkSeq, offsetSec, previous, offsetSec === chunk.offsetSec ? chunk.snapshot : null);
    chunk.snapshot = snapshot;
    chunk.offsetSec = offsetSec;
    if (sameWords(previous, words)) {
      if (alignment !== null && alignment === snapshot) this.stats.repeats++; // an equal snapshot
      return null;
    }
    chunk.words = words;
    this.stats.applied++;
    this.sorted = null;
    return { chunkSeq, previous, current: words };
  }

  /** The final word timeline: every chunk's latest words, sorted by global start. */
  timeline(): readonly TimelineWord[] {
    if (this.sorted === null) {
      const all: TimelineWord[] = [];
      for (const chunk of this.chunks.values()) for (const w of chunk.words) all.push(w);
      this.sorted = all.sort(compareWords);
    }
    return this.sorted;
  }

  /** The word being spoken at global time `t` (seconds): the latest word starting at or before t, if t is before its end. */
  wordAt(t: number): TimelineWord | null {
    const words = this.timeline();
    let lo = 0;
    let hi = words.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((words[mid] as TimelineWord).start <= t) lo = mid + 1;
      else hi = mid;
    }
    if (lo === 0) return null;
    const w = words[lo - 1] as TimelineWord;
    // In a gap between words (t at or after the end) there is no word; a zero-length word owns its instant.
    if (t < w.end || (t === w.start && w.start === w.end)) return w;
    return null;
  }

  chunk(chunkSeq: number): ChunkAlignment | undefined {
    return this.chunks.get(chunkSeq);
  }

  get chunkCount(): number {
    return this.chunks.size;
  }

  clear(): void {
    this.chunks.clear();
    this.sorted = [];
  }
}

/**
 * The snapshot's words in global time. A word equal to the one at its index in `previous` is
 * that same object: cumulative snapshots repeat every earlier word, so only new words are
 * allocated (per event, and for the timeline that lives as long as the stream).
 *
 * `from` is the snapshot `previous` was made from, when the offset is unchanged (else null): its
 * leading segments that are the same objects as the new snapshot's (the scanner's incremental
 * parse shares them, `SpeechEventMeta.alignment`) give `previous`'s words as they are, without
 * reading either object. Segments are values (read-only, like a same-object snapshot in
 * {@link AlignmentStore.apply}); reading each word of a long chunk's snapshot on every change was
 * a cache miss per word at telephony load (native-notes/engine-performance.md, "The event stage
 * in the phone loop", 2026-11-29).
 */
function toWords(
  snapshot: AlignmentSnapshot,
  chunkSeq: number,
  offsetSec: number,
  previous: readonly TimelineWord[],
  from: AlignmentSnapshot | null,
): TimelineWord[] {
  const segments = snapshot.segments;
  const n = segments.length;
  const out: TimelineWord[] = new Array(n);
  let i = 0;
  if (from !== null) {
    const shared = Math.min(n, from.segments.length, previous.length);
    while (i < shared && segments[i] === from.segments[i]) {
      out[i] = previous[i] as TimelineWord;
      i++;
    }
  }
  for (; i < n; i++) {
    const s = segments[i] as { text: string; start: number; end: number };
    // Rule: global time = local time + chunk_audio_offset_sec.
    const start = s.start + offsetSec;
    const end = s.end + offsetSec;
    const p = previous[i];
    out[i] =
      p !== undefined && p.start === start && p.end === end && p.text === s.text ? p : { text: s.text, start, end, chunkSeq, index: i };
  }
  return out;
}
