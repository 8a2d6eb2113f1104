/**
 * Word times of one text chunk, from espeak's event stream (pure core, no I/O).
 *
 * - A word (group) starts at espeak's first `word` event whose text position falls in the
 *   group's range of the SSML (so "42", spoken "forty two", is one word).
 * - espeak has no word-end event: a word ends at the event that follows its last non-empty
 *   phoneme; the `e{i}` mark placed right after each word is usually that event, so the pause
 *   phonemes after "world," do not count.
 * - espeak runs some short words into the word before with no `word` event of their own ("I am"
 *   → one word event, its end marks `e1` and `e2` at the same instant; "it is," → the second
 *   event's text position still inside "it"). Such a skipped group shares the span of the word
 *   it was spoken with, by length. Only a group with no spoken word before it gets a zero-length
 *   time where the next word starts, so every word of the text is in the timeline, in order.
 * - A multi-word group (dictionary match) is shared among its words by length.
 */
import type { EspeakEvent } from './SpeechEngine.js';

export interface TimedWord {
  text: string;
  start: number;
  end: number;
}

const MS = 1000;

export class WordTimer {
  private readonly done: TimedWord[] = [];
  private current = -1;
  private next = 0;
  private start = 0;
  private end: number | null = null;
  private endPending = false;
  /** The group emitted last with a real span, where in `done` its words begin, and that span. */
  private last: { group: number; first: number; startMs: number; endMs: number } | null = null;
  /** espeak word events outside every word's range (e.g. a stray "dot"): a diagnostic, 0 normally. */
  strayWords = 0;

  constructor(
    private readonly groups: string[][],
    private readonly ranges: [number, number][],
  ) {}

  /** Words whose end is known, in order, chunk-local seconds. */
  get words(): readonly TimedWord[] {
    return this.done;
  }

  private groupAt(pos: number): number {
    for (let g = Math.max(0, this.current); g < this.ranges.length; g++) {
      const [from, to] = this.ranges[g]!;
      if (pos >= from && pos < to) return g;
      if (from > pos) break;
    }
    return -1;
  }

  push(events: readonly EspeakEvent[]): void {
    for (const [type, ms, name, pos] of events) {
      if (this.endPending) {
        this.end = ms;
        this.endPending = false;
      }
      if (type === 'word') {
        const g = this.groupAt(pos);
        if (g < 0) this.strayWords++;
        if (g > this.current) {
          this.close(ms);
          this.emitSkipped(g, ms);
          this.current = g;
          this.next = g + 1;
          this.start = ms;
          this.end = null;
        }
      } else if (type === 'phoneme' && this.current >= 0 && name.trim() !== '') {
        this.endPending = true;
      } else if (type === 'mark' && name === `e${this.current}`) {
        this.close(ms);
      }
    }
  }

  /** Closes an open word at the end of the chunk's audio (`ms`) and adds any never spoken. */
  finish(ms: number): readonly TimedWord[] {
    this.close(ms);
    this.emitSkipped(this.groups.length, ms);
    return this.done;
  }

  private close(ms: number): void {
    if (this.current < 0) return;
    const end = this.endPending ? ms : (this.end ?? ms);
    this.endPending = false;
    this.last = { group: this.current, first: this.done.length, startMs: this.start, endMs: end };
    this.emit(this.current, this.current, this.start, end);
    this.current = -1;
  }

  /** Groups `next … before-1` got no word event of their own. */
  private emitSkipped(before: number, ms: number): void {
    if (this.next >= before) return;
    const last = this.last;
    if (last !== null && last.group === this.next - 1) {
      // Spoken together with the word before: share that word's span.
      this.done.length = last.first;
      this.emit(last.group, before - 1, last.startMs, last.endMs);
    } else {
      for (let g = this.next; g < before; g++) this.emit(g, g, ms, ms);
    }
    this.next = before;
    this.last = null;
  }

  /** Words of groups `from … to` over one span, shared by length. */
  private emit(from: number, to: number, startMs: number, endMs: number): void {
    const words = this.groups.slice(from, to + 1).flat();
    const total = words.reduce((n, w) => n + Math.max(1, w.length), 0);
    let t = startMs;
    for (const w of words) {
      const next = t + ((endMs - startMs) * Math.max(1, w.length)) / total;
      this.done.push({ text: w, start: t / MS, end: next / MS });
      t = next;
    }
  }
}
