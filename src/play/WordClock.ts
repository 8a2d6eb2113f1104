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
  private head = 0;
  /** Emitted words per chunk, by index. */
  private readonly emitted = new Map<number, Array<WordEvent | undefined>>();
  private seconds = 0;
  private count = 0;

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
    const pending = this.pending;
    while (this.head < pending.length && (pending[this.head] as TimelineWord).start < this.seconds) {
      this.emit(pending[this.head++] as TimelineWord, false);
    }
  }

  /** A chunk's words changed (from {@link AlignmentStore.apply}). */
  update(change: AlignmentChange): void {
    const { chunkSeq, current } = change;
    const done = this.emitted.get(chunkSeq) ?? [];
    this.emitted.set(chunkSeq, done);
    const keep = this.pending.slice(this.head).filter((w) => w.chunkSeq !== chunkSeq);
    const late: TimelineWord[] = [];
    for (const word of current) {
      const old = done[word.index];
      if (old !== undefined) {
        if (old.text !== word.text || old.start !== word.start || old.end !== word.end) {
          const revised: WordEvent = { ...word, late: old.late };
          done[word.index] = revised;
          this.handlers.onRevised({ old, new: revised });
        }
      } else if (word.start < this.seconds) {
        late.push(word);
      } else {
        keep.push(word);
      }
    }
    for (let i = current.length; i < done.length; i++) {
      const old = done[i];
      if (old === undefined) continue;
      done[i] = undefined;
      this.count--;
      this.handlers.onRevised({ old, new: null });
    }
    done.length = Math.min(done.length, current.length);
    this.pending = keep.sort(compareWords);
    this.head = 0;
    for (const word of late.sort(compareWords)) this.emit(word, true);
  }

  /** End of the audio: the words still pending (starting at or after its end) are reached now. */
  finish(): void {
    while (this.head < this.pending.length) this.emit(this.pending[this.head++] as TimelineWord, false);
  }

  private emit(word: TimelineWord, late: boolean): void {
    const event: WordEvent = { text: word.text, start: word.start, end: word.end, chunkSeq: word.chunkSeq, index: word.index, late };
    let done = this.emitted.get(word.chunkSeq);
    if (done === undefined) this.emitted.set(word.chunkSeq, (done = []));
    done[word.index] = event;
    this.count++;
    this.handlers.onWord(event);
  }
}
