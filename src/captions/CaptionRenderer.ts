/**
 * Live caption renderers for the `say` command and for library users: each gets a word at the
 * moment it is heard (the pipeline's `word` event, driven by the playhead).
 *
 * - {@link createLineCaptionRenderer}: one line per word, `0.31  word`, for pipes and logs.
 * - {@link createTtyCaptionRenderer}: the current caption line redrawn in place with the word being
 *   heard highlighted, spoken words plain, coming words dim; with `sourceText`, punctuated and cased
 *   as written, a line per cue of one line.
 */
import { layoutCues, type CaptionCue, type CaptionWord, type CueOptions } from './captionCues.js';

/** Anything with a `write(text)`: a `process.stdout`, a Writable, a test collector. */
export interface TextOutput {
  write(text: string): unknown;
}

export interface CaptionRenderer {
  /** The playhead reached this word. */
  word(word: CaptionWord): void;
  /** The speech ended: leave the output on a fresh line. */
  finish(): void;
}

/** Decimals of the start time in line mode. */
const LINE_TIME_DECIMALS = 2;
const LINE_SEPARATOR = '  ';

/** One line per word: `${start.toFixed(2)}  ${text}\n`. */
export function createLineCaptionRenderer(out: TextOutput): CaptionRenderer {
  return {
    word(word) {
      out.write(`${word.start.toFixed(LINE_TIME_DECIMALS)}${LINE_SEPARATOR}${word.text}\n`);
    },
    finish() {},
  };
}

// ANSI SGR sequences (ECMA-48).
const CLEAR_LINE = '\r\x1b[2K';
const REVERSE_ON = '\x1b[7m';
const REVERSE_OFF = '\x1b[27m';
const DIM_ON = '\x1b[2m';
const DIM_OFF = '\x1b[22m';
const DEFAULT_COLUMNS = 80;

/**
 * The line is a one-line cue (`maxLines` is 1 whatever is passed), so it breaks where the subtitle
 * file's lines do: at sentence and clause ends when `sourceText` is given.
 */
export interface TtyCaptionOptions extends CueOptions {
  /** The words known so far (e.g. `() => stream.alignment.timeline()`), to show the whole line
   * before it is spoken. Without it, a line grows word by word (filled greedily, so a line that is
   * on screen never changes its first word). */
  timeline?: () => readonly CaptionWord[];
  /** Terminal width. @defaultValue `out.columns` or 80 */
  columns?: () => number;
}

/** The caption line redrawn in place; a finished line stays on screen above the next. */
export function createTtyCaptionRenderer(out: TextOutput & { columns?: number }, options: TtyCaptionOptions = {}): CaptionRenderer {
  const heard: CaptionWord[] = [];
  const cueOptions: CueOptions = { ...options, maxLines: 1 };
  // The cues of the words last laid out: recomputed only when those words change.
  let laidOut: { words: readonly CaptionWord[]; count: number; cues: CaptionCue[] } | null = null;
  const cuesOf = (words: readonly CaptionWord[]): CaptionCue[] => {
    if (laidOut === null || laidOut.words !== words || laidOut.count !== words.length) {
      const split = words === heard ? 'greedy' : 'balanced';
      laidOut = { words, count: words.length, cues: layoutCues(words, cueOptions, split) };
    }
    return laidOut.cues;
  };
  let lineKey: string | null = null;
  let lastLine: CaptionCue | null = null;
  // A pseudo-terminal may report 0 columns: treat that as unknown.
  const columns = options.columns ?? (() => (out.columns !== undefined && out.columns > 0 ? out.columns : DEFAULT_COLUMNS));

  const draw = (cue: CaptionCue, current: CaptionWord | null): void => {
    const width = Math.max(1, columns() - 1);
    const parts: string[] = [];
    let used = 0;
    for (let i = 0; i < cue.words.length; i++) {
      const w = cue.words[i]!;
      const text = cue.texts[i]!;
      const extra = (parts.length > 0 ? 1 : 0) + text.length;
      if (used + extra > width && parts.length > 0) break; // the first word always shows
      used += extra;
      const isCurrent = current !== null && sameWord(w, current);
      const isFuture = current !== null && w.start > current.start;
      parts.push(isCurrent ? `${REVERSE_ON}${text}${REVERSE_OFF}` : isFuture ? `${DIM_ON}${text}${DIM_OFF}` : text);
    }
    out.write(CLEAR_LINE + parts.join(' '));
  };

  return {
    word(word) {
      heard.push(word);
      const known = options.timeline?.() ?? [];
      const source = known.some((w) => sameWord(w, word)) ? known : heard;
      const cue = cuesOf(source).find((c) => c.words.some((w) => sameWord(w, word)));
      if (!cue) return;
      const first = cue.words[0]!;
      const key = `${first.start}:${first.text}`;
      if (lineKey !== null && key !== lineKey && lastLine !== null) {
        draw(lastLine, null); // the finished line, without highlight
        out.write('\n');
      }
      lineKey = key;
      lastLine = cue;
      draw(cue, word);
    },
    finish() {
      if (lastLine !== null) {
        draw(lastLine, null);
        out.write('\n');
      }
      lineKey = null;
      lastLine = null;
    },
  };
}

function sameWord(a: CaptionWord, b: CaptionWord): boolean {
  return a.start === b.start && a.text === b.text;
}
