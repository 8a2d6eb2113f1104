/**
 * Emits each word once, in time order, when the playhead reaches its start; late words (whose
 * snapshot arrives after the playhead passed their start) at once with `late: true`; and a
 * revision when a later snapshot changes or removes a word already emitted.
 *
 * "Reached" means the audio read so far covers the word's start: `start < position`, where
 * `position` is the end of the last frame read. Pure core: the pipeline feeds it alignment
 * changes and playhead positions.
 */
import { compareWords, type AlignmentChange, type TimelineWord } from '../align/AlignmentStore.js';

export interface WordEvent {
  text: string;
  /** Global seconds. */
  start: number;
  end: number;
  chunkSeq: number;
  /** Position of the word in its chunk's snapshot; `(chunkSeq, index)` names the word. */
  index: number;
  /** The word's snapshot arrived after the playhead had passed its start. */
  late: boolean;
}

export interface WordRevision {
  old: WordEvent;
  /** The word as it is now, or null when the later snapshot removed it. */
  new: WordEvent | null;
}

export interface WordClockHandlers {
  onWord(word: WordEvent): void;
  onRevised(revision: WordRevision): void;
}

/**
 * @example
 * ```ts
 * const store = new AlignmentStore();
 * const clock = new WordClock({ onWord: (w) => console.log(w.text, w.late), onRevised: (r) => console.log('revised', r) });
 * const change = store.apply(meta); // from each speech event
 * if (change !== null) clock.update(change);
 * clock.advance(playedSeconds); // from the playhead: words starting before it are emitted
 * ```
 */
export class WordClock {
  /** Words not yet emitted, sorted by start; `head` is the next one. */
  private pending: TimelineWord[] = [];
  /** The other pending array: update() rebuilds into it, then the two swap. */
  private spare: TimelineWord[] = [];
  private head = 0;
  /** Emitted words per chunk, by index. */
  /**
   * Emitted words per chunk, by index: the timeline word as emitted (the store's own object, so
   * an hour of words costs no second copy here), and which of them were emitted late.
   */
  private readonly emitted = new Map<number, Array<TimelineWord | undefined>>();
  private readonly lateWords = new WeakSet<TimelineWord>();
  private seconds = 0;
  /**
   * The start of the next pending word (Infinity when none): advance() runs for every frame read,
   * and with this it touches only the clock itself until a word is due (per-stream memory is
   * cold at telephony load: native-notes/engine-performance.md, tenth pass).
   */
  private nextStart = Infinity;
  private count = 0;
  /**
   * Updates whose handlers are running, innermost last. A handler may re-enter update() (a
   * consumer that writes the next event from its listener); a newer snapshot of the same chunk
   * supersedes the rest of an older update's revisions and late words (it classified that chunk's
   * words itself), so those are dropped rather than emitted twice or after it.
   */
  private readonly running: Array<{ chunkSeq: number; superseded: boolean }> = [];

  constructor(private readonly handlers: WordClockHandlers) {}

  /** Seconds the playhead has reached. */
  get position(): number {
    return this.seconds;
  }
  /** Words emitted so far. */
  get emittedCount(): number {
    return this.count;
  }

  /** The playhead reached `seconds`: emit every pending word that starts before it. */
  advance(seconds: number): void {
    if (seconds > this.seconds) this.seconds = seconds;
    if (this.nextStart >= this.seconds) return; // no word due (the loop below would find none)
    // `this.pending` is read again on every pass: a word handler may re-enter update() (a
    // consumer that writes the next event from its 'word' listener), which swaps the list.
    for (;;) {
      const word = this.pending[this.head];
      if (word === undefined || word.start >= this.seconds) break;
      this.head++;
      this.emit(word, false);
    }
    this.nextStart = this.pending[this.head]?.start ?? Infinity;
  }

  /**
   * A chunk's words changed (from {@link AlignmentStore.apply}).
   *
   * Runs once per changed snapshot (every event of a cumulative stream), so it allocates
   * nothing in the usual case: the pending list is rebuilt into a spare array (the two swap),
   * and sorted only when the words are out of order. The spare is cleared slot by slot and
   * rebuilt by index, never with `length = 0`: that drops V8's backing store, and every update
   * then grew a new one (≈ 1.5 KB per event of a long stream).
   *
   * Handlers run only once the new list is in place (revisions and late words are collected
   * first), so a handler that re-enters update() sees a consistent clock and is not undone; one
   * that delivers the same chunk's next snapshot ends this update's handlers (see `running`).
   */
  update(change: AlignmentChange): void {
    const { chunkSeq, current } = change;
    for (const run of this.running) if (run.chunkSeq === chunkSeq) run.superseded = true;
    let done = this.emitted.get(chunkSeq);
    if (done === undefined) this.emitted.set(chunkSeq, (done = []));
    // Pending words of other chunks stay; this chunk's are replaced by `current`.
    const pending = this.pending;
    const next = this.spare; // no handler runs until the two have swapped (see below)
    let n = 0;
    for (let i = this.head; i < pending.length; i++) {
      const w = pending[i] as TimelineWord;
      if (w.chunkSeq !== chunkSeq) next[n++] = w;
    }
    let late: TimelineWord[] | null = null;
    let revisions: WordRevision[] | null = null;
    for (let i = 0; i < current.length; i++) {
      const word = current[i] as TimelineWord;
      // Already emitted as this very object (a cumulative snapshot's unchanged word: the store
      // hands back the same object): nothing to do, and the word is not read. A word is kept at
      // its own index, so `done[i] === word` means `word.index === i`. Reading every word of a
      // long chunk on each change was a cache miss per word at telephony load.
      if (done[i] === word) continue;
      const old = done[word.index];
      if (old !== undefined) {
        if (old.text !== word.text || old.start !== word.start || old.end !== word.end) {
          const late = this.lateWords.has(old);
          if (late) this.lateWords.add(word);
          done[word.index] = word;
          (revisions ??= []).push({ old: toEvent(old, late), new: toEvent(word, late) });
        }
      } else if (word.start < this.seconds) {
        (late ??= []).push(word);
      } else {
        next[n++] = word;
      }
    }
    next.length = n;
    for (let i = current.length; i < done.length; i++) {
      const old = done[i];
      if (old === undefined) continue;
      done[i] = undefined;
      this.count--;
      (revisions ??= []).push({ old: toEvent(old, this.lateWords.has(old)), new: null });
    }
    if (done.length > current.length) done.length = current.length;
    sortWords(next);
    pending.fill(undefined as unknown as TimelineWord); // keeps its capacity, holds no word
    this.spare = pending;
    this.pending = next;
    this.head = 0;
    this.nextStart = next[0]?.start ?? Infinity;
    if (revisions === null && late === null) return;
    const run = { chunkSeq, superseded: false };
    this.running.push(run);
    try {
      if (revisions !== null) for (const revision of revisions) if (!run.superseded) this.handlers.onRevised(revision);
      if (late !== null) for (const word of sortWords(late)) if (!run.superseded) this.emit(word, true);
    } finally {
      this.running.pop();
    }
  }

  /** End of the audio: the words still pending (starting at or after its end) are reached now. */
  finish(): void {
    while (this.head < this.pending.length) this.emit(this.pending[this.head++] as TimelineWord, false);
    this.nextStart = Infinity;
  }

  private emit(word: TimelineWord, late: boolean): void {
    const event = toEvent(word, late);
    let done = this.emitted.get(word.chunkSeq);
    if (done === undefined) this.emitted.set(word.chunkSeq, (done = []));
    done[word.index] = word;
    if (late) this.lateWords.add(word);
    this.count++;
    this.handlers.onWord(event);
  }
}

function toEvent(word: TimelineWord, late: boolean): WordEvent {
  return { text: word.text, start: word.start, end: word.end, chunkSeq: word.chunkSeq, index: word.index, late };
}

/** Sorts by {@link compareWords} unless already in order (the usual case: a snapshot lists its words in time order). */
function sortWords(words: TimelineWord[]): TimelineWord[] {
  for (let i = 1; i < words.length; i++) {
    if (compareWords(words[i - 1] as TimelineWord, words[i] as TimelineWord) > 0) return words.sort(compareWords);
  }
  return words;
}
