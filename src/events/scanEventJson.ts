/**
 * The byte-level fast scan of one speech event's JSON (the hot path of the event stage).
 *
 * It recognises the shape servers send: one object with the five known keys (each at most once,
 * `content` and `alignment` optional) and any other keys (skipped, their values checked by
 * JSON.parse), no escapes in keys or in `audio_base64`, plain non-negative JSON numbers. A
 * `content` with escapes (text with a quote or a line break) is found here and unescaped by the
 * caller. It records where each value is instead of building strings. Anything else (a negative
 * or fractional `chunk_seq`, a duplicate known key, bad JSON...) returns false and the caller takes the general path (JSON.parse +
 * validateSpeechEvent), which then gives the exact result or the exact typed error.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const FIRST_NON_CONTROL = 0x20;
/** JSON insignificant whitespace (RFC 8259 §2). */
const WS_SPACE = 0x20;
const WS_LF = 0x0a;
const WS_CR = 0x0d;
const WS_TAB = 0x09;
/** Integers with more digits may not be exact doubles: leave them to JSON.parse. */
const MAX_FAST_DIGITS = 15;
/** From this length on, compare bytes with memcmp. */
const SHORT_COMPARE = 48;

const KEY_AUDIO = 1;
const KEY_CONTENT = 2;
const KEY_ALIGNMENT = 4;
const KEY_SEQ = 8;
const KEY_OFFSET = 16;
const KEY_REQUIRED = KEY_AUDIO | KEY_SEQ | KEY_OFFSET;

const NAME_AUDIO = Buffer.from('audio_base64');
const NAME_CONTENT = Buffer.from('content');
const NAME_ALIGNMENT = Buffer.from('alignment');
const NAME_SEQ = Buffer.from('chunk_seq');
const NAME_OFFSET = Buffer.from('chunk_audio_offset_sec');
/** The longest known key: a longer one is unknown without looking further. */
const MAX_KEY_BYTES = NAME_OFFSET.length;
const LOWER_A = 0x61;
const NULL_BYTES = Buffer.from('null');

/** Where the values are (reused from event to event: the scan allocates nothing). */
export class EventSpans {
  audioStart = 0;
  audioEnd = 0;
  /** -1 when the event has no `content`. */
  contentStart = -1;
  contentEnd = -1;
  /** The content bytes equal the previous content's bytes given to the scan. */
  contentSameBytes = false;
  /** The content is not a plain string (it holds an escape, or a control byte): the caller parses
   * the literal `d[contentStart - 1..contentEnd + 1)` with JSON.parse, which unescapes it and
   * rejects what JSON does not allow. */
  contentNeedsParse = false;
  /** -1 when the event has no alignment object (absent or null). */
  alignStart = -1;
  alignEnd = -1;
  /** The alignment bytes equal the previous snapshot's bytes given to the scan. */
  alignSameBytes = false;
  chunkSeq = 0;
  offsetStart = 0;
  offsetEnd = 0;
  /** The offset when it was a plain integer (else NaN: parse the span). */
  offsetInt = NaN;
}

function skipWs(d: Uint8Array, i: number, len: number): number {
  while (i < len) {
    const c = d[i]!;
    if (c !== WS_SPACE && c !== WS_LF && c !== WS_CR && c !== WS_TAB) break;
    i++;
  }
  return i;
}

/** Whether a[ai..ai+n) equals b[bi..bi+n). A loop for short runs (Buffer.compare's argument
 * checks cost more than the compare), memcmp for long ones. */
export function bytesEqual(a: Buffer, ai: number, b: Buffer, bi: number, n: number): boolean {
  if (n >= SHORT_COMPARE) return a.compare(b, bi, bi + n, ai, ai + n) === 0;
  for (let k = 0; k < n; k++) if (a[ai + k] !== b[bi + k]) return false;
  return true;
}

/**
 * Which known key `d[a..b)` is (0: none). By length first (all five differ but `alignment` /
 * `chunk_seq`, told apart by their first byte), so a key costs one short compare: this runs five
 * times per event, and the loop over the names it replaces was ~5 % of the stage (profile).
 */
function matchKey(d: Buffer, a: number, b: number): number {
  switch (b - a) {
    case NAME_AUDIO.length:
      return bytesEqual(d, a, NAME_AUDIO, 0, NAME_AUDIO.length) ? KEY_AUDIO : 0;
    case NAME_CONTENT.length:
      return bytesEqual(d, a, NAME_CONTENT, 0, NAME_CONTENT.length) ? KEY_CONTENT : 0;
    case NAME_ALIGNMENT.length: // also NAME_SEQ.length
      if (d[a] === LOWER_A) return bytesEqual(d, a, NAME_ALIGNMENT, 0, NAME_ALIGNMENT.length) ? KEY_ALIGNMENT : 0;
      return bytesEqual(d, a, NAME_SEQ, 0, NAME_SEQ.length) ? KEY_SEQ : 0;
    case NAME_OFFSET.length:
      return bytesEqual(d, a, NAME_OFFSET, 0, NAME_OFFSET.length) ? KEY_OFFSET : 0;
    default:
      return 0;
  }
}

/** The closing quote of a key starting at `a` (a short loop: native indexOf costs more for a few
 * bytes), or -1 when there is none within the longest known key. */
function keyEnd(d: Uint8Array, a: number, end: number): number {
  const limit = Math.min(end, a + MAX_KEY_BYTES + 1);
  for (let i = a; i < limit; i++) if (d[i] === QUOTE) return i;
  return -1;
}

/** End (exclusive) of a JSON number starting at i that is ≥ 0, or -1. */
export function scanNumber(d: Uint8Array, i: number, len: number): number {
  const first = i;
  if (i >= len) return -1;
  let c = d[i]!;
  if (c < DIGIT_0 || c > DIGIT_9) return -1;
  i++;
  if (c !== DIGIT_0) while (i < len && (c = d[i]!) >= DIGIT_0 && c <= DIGIT_9) i++;
  if (i < len && d[i] === DOT) {
    i++;
    const f = i;
    while (i < len && (c = d[i]!) >= DIGIT_0 && c <= DIGIT_9) i++;
    if (i === f) return -1;
  }
  if (i < len && (d[i] === LOWER_E || d[i] === UPPER_E)) {
    i++;
    if (i < len && (d[i] === PLUS || d[i] === MINUS)) i++;
    const f = i;
    while (i < len && (c = d[i]!) >= DIGIT_0 && c <= DIGIT_9) i++;
    if (i === f) return -1;
  }
  return i > first ? i : -1;
}

/** Value of a plain digit run (no leading zero, ≤ 15 digits) or NaN. */
function plainInt(d: Uint8Array, a: number, b: number): number {
  if (b - a > MAX_FAST_DIGITS) return NaN;
  let v = 0;
  for (let i = a; i < b; i++) {
    const c = d[i]!;
    if (c < DIGIT_0 || c > DIGIT_9) return NaN;
    v = v * 10 + (c - DIGIT_0);
  }
  return v;
}

/** End (exclusive) of the JSON object or array at i, or -1. Strings may hold escapes. */
export function scanComposite(d: Uint8Array, i: number, len: number): number {
  let depth = 0;
  for (; i < len; i++) {
    const c = d[i]!;
    if (c === QUOTE) {
      for (i++; i < len; i++) {
        const s = d[i]!;
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

/** What follows the alignment in the service's key order. */
const KEY_AFTER_ALIGNMENT = Buffer.from(',"chunk_seq"');

/**
 * End (exclusive) of the alignment object at i, or -1. A new snapshot is ~8 KiB of JSON, and
 * walking it byte by byte (`scanComposite`, ~3.5 ns/byte here) made events with a changed snapshot
 * slower than the naive pipeline. In the service's key order `,"chunk_seq"` follows the object,
 * and those bytes cannot occur inside a JSON string (its quote would be escaped), so the first of
 * them after i, right after a `}`, is taken as the end via a native search. A wrong guess (only
 * possible when the snapshot itself has a nested `chunk_seq` key right after a nested object)
 * cuts the object short, and a cut object is never valid JSON: the caller's `JSON.parse` of every
 * new snapshot then fails and the event takes the general path, which gives the exact result.
 */
function alignmentEnd(d: Buffer, i: number, len: number): number {
  const k = d.indexOf(KEY_AFTER_ALIGNMENT, i);
  if (k > i && k < len) {
    let e = k;
    while (e > i && isWs(d[e - 1]!)) e--;
    if (d[e - 1] === CLOSE_BRACE) return e;
  }
  return scanComposite(d, i, len);
}

function isWs(c: number): boolean {
  return c === WS_SPACE || c === WS_LF || c === WS_CR || c === WS_TAB;
}

/** End of a string body starting at i with no escapes and no control bytes (its closing quote), or -1. */
function plainStringEnd(d: Uint8Array, i: number, len: number): number {
  for (; i < len; i++) {
    const c = d[i]!;
    if (c === QUOTE) return i;
    if (c === BACKSLASH || c < FIRST_NON_CONTROL) return -1;
  }
  return -1;
}

/**
 * End (exclusive) of the value of an unknown key at i, or -1 when it is not one JSON value: it is
 * found by its first byte and then given to JSON.parse (the exact grammar; only on a scanned
 * event: in the service's order a repeated rest is not scanned at all).
 */
function unknownValueEnd(d: Buffer, i: number, len: number): number {
  const c = d[i]!;
  let e: number;
  if (c === QUOTE) {
    e = escapedStringEnd(d, i + 1, len);
    if (e >= 0) e++;
  } else if (c === OPEN_BRACE || c === OPEN_BRACKET) e = scanComposite(d, i, len);
  else {
    e = i;
    while (e < len && d[e] !== COMMA && d[e] !== CLOSE_BRACE && !isWs(d[e]!)) e++;
  }
  if (e <= i) return -1;
  try {
    JSON.parse(d.toString('utf8', i, e));
  } catch {
    return -1;
  }
  return e;
}

/**
 * End of a string body starting at i (its closing quote, the byte after a backslash skipped), or
 * -1. Nothing is validated here (control bytes, bad escapes): the caller's JSON.parse of the
 * literal does that.
 */
function escapedStringEnd(d: Uint8Array, i: number, len: number): number {
  for (; i < len; i++) {
    const c = d[i]!;
    if (c === QUOTE) return i;
    if (c === BACKSLASH) i++;
  }
  return -1;
}

/**
 * Scans `d[start..len)` (`len` is the end offset; the spans in `out` are offsets in `d`). Returns
 * true and fills `out` when the event has the plain shape; false means "take the general path".
 * `prevAlign[prevAlignFrom..+prevAlignLength)` is the previous raw snapshot: an alignment starting with exactly
 * those bytes is that same JSON value, found without scanning it. `prevContent[0..prevContentLength)`
 * is the previous content's body (a plain string, or length 0: none).
 */
export function scanEventJson(
  d: Buffer,
  start: number,
  len: number,
  out: EventSpans,
  prevAlign: Buffer,
  prevAlignFrom: number,
  prevAlignLength: number,
  prevContent: Buffer,
  prevContentLength: number,
): boolean {
  let seen = 0;
  out.contentStart = -1;
  out.contentSameBytes = false;
  out.contentNeedsParse = false;
  out.alignStart = -1;
  out.alignSameBytes = false;
  let i = skipWs(d, start, len);
  if (d[i] !== OPEN_BRACE) return false;
  i = skipWs(d, i + 1, len);
  if (d[i] === CLOSE_BRACE) return false;
  for (;;) {
    if (i >= len || d[i] !== QUOTE) return false;
    const ka = i + 1;
    let kb = keyEnd(d, ka, len);
    if (kb < 0) kb = plainStringEnd(d, ka, len); // a longer key: unknown, if plain
    if (kb < 0) return false;
    const key = matchKey(d, ka, kb);
    if ((seen & key) !== 0) return false;
    seen |= key;
    i = skipWs(d, kb + 1, len);
    if (d[i] !== COLON) return false;
    i = skipWs(d, i + 1, len);
    if (i >= len) return false;
    const c = d[i]!;
    switch (key) {
      case 0: {
        // A key the stage does not use (the service may add fields; the general path ignores
        // them). An escape in it could spell a known key: that is for the general path.
        for (let k = ka; k < kb; k++) if (d[k] === BACKSLASH) return false;
        const e = unknownValueEnd(d, i, len);
        if (e < 0) return false;
        i = e;
        break;
      }
      case KEY_AUDIO: {
        if (c !== QUOTE) return false;
        const q = d.indexOf(QUOTE, i + 1);
        if (q < 0 || q >= len) return false;
        // A backslash inside is caught by the base64 decoder (not in the alphabet).
        out.audioStart = i + 1;
        out.audioEnd = q;
        i = q + 1;
        break;
      }
      case KEY_CONTENT: {
        if (c !== QUOTE) return false;
        // The previous content's bytes (a valid string body, so it cannot end inside an escape)
        // followed by a quote: the same string, found by one compare instead of a byte loop.
        const e = i + 1 + prevContentLength;
        let q: number;
        if (prevContentLength > 0 && e < len && d[e] === QUOTE && bytesEqual(d, i + 1, prevContent, 0, prevContentLength)) {
          q = e;
          out.contentSameBytes = true;
        } else {
          // Text with a quote or a line break arrives escaped (`\"`, `\n`): every event of such
          // a chunk used to take the general path (a fifth of a real capture's events).
          q = plainStringEnd(d, i + 1, len);
          if (q < 0) {
            q = escapedStringEnd(d, i + 1, len);
            out.contentNeedsParse = true;
          }
        }
        if (q < 0) return false;
        out.contentStart = i + 1;
        out.contentEnd = q;
        i = q + 1;
        break;
      }
      case KEY_ALIGNMENT: {
        if (c === OPEN_BRACE) {
          let end: number;
          if (prevAlignLength > 0 && i + prevAlignLength <= len && bytesEqual(d, i, prevAlign, prevAlignFrom, prevAlignLength)) {
            end = i + prevAlignLength;
            out.alignSameBytes = true;
          } else {
            end = alignmentEnd(d, i, len);
            if (end < 0) return false;
          }
          out.alignStart = i;
          out.alignEnd = end;
          i = end;
        } else if (i + 4 <= len && bytesEqual(d, i, NULL_BYTES, 0, 4)) {
          i += 4;
        } else return false;
        break;
      }
      case KEY_SEQ: {
        const e = scanNumber(d, i, len);
        if (e < 0) return false;
        const v = plainInt(d, i, e);
        if (Number.isNaN(v)) return false;
        out.chunkSeq = v;
        i = e;
        break;
      }
      default: {
        // KEY_OFFSET
        const e = scanNumber(d, i, len);
        if (e < 0) return false;
        out.offsetStart = i;
        out.offsetEnd = e;
        out.offsetInt = plainInt(d, i, e);
        i = e;
        break;
      }
    }
    i = skipWs(d, i, len);
    if (i >= len) return false;
    if (d[i] === COMMA) {
      i = skipWs(d, i + 1, len);
      continue;
    }
    if (d[i] !== CLOSE_BRACE) return false;
    i = skipWs(d, i + 1, len);
    return i === len && (seen & KEY_REQUIRED) === KEY_REQUIRED;
  }
}
