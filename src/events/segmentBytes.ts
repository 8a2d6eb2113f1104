/**
 * A snapshot's new words read from their bytes, without `JSON.parse`. On the real captures a
 * changed snapshot adds one word (124 of 138) or two; `JSON.parse('[' + bytes)` of that one word
 * (~45 B) was the largest single cost of the event stage at 1460 B reads (~13 % of its CPU in a
 * `--cpu-prof` profile: a string, a parse, an intermediate object per word, then the typed copy).
 *
 * Only the service's exact form is read here: `{"text":"…","start":N,"end":N}`, compact, keys in
 * that order, a text with no escape and no control byte, numbers as JSON writes them (no sign).
 * Anything else answers "not read" and the caller parses with `JSON.parse` as before, so the
 * result is always what `JSON.parse` + validation give (a property test compares them).
 */
import type { AlignmentSegment } from './SpeechEvent.js';
import { bytesEqual, scanNumber } from './scanEventJson.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const CLOSE_BRACE = 0x7d;
/** Bytes below this are JSON control characters, which must be escaped inside a string. */
const FIRST_NON_CONTROL = 0x20;
/** Bytes from here on are parts of multi-byte UTF-8 sequences. */
const FIRST_NON_ASCII = 0x80;
/**
 * A decimal with at most this many digits has an integer mantissa below 2^53 (exact as a double),
 * and its power of ten (≤ 10^15) is exact too, so `m / 10^f` is one correctly rounded IEEE
 * division: the same double as `Number(text)` (Clinger's fast path; exact powers go up to 10^22).
 */
const MAX_EXACT_DIGITS = 15;
const POW10: readonly number[] = Array.from({ length: MAX_EXACT_DIGITS + 1 }, (_, i) => 10 ** i);

const SEG_TEXT = Buffer.from('{"text":"');
const SEG_START = Buffer.from('","start":');
const SEG_END = Buffer.from(',"end":');

/**
 * The value of the JSON number `d[a..b)` (as {@link scanNumber} accepts it: no sign), equal to
 * `Number(d.toString('latin1', a, b))`.
 */
export function numberValue(d: Buffer, a: number, b: number): number {
  let m = 0;
  let digits = 0;
  let frac = -1;
  for (let i = a; i < b; i++) {
    const c = d[i]!;
    if (c === DOT) frac = 0;
    else if (c >= DIGIT_0 && c <= DIGIT_9) {
      m = m * 10 + (c - DIGIT_0);
      digits++;
      if (frac >= 0) frac++;
    } else return Number(d.toString('latin1', a, b)); // an exponent
  }
  if (digits > MAX_EXACT_DIGITS) return Number(d.toString('latin1', a, b));
  return frac > 0 ? m / POW10[frac]! : m;
}

/**
 * Reads the segment object that starts at `d[i]` (its `{`) in the service's exact form, within
 * `d[..limit)`. Returns the index after its `}` and pushes the segment to `out`, or -1 (nothing
 * pushed) when it is in any other form or is not a valid segment (start > end): the caller's
 * `JSON.parse` then decides.
 */
export function readSegment(d: Buffer, i: number, limit: number, out: AlignmentSegment[]): number {
  if (i + SEG_TEXT.length > limit || !bytesEqual(d, i, SEG_TEXT, 0, SEG_TEXT.length)) return -1;
  const ta = i + SEG_TEXT.length;
  let ascii = true;
  let j = ta;
  for (; j < limit; j++) {
    const c = d[j]!;
    if (c === QUOTE) break;
    if (c === BACKSLASH || c < FIRST_NON_CONTROL) return -1;
    if (c >= FIRST_NON_ASCII) ascii = false;
  }
  const tb = j;
  if (tb + SEG_START.length > limit || !bytesEqual(d, tb, SEG_START, 0, SEG_START.length)) return -1;
  const sa = tb + SEG_START.length;
  const sb = scanNumber(d, sa, limit);
  if (sb < 0 || sb + SEG_END.length > limit || !bytesEqual(d, sb, SEG_END, 0, SEG_END.length)) return -1;
  const ea = sb + SEG_END.length;
  const eb = scanNumber(d, ea, limit);
  if (eb < 0 || eb >= limit || d[eb] !== CLOSE_BRACE) return -1;
  const start = numberValue(d, sa, sb);
  const end = numberValue(d, ea, eb);
  // Finite: a number of more than ~308 digits parses to Infinity, which validation refuses.
  if (!(start <= end) || end === Infinity) return -1;
  // The text lies between two ASCII quotes, so decoding it alone gives the characters that
  // decoding the whole event does (UTF-8 resynchronises at an ASCII byte).
  out.push({ text: d.toString(ascii ? 'latin1' : 'utf8', ta, tb), start, end });
  return eb + 1;
}
