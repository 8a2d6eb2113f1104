/**
 * Grouping words into caption cues, shared by the WebVTT and SRT writers and the TTY renderer so
 * that a line on screen is the same line as in the subtitle file.
 *
 * A cue is what a viewer reads at once: at most {@link MAX_LINES} lines of {@link MAX_LINE_CHARS}
 * characters and {@link MAX_CUE_SEC} seconds, one sentence or part of one (a longer sentence is
 * cut at clause ends where it can be). With the source text the words read as written: see
 * sourceText.ts for the alignment, cueBreaks.ts for sentence and clause ends, cueLayout.ts for the
 * cut.
 */
import { breakAfter, BreakKind } from './cueBreaks.js';
import { breakLines, splitSentence, splitSentenceGreedy, type LayoutItem, type LayoutLimits } from './cueLayout.js';
import { alignToSource } from './sourceText.js';

/** A timed word, as the pipeline's `word` events and `alignment.timeline()` give them. */
export interface CaptionWord {
  text: string;
  /** Seconds from the start of the audio. */
  start: number;
  end: number;
  /** Text chunk the word belongs to; a new chunk starts a new cue. */
  chunkSeq?: number;
}

export interface CaptionCue {
  start: number;
  end: number;
  /** The timed words, as given. */
  words: CaptionWord[];
  /**
   * What each word of `words` shows: its form in the source text (casing, punctuation, quotes)
   * when `sourceText` was given and the word was found there, else its own text.
   */
  texts: string[];
  /** Where each line begins, as an index into `words`: `[0]` for a one-line cue. */
  lineStarts: number[];
}

export interface CueOptions {
  /**
   * The text that was spoken (the request's `text`). Cue text then takes each word's punctuation
   * and casing from it, and cues end at its sentence ends; without it cues show the words as the
   * alignment gives them.
   */
  sourceText?: string;
  /** Characters per line. @defaultValue 42 ({@link MAX_LINE_CHARS}) */
  maxChars?: number;
  /** Lines per cue. @defaultValue 2 ({@link MAX_LINES}) */
  maxLines?: number;
  /** From a cue's first word start to its end. @defaultValue 7 s ({@link MAX_CUE_SEC}) */
  maxCueSec?: number;
  /** Words per cue. @defaultValue no limit */
  maxWords?: number;
  /** A silence longer than this starts a new cue. @defaultValue 0.8 s */
  maxGapSec?: number;
  /**
   * A cue shorter than this stays up longer, into the silence after it (never past the next cue's
   * start; the last cue is never extended, as the audio may end with it).
   * @defaultValue {@link MIN_DISPLAY_SEC} with `sourceText`, else 0 (cues end as their words do)
   */
  minDisplaySec?: number;
}

/** The common broadcast and web line length (characters). */
export const MAX_LINE_CHARS = 42;
export const MAX_LINES = 2;
/** A cue up longer than this is hard to follow (the usual subtitle guideline). */
export const MAX_CUE_SEC = 7;
/** Shorter than this, a cue flashes by before it can be read. */
export const MIN_DISPLAY_SEC = 0.8;
export const DEFAULT_MAX_CUE_GAP_SEC = 0.8;
/** A cue whose words all have zero length still shows for this long. */
export const MIN_CUE_SEC = 0.001;

const MS_PER_SEC = 1000;
const SEC_PER_MIN = 60;
const MIN_PER_HOUR = 60;
const WHITE_SPACE = /\s+/g;

/** How {@link layoutCues} ends cues within a sentence. */
export type CueSplit = 'balanced' | 'greedy';

/**
 * Splits a timeline (sorted by start) into cues, never splitting a word and never letting a cue
 * run across a sentence end, a silence longer than `maxGapSec` or (without `sourceText`) a new
 * text chunk.
 *
 * @example
 * ```ts
 * const cues = groupIntoCues(stream.alignment.timeline(), { sourceText: request.text });
 * cues.map((c) => cueLines(c).join('\n'));
 * ```
 */
export function groupIntoCues(words: readonly CaptionWord[], options: CueOptions = {}): CaptionCue[] {
  return layoutCues(words, options, 'balanced');
}

/**
 * {@link groupIntoCues} with a choice of split: `'greedy'` fills each cue until the next word does
 * not fit, so adding words at the end never moves an earlier cue (for a caption line that grows
 * as words are heard).
 */
export function layoutCues(words: readonly CaptionWord[], options: CueOptions, split: CueSplit): CaptionCue[] {
  const limits: LayoutLimits = {
    maxChars: options.maxChars ?? MAX_LINE_CHARS,
    maxLines: options.maxLines ?? MAX_LINES,
    maxCueSec: options.maxCueSec ?? MAX_CUE_SEC,
    maxWords: options.maxWords ?? Infinity,
  };
  const maxGap = options.maxGapSec ?? DEFAULT_MAX_CUE_GAP_SEC;
  const bare = words.map((w) => w.text.replace(WHITE_SPACE, ' '));
  const texts = options.sourceText === undefined ? bare : alignToSource(bare, options.sourceText);
  const items: LayoutItem[] = words.map((w, i) => {
    const next = words[i + 1];
    let brk: BreakKind = BreakKind.Sentence;
    if (next !== undefined) {
      const gap = next.start - w.end;
      const newChunk =
        options.sourceText === undefined && w.chunkSeq !== undefined && next.chunkSeq !== undefined && w.chunkSeq !== next.chunkSeq;
      if (gap <= maxGap && !newChunk) brk = breakAfter(texts[i]!, texts[i + 1], gap);
    }
    return { width: [...texts[i]!].length, start: w.start, end: w.end, brk };
  });

  const cues: CaptionCue[] = [];
  for (let from = 0; from < items.length;) {
    let to = from + 1;
    while (items[to - 1]!.brk !== BreakKind.Sentence) to++;
    const starts = split === 'greedy' ? splitSentenceGreedy(items, from, to, limits) : splitSentence(items, from, to, limits);
    starts.forEach((a, k) => {
      const b = starts[k + 1] ?? to;
      const cueWords = words.slice(a, b);
      cues.push({
        start: cueWords[0]!.start,
        end: Math.max(...cueWords.map((w) => w.end)),
        words: cueWords,
        texts: texts.slice(a, b),
        lineStarts: breakLines(items, a, b, limits.maxChars),
      });
    });
    from = to;
  }
  settleTimes(cues, limits.maxCueSec, options.minDisplaySec ?? (options.sourceText === undefined ? 0 : MIN_DISPLAY_SEC));
  return cues;
}

/**
 * Cues never overlap (players stack overlapping cues), never have zero length and never outlast
 * `maxCueSec`; a short cue stays up into the silence after it. A cue may start up to
 * {@link MIN_CUE_SEC} late when the one before it had zero length.
 */
function settleTimes(cues: CaptionCue[], maxCueSec: number, minDisplaySec: number): void {
  let prevEnd = 0;
  for (let i = 0; i < cues.length; i++) {
    const cue = cues[i]!;
    const next = cues[i + 1];
    cue.start = Math.max(cue.start, prevEnd);
    if (next !== undefined) {
      if (cue.end > next.start) cue.end = next.start;
      if (cue.end - cue.start < minDisplaySec) cue.end = Math.max(cue.end, Math.min(next.start, cue.start + minDisplaySec));
    }
    cue.end = Math.min(cue.end, cue.start + maxCueSec);
    if (cue.end < cue.start + MIN_CUE_SEC) cue.end = cue.start + MIN_CUE_SEC;
    prevEnd = cue.end;
  }
}

/**
 * The lines of a cue, each word shown as `render` returns it (default: its caption text), words
 * joined by a space.
 */
export function cueLines(cue: CaptionCue, render: (text: string, word: CaptionWord, index: number) => string = (text) => text): string[] {
  return cue.lineStarts.map((a, k) => {
    const b = cue.lineStarts[k + 1] ?? cue.words.length;
    const parts: string[] = [];
    for (let i = a; i < b; i++) parts.push(render(cue.texts[i]!, cue.words[i]!, i));
    return parts.join(' ');
  });
}

/** `hh:mm:ss.mmm` (WebVTT) or `hh:mm:ss,mmm` (SRT); negative times clamp to zero. */
export function formatTimestamp(seconds: number, fractionSeparator: '.' | ','): string {
  const totalMs = Math.max(0, Math.round(seconds * MS_PER_SEC));
  const ms = totalMs % MS_PER_SEC;
  const totalSec = Math.floor(totalMs / MS_PER_SEC);
  const sec = totalSec % SEC_PER_MIN;
  const totalMin = Math.floor(totalSec / SEC_PER_MIN);
  const min = totalMin % MIN_PER_HOUR;
  const hours = Math.floor(totalMin / MIN_PER_HOUR);
  return `${pad(hours, 2)}:${pad(min, 2)}:${pad(sec, 2)}${fractionSeparator}${pad(ms, 3)}`;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}
