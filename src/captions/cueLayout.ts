/**
 * Where the cues of one sentence (a run of words with no hard break inside) end, and where each
 * cue's lines break. Pure: widths, times and break kinds in, word indices out.
 *
 * Cues: the fewest cues that keep every limit, preferring to end them at clause ends, then at
 * pauses (a small dynamic programme over the sentence; a cue holds at most
 * `maxLines × maxChars` characters, so the look-back is short). Lines: the fewest lines, broken at
 * a clause end where one is near, else where the lines come out most even.
 */
import { BreakKind } from './cueBreaks.js';

/** One word as the layout sees it. */
export interface LayoutItem {
  /** Characters its caption text takes (code points). */
  width: number;
  start: number;
  end: number;
  /** How well a cue or line may break after it. */
  brk: BreakKind;
}

export interface LayoutLimits {
  maxChars: number;
  maxLines: number;
  maxCueSec: number;
  maxWords: number;
}

/** The cost of one more cue, against the cost of a poor place to end one. */
const CUE_COST = 1;
/** Extra cost of ending a cue after a word, by the break there. */
const CUE_BREAK_COST: Record<BreakKind, number> = { 0: 4, 1: 1.5, 2: 0, 3: 0 };
/** A cue shorter than this (characters) that is not the whole sentence costs {@link SHORT_CUE_COST} more. */
const SHORT_CUE_CHARS = 12;
const SHORT_CUE_COST = 1;
/** The cost of breaking a line after a word, in characters of unevenness between the lines. */
const LINE_BREAK_COST: Record<BreakKind, number> = { 0: 12, 1: 6, 2: 0, 3: 0 };

/**
 * A cue from `from` growing to the left, one word at a time, filling lines from the right: the
 * fewest lines a run of words needs is the same filled from either end, and this way adding a
 * word costs O(1).
 */
class LeftGrowingCue {
  lines = 1;
  private lineWidth = -1;
  width = -1;
  count = 0;

  constructor(private readonly maxChars: number) {}

  add(width: number): void {
    this.count++;
    this.width += 1 + width;
    if (this.lineWidth < 0) this.lineWidth = width;
    else if (this.lineWidth + 1 + width <= this.maxChars) this.lineWidth += 1 + width;
    else {
      this.lines++;
      this.lineWidth = width;
    }
  }
}

/** The start index of each cue of `items[from, to)`, fewest cues at the best breaks. */
export function splitSentence(items: readonly LayoutItem[], from: number, to: number, limits: LayoutLimits): number[] {
  const n = to - from;
  const best = new Array<number>(n + 1).fill(Infinity);
  const back = new Array<number>(n + 1).fill(0);
  best[0] = 0;
  for (let j = 1; j <= n; j++) {
    const last = items[from + j - 1]!;
    const endCost = j === n ? 0 : CUE_BREAK_COST[last.brk];
    const cue = new LeftGrowingCue(limits.maxChars);
    for (let i = j - 1; i >= 0; i--) {
      const first = items[from + i]!;
      cue.add(first.width);
      // The first word of a cue always fits; beyond it every limit holds.
      const fits =
        cue.count === 1 || (cue.lines <= limits.maxLines && cue.count <= limits.maxWords && last.end - first.start <= limits.maxCueSec);
      if (!fits) break;
      const short = cue.width < SHORT_CUE_CHARS && !(i === 0 && j === n) ? SHORT_CUE_COST : 0;
      const cost = best[i]! + CUE_COST + endCost + short;
      if (cost < best[j]!) {
        best[j] = cost;
        back[j] = i;
      }
    }
  }
  const starts: number[] = [];
  for (let j = n; j > 0; j = back[j]!) starts.push(from + back[j]!);
  return starts.reverse();
}

/** Cue starts of `items[from, to)` filled word by word: a cue ends only when the next word does not fit. */
export function splitSentenceGreedy(items: readonly LayoutItem[], from: number, to: number, limits: LayoutLimits): number[] {
  const starts: number[] = [];
  let cueStart = from;
  let lines = 0;
  let lineWidth = 0;
  for (let k = from; k < to; k++) {
    const item = items[k]!;
    const fitsLine = lines > 0 && lineWidth + 1 + item.width <= limits.maxChars;
    const fitsCue =
      k > cueStart &&
      k - cueStart < limits.maxWords &&
      item.end - items[cueStart]!.start <= limits.maxCueSec &&
      (fitsLine || lines < limits.maxLines);
    if (k === from || !fitsCue) {
      starts.push(k);
      cueStart = k;
      lines = 1;
      lineWidth = item.width;
    } else if (fitsLine) {
      lineWidth += 1 + item.width;
    } else {
      lines++;
      lineWidth = item.width;
    }
  }
  return starts;
}

function widthOf(items: readonly LayoutItem[], from: number, to: number): number {
  let w = -1;
  for (let k = from; k < to; k++) w += 1 + items[k]!.width;
  return w;
}

/** The fewest lines `items[from, to)` fit in, filled greedily. */
function lineCount(items: readonly LayoutItem[], from: number, to: number, maxChars: number): number {
  const cue = new LeftGrowingCue(maxChars);
  for (let k = to - 1; k >= from; k--) cue.add(items[k]!.width);
  return cue.lines;
}

/**
 * The index (relative to `from`) where each line of the cue `items[from, to)` begins: the fewest
 * lines; among those, breaks at clause ends and even line lengths.
 */
export function breakLines(items: readonly LayoutItem[], from: number, to: number, maxChars: number): number[] {
  const n = to - from;
  const lines = n === 0 ? 1 : lineCount(items, from, to, maxChars);
  if (lines <= 1) return [0];
  const target = widthOf(items, from, to) / lines;
  // cost[k][j]: the best way to set the first j words in k lines.
  const cost: number[][] = Array.from({ length: lines + 1 }, () => new Array<number>(n + 1).fill(Infinity));
  const back: number[][] = Array.from({ length: lines + 1 }, () => new Array<number>(n + 1).fill(0));
  cost[0]![0] = 0;
  for (let k = 1; k <= lines; k++) {
    for (let j = 1; j <= n; j++) {
      const brk = j === n ? 0 : LINE_BREAK_COST[items[from + j - 1]!.brk];
      let w = -1;
      for (let i = j - 1; i >= 0; i--) {
        w += 1 + items[from + i]!.width;
        if (w > maxChars && j - i > 1) break;
        const c = cost[k - 1]![i]! + Math.abs(w - target) + brk;
        if (c < cost[k]![j]!) {
          cost[k]![j] = c;
          back[k]![j] = i;
        }
      }
    }
  }
  const starts: number[] = [];
  for (let k = lines, j = n; k > 0; j = back[k]![j]!, k--) starts.push(back[k]![j]!);
  return starts.reverse();
}
