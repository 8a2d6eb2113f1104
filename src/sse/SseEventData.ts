/**
 * The joined `data` of the event {@link SseFramer} is reading (WHATWG: the `data` lines' values
 * with a LF between them), and the event size limit on it. Apart from the framer, which frames
 * lines and fields, because this is where the event's bytes live and how they are handed over.
 *
 * Memory: the bytes are copied into one growable buffer that is reused for the whole stream,
 * except the common case of an event whose one `data` line lies whole inside the chunk being fed:
 * that line is kept where it is and handed over in place (the framer's `data` is then the chunk
 * itself, from `dataStart`), so large network reads cost no copy at all
 * (native-notes/engine-performance.md). It is copied only when more data follows or the chunk is
 * given back.
 * We never `Buffer.concat` the pending bytes with each new chunk: with a line arriving in k small
 * chunks that re-copies the growing prefix k times (O(N²) in the line length; a 6 MiB data line in
 * 1 KiB chunks would copy ~18 GB). Each byte is copied once here, and the buffer doubles when it
 * grows (amortized O(N)); it is bounded by the event size limit.
 *
 * A fast path (`Base64Stage`, through the framer's {@link SseFastPathSeam}: `takePendingData`,
 * `skipData` and `restoreData`) may hold part of a data line itself for a while: those bytes still count against
 * the limit, so it is reported at the same byte as without the fast path.
 *
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
import { SseError } from '../errors.js';
import { copyBytes, grow } from '../internal/growableBytes.js';

// Module-local, not shared with SseFramer: copyToEol's loop compares against them, and TurboFan
// does not constant-fold imported bindings.
const LF = 0x0a;
const CR = 0x0d;
/** Joins consecutive `data` lines (WHATWG: append the value, then a LF). */
const LF_BYTE = Uint8Array.of(LF);
const INITIAL_BUFFER_BYTES = 1024;

/** Where an event's data is handed over at dispatch: `data[dataStart..dataStart + dataLength)`. */
export interface SseDataView {
  data: Buffer;
  dataStart: number;
  dataLength: number;
}

/** Where the event began, for the size error (read only when it is thrown). */
export interface SseEventStart {
  readonly eventStartOffset: number;
}

/** @internal Part of {@link SseFramer}, used by it only (its public methods are the framer's, not an API). */
export class SseEventData {
  private readonly maxBytes: number;
  private readonly eventStart: SseEventStart;
  /** The growable buffer the joined data is copied into (when not in place). */
  private buf: Buffer = Buffer.allocUnsafe(INITIAL_BUFFER_BYTES);
  /** Bytes of the joined data in {@link buf}. */
  private filled = 0;
  private dataLines = 0;
  /** The event's only data line so far, still in the chunk being fed: chunk[inPlaceStart..inPlaceEnd). */
  private inPlace: Buffer | null = null;
  private inPlaceStart = 0;
  private inPlaceEnd = 0;
  /** Bytes of the event's data held outside {@link buf} (by a fast path, see {@link skip}). */
  private external = 0;

  constructor(maxBytes: number, eventStart: SseEventStart) {
    this.maxBytes = maxBytes;
    this.eventStart = eventStart;
  }

  /** The buffer the data is copied into: the data so far is `buffer[0..length)` between feeds. */
  get buffer(): Buffer {
    return this.buf;
  }
  get length(): number {
    return this.filled;
  }
  /** `data` lines of the event so far. */
  get lines(): number {
    return this.dataLines;
  }
  /** Inside the event's first `data` line with none of it copied yet (it may be kept in place). */
  get firstLineEmpty(): boolean {
    return this.dataLines === 1 && this.filled === 0;
  }
  /** Inside the event's first and only `data` line, its bytes so far in {@link buffer}. */
  get firstLineInBuffer(): boolean {
    return this.dataLines === 1 && this.inPlace === null;
  }

  /** A `data` line starts: after an earlier one, the joining LF. */
  beginLine(): void {
    this.copyInPlace();
    if (this.dataLines > 0) this.append(LF_BYTE, 0, 1);
    this.dataLines++;
  }

  /** Keeps the first data line `chunk[a..b)` where it is (no copy) until {@link copyInPlace}. */
  holdInPlace(chunk: Buffer, a: number, b: number): void {
    if (b - a > this.maxBytes) this.tooLarge();
    this.inPlace = chunk;
    this.inPlaceStart = a;
    this.inPlaceEnd = b;
  }

  /** Copies an in-place line into the buffer: more data follows, or the chunk is the caller's again. */
  copyInPlace(): void {
    const src = this.inPlace;
    if (src === null) return;
    this.inPlace = null;
    this.append(src, this.inPlaceStart, this.inPlaceEnd);
  }

  append(src: Uint8Array, a: number, b: number): void {
    const len = this.filled + (b - a);
    if (len + this.external > this.maxBytes) this.tooLarge();
    if (len > this.buf.length) this.buf = grow(this.buf, len);
    copyBytes(src, a, b, this.buf, this.filled);
    this.filled = len;
  }

  /**
   * Small chunks (network splits of a few bytes): finds the line end and copies the data in one
   * loop instead of a search and then a copy. Returns the line end (n when none). Not checked
   * against the limit: the caller checks the line limit first, then {@link checkLimit}.
   */
  copyToEol(chunk: Uint8Array, i: number, n: number): number {
    const start = this.filled;
    if (start + (n - i) > this.buf.length) this.buf = grow(this.buf, start + (n - i));
    const d = this.buf;
    let o = start;
    let k = i;
    for (; k < n; k++) {
      const c = chunk[k]!;
      if (c === LF || c === CR) break;
      d[o++] = c;
    }
    this.filled = o;
    return k;
  }

  checkLimit(): void {
    if (this.filled + this.external > this.maxBytes) this.tooLarge();
  }

  /** The data after `keep` bytes is now held outside (see the framer's `takePendingData`). */
  takeAfter(keep: number): void {
    this.external += this.filled - keep;
    this.filled = keep;
  }
  /** `n` more bytes of the data are held outside. */
  skip(n: number): void {
    this.external += n;
    this.checkLimit();
  }
  /** Bytes the event can still take before its limit. */
  get room(): number {
    return this.maxBytes - this.filled - this.external;
  }
  /** Bytes held outside come back: `src[a..b)` is inserted into the data at `at`. */
  restore(at: number, src: Uint8Array, a: number, b: number): void {
    const n = b - a;
    const len = this.filled + n;
    if (len > this.buf.length) this.buf = grow(this.buf, len);
    const d = this.buf;
    if (at < this.filled) d.copyWithin(at + n, at, this.filled);
    copyBytes(src, a, b, d, at);
    this.filled = len;
    this.external -= n;
  }

  /** At dispatch: where the joined data is, the fed chunk itself (in place) or the buffer. */
  viewInto(view: SseDataView): void {
    if (this.inPlace !== null) {
      view.data = this.inPlace;
      view.dataStart = this.inPlaceStart;
      view.dataLength = this.inPlaceEnd - this.inPlaceStart;
    } else {
      view.data = this.buf;
      view.dataStart = 0;
      view.dataLength = this.filled;
    }
  }

  /** The event was dispatched or dropped (the chunk of an in-place line is let go). */
  reset(): void {
    this.inPlace = null;
    this.filled = 0;
    this.dataLines = 0;
    this.external = 0;
  }

  private tooLarge(): never {
    const start = this.eventStart.eventStartOffset;
    throw new SseError('SSE_EVENT_TOO_LARGE', `SSE event starting at byte ${start} has more than ${this.maxBytes} bytes of data`, {
      byteOffset: start,
    });
  }
}
