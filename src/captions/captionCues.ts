/**
 * Grouping words into caption cues, shared by the WebVTT and SRT writers and the TTY renderer so
 * that a line on screen is the same line as in the subtitle file.
 */

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
  words: CaptionWord[];
}

export interface CueOptions {
  /** @defaultValue 42 — the common broadcast line length. */
  maxChars?: number;
  /** @defaultValue 8 */
  maxWords?: number;
  /** A silence longer than this starts a new cue. @defaultValue 0.8 s */
  maxGapSec?: number;
}

export const DEFAULT_MAX_CUE_CHARS = 42;
export const DEFAULT_MAX_CUE_WORDS = 8;
export const DEFAULT_MAX_CUE_GAP_SEC = 0.8;
/** A cue whose words all have zero length still shows for this long. */
export const MIN_CUE_SEC = 0.001;

const MS_PER_SEC = 1000;
const SEC_PER_MIN = 60;
const MIN_PER_HOUR = 60;

/** Splits a timeline (sorted by start) into cues, never splitting a word. */
export function groupIntoCues(words: readonly CaptionWord[], options: CueOptions = {}): CaptionCue[] {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CUE_CHARS;
  const maxWords = options.maxWords ?? DEFAULT_MAX_CUE_WORDS;
  const maxGap = options.maxGapSec ?? DEFAULT_MAX_CUE_GAP_SEC;
  const cues: CaptionCue[] = [];
  let current: CaptionCue | null = null;
  let chars = 0;
  for (const word of words) {
    const prev = current?.words[current.words.length - 1];
    const startsNew =
      current === null ||
      prev === undefined ||
      current.words.length >= maxWords ||
      chars + 1 + word.text.length > maxChars ||
      word.start - prev.end > maxGap ||
      (word.chunkSeq !== undefined && prev.chunkSeq !== undefined && word.chunkSeq !== prev.chunkSeq);
    if (startsNew || current === null) {
      current = { start: word.start, end: word.end, words: [word] };
      cues.push(current);
      chars = word.text.length;
    } else {
      current.words.push(word);
      current.end = Math.max(current.end, word.end);
      chars += 1 + word.text.length;
    }
  }
  // Cues never overlap (players stack overlapping cues) and never have zero length; a cue may
  // start up to MIN_CUE_SEC late when the one before it had zero length.
  let prevEnd = 0;
  for (let i = 0; i < cues.length; i++) {
    const cue = cues[i]!;
    const next = cues[i + 1];
    cue.start = Math.max(cue.start, prevEnd);
    if (next !== undefined && cue.end > next.start) cue.end = next.start;
    if (cue.end < cue.start + MIN_CUE_SEC) cue.end = cue.start + MIN_CUE_SEC;
    prevEnd = cue.end;
  }
  return cues;
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
