/**
 * The byte-level core of WHATWG event-stream parsing, shared by the generic {@link SseParser} and
 * the speech hot path (`SpeechEventScanner`). It frames lines and fields and hands each dispatched
 * event over as BYTES (the joined `data` in a reusable buffer), so that the hot path never builds
 * a string per event; {@link SseParser} decodes to strings on top of it.
 *
 * Memory: field values are copied into growable buffers that are reused for the whole stream,
 * except the common case of an event whose one `data` line lies whole inside the chunk being fed:
 * that line is handed over in place (`data` is then the chunk itself, from `dataStart`), so large
 * network reads cost no copy at all (native-notes/engine-performance.md).
 * We never `Buffer.concat` the pending bytes with each new chunk: with a line arriving in k small
 * chunks that re-copies the growing prefix k times (O(N²) in the line length; a 6 MiB data line in
 * 1 KiB chunks would copy ~18 GB). Each byte is copied once here, and the buffers double when they
 * grow (amortized O(N)); both are bounded by the line/event size limits.
 *
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
import { SseError } from '../errors.js';
import { SseFieldValues } from './SseFieldValues.js';
import { copyBytes, grow } from './growableBytes.js';

/** Default line and event size limit: 8 MiB. */
export const DEFAULT_MAX_SSE_BYTES = 8 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const BOM = Uint8Array.of(0xef, 0xbb, 0xbf);
/** Joins consecutive `data` lines (WHATWG: append the value, then a LF). */
const LF_BYTE = Uint8Array.of(LF);
const INITIAL_BUFFER_BYTES = 1024;
/** Field names are at most "retry".length bytes; longer names are "other". */
const MAX_FIELD_NAME = 5;

const STATE_START = 0; // at the start of a line, nothing read
const STATE_FIELD = 1; // reading the field name
const STATE_VALUE_FIRST = 2; // after the colon: one leading space is stripped
const STATE_VALUE = 3; // reading the value
const STATE_COMMENT = 4; // a line starting with ':'

const FIELD_OTHER = 0;
const FIELD_DATA = 1;
const FIELD_EVENT = 2;
const FIELD_ID = 3;
const FIELD_RETRY = 4;

export interface SseFramerOptions {
  /** Called at each dispatched event (a blank line after at least one `data` field). Return
   * `false` to make {@link SseFramer.feed} return right after this event. */
  onFrame(framer: SseFramer): boolean | void;
  /** A `retry` field made only of ASCII digits. */
  onRetry?(ms: number): void;
  /** @defaultValue 8 MiB */
  maxLineBytes?: number;
  /** Limit on one event's joined `data`. @defaultValue 8 MiB */
  maxEventBytes?: number;
}

/** Up to this many bytes, line ends are searched with a loop instead of indexOf. */
const SMALL_SCAN = 96;
export class SseFramer {
  private readonly opts: SseFramerOptions;
  private readonly maxLine: number;
  private readonly maxEvent: number;

  /** Joined `data` of the event being dispatched: `data[dataStart..dataStart + dataLength)`: the
   * framer's own buffer, or the fed chunk itself. Valid during onFrame only. */
  data: Buffer;
  dataStart = 0;
  dataLength = 0;
  /** Whether the dispatched event's type is `message` (no `event` field, empty, or "message"). */
  isMessage = true;
  /** Whether the dispatched event carried its own `id` field (one without NUL). */
  hasOwnId = false;
  /** Stream offset of the first field line of the current event. */
  eventStartOffset = 0;
  /** Stream bytes consumed so far (BOM included). */
  offset = 0;

  /** The growable buffer the joined data is copied into (when not in place). */
  private buf: Buffer = Buffer.allocUnsafe(INITIAL_BUFFER_BYTES);
  /** The event's only data line so far, still in the chunk being fed: chunk[inPlaceStart..inPlaceEnd). */
  private inPlace: Buffer | null = null;
  private inPlaceStart = 0;
  private inPlaceEnd = 0;
  private dataLines = 0;
  /** Bytes of the current event's data held outside {@link buf} (by a fast path, see skipData). */
  private externalData = 0;
  /** `event`, `id` and `retry`. */
  private readonly fields = new SseFieldValues();

  private state = STATE_START;
  private field = FIELD_OTHER;
  private fieldName = new Uint8Array(MAX_FIELD_NAME);
  private fieldLength = 0;
  private lineBytes = 0;
  private lineStart = 0;
  private skipLF = false;
  private eventOpen = false;
  private bomMatched = 0;
  private bomDone = false;
  private paused = false;
  /** copyDataToEol already stored the segment. */
  private copied = false;
  // Next LF / CR at or after the cursor in the current chunk (-1: not searched yet, n: none).
  private nextLF = -1;
  private nextCR = -1;

  constructor(options: SseFramerOptions) {
    this.opts = options;
    this.maxLine = options.maxLineBytes ?? DEFAULT_MAX_SSE_BYTES;
    this.maxEvent = options.maxEventBytes ?? DEFAULT_MAX_SSE_BYTES;
    this.data = this.buf;
  }

  /** The dispatched event's type (`'message'` when none was given). Allocates a string. */
  eventType(): string {
    return this.fields.eventType();
  }
  /** The last event ID (sticky across events). */
  get lastEventId(): string {
    return this.fields.lastEventId;
  }
  /** True when the stream so far ends inside an event (a field line without the closing blank line). */
  get inEvent(): boolean {
    return this.eventOpen;
  }

  /** Whether the stream is inside the value of the current event's first and only `data` line
   * (its bytes so far are {@link pendingData}`[0..`{@link pendingDataLength}`)`). */
  get inFirstDataLine(): boolean {
    return this.state === STATE_VALUE && this.field === FIELD_DATA && this.dataLines === 1 && this.inPlace === null;
  }
  /** The current event's data so far (valid between feeds). */
  get pendingData(): Buffer {
    return this.buf;
  }
  get pendingDataLength(): number {
    return this.dataLength;
  }

  /**
   * For a fast path that keeps part of a data line itself (`Base64Stage`): the pending data after
   * `keep` bytes is now held outside; the framer still counts it against the event limit.
   */
  takePendingData(keep: number): void {
    this.externalData += this.dataLength - keep;
    this.dataLength = keep;
  }
  /** `n` more bytes of the current data line were consumed (and kept) outside the framer: offsets
   * and the line and event limits count them as if they had been framed here. */
  skipData(n: number): void {
    this.offset += n;
    this.lineBytes += n;
    if (this.lineBytes > this.maxLine) this.lineTooLong();
    this.externalData += n;
    if (this.dataLength + this.externalData > this.maxEvent) this.eventTooLarge();
  }
  /** Data bytes the current line can still take before a line or event limit is exceeded. */
  get dataRoom(): number {
    const line = this.maxLine - this.lineBytes;
    const event = this.maxEvent - this.dataLength - this.externalData;
    return line < event ? line : event;
  }
  /** Bytes held outside come back: `src[a..b)` is inserted into the pending data at `at`. */
  restoreData(at: number, src: Uint8Array, a: number, b: number): void {
    const n = b - a;
    const len = this.dataLength + n;
    if (len > this.buf.length) this.buf = grow(this.buf, len);
    const d = this.buf;
    if (at < this.dataLength) d.copyWithin(at + n, at, this.dataLength);
    copyBytes(src, a, b, d, at);
    this.dataLength = len;
    this.externalData -= n;
  }

  /** Frames `chunk[start..]`; returns where it stopped (chunk.length unless onFrame returned false). */
  feed(chunk: Uint8Array, start = 0): number {
    let i = start;
    const n = chunk.length;
    if (!this.bomDone) {
      while (i < n && this.bomMatched < BOM.length && chunk[i] === BOM[this.bomMatched]) {
        this.bomMatched++;
        i++;
      }
      this.offset += i - start;
      if (this.bomMatched === BOM.length) this.bomDone = true;
      else if (i < n) this.replayBom();
    }
    return this.run(chunk, i, n);
  }

  /** End of stream: returns true when it ended inside an event (which is dropped). */
  end(): boolean {
    if (!this.bomDone) this.replayBom();
    const unfinished = this.eventOpen;
    this.resetEvent();
    this.state = STATE_START;
    this.lineBytes = 0;
    this.skipLF = false;
    return unfinished;
  }

  /** Forgets everything, including the last event ID, for a new stream. */
  reset(): void {
    this.end();
    this.bomMatched = 0;
    this.bomDone = false;
    this.fields.reset();
    this.offset = 0;
  }

  /** A partial BOM followed by other bytes: those bytes were content after all. */
  private replayBom(): void {
    this.bomDone = true;
    const k = this.bomMatched;
    if (k === 0) return;
    this.offset -= k;
    this.run(BOM, 0, k);
  }

  private run(chunk: Uint8Array, start: number, n: number): number {
    let i = start;
    const base = this.offset - start; // stream offset of chunk[0]
    this.nextLF = -1;
    this.nextCR = -1;
    this.paused = false;
    while (i < n) {
      if (this.skipLF) {
        this.skipLF = false;
        if (chunk[i] === LF) {
          i++;
          continue;
        }
      }
      const st = this.state;
      if (st === STATE_VALUE || st === STATE_COMMENT) {
        const isData = st === STATE_VALUE && this.field === FIELD_DATA;
        const eol = isData && n - i <= SMALL_SCAN ? this.copyDataToEol(chunk, i, n) : this.lineEnd(chunk, i, n);
        if (isData && eol < n && !this.copied && this.dataLines === 1 && this.dataLength === 0 && chunk instanceof Buffer) {
          // The event's first data line, whole in this chunk: keep it where it is (no copy).
          this.lineBytes += eol - i;
          if (this.lineBytes > this.maxLine) this.lineTooLong();
          if (eol - i > this.maxEvent) this.eventTooLarge();
          this.inPlace = chunk;
          this.inPlaceStart = i;
          this.inPlaceEnd = eol;
          this.skipLF = chunk[eol] === CR;
          i = eol + 1;
          this.endLine();
          if (this.paused) break;
          continue;
        }
        const segEnd = eol < n ? eol : n;
        this.lineBytes += segEnd - i;
        if (this.lineBytes > this.maxLine) this.lineTooLong();
        if (this.copied) {
          this.copied = false;
          if (this.dataLength + this.externalData > this.maxEvent) this.eventTooLarge();
        } else if (st === STATE_VALUE && segEnd > i) this.appendValue(chunk, i, segEnd);
        if (eol >= n) {
          i = n;
          break;
        }
        this.skipLF = chunk[eol] === CR;
        i = eol + 1;
        this.endLine();
        if (this.paused) break;
        continue;
      }
      const b = chunk[i]!;
      if (b === LF || b === CR) {
        this.skipLF = b === CR;
        i++;
        this.endLine();
        if (this.paused) break;
        continue;
      }
      i++;
      if (st === STATE_VALUE_FIRST) {
        this.state = STATE_VALUE;
        if (b === SPACE) {
          this.lineBytes++;
          continue;
        }
        i--; // not a space: it is the first value byte, read it again in STATE_VALUE
        continue;
      }
      if (st === STATE_START) {
        this.lineStart = base + i - 1;
        if (b === COLON) {
          this.state = STATE_COMMENT;
          this.lineBytes = 1;
          continue;
        }
        if (!this.eventOpen) {
          this.eventOpen = true;
          this.eventStartOffset = this.lineStart;
        }
        this.state = STATE_FIELD;
        this.fieldLength = 0;
        this.lineBytes = 0;
      }
      this.lineBytes++;
      if (this.lineBytes > this.maxLine) this.lineTooLong();
      if (b === COLON) {
        this.beginValue();
        this.state = STATE_VALUE_FIRST;
      } else {
        if (this.fieldLength < MAX_FIELD_NAME) this.fieldName[this.fieldLength] = b;
        this.fieldLength++;
      }
    }
    // The chunk is the caller's again after this call: an undispatched in-place line is copied.
    if (this.inPlace !== null) this.materialize();
    this.offset = base + i;
    return i;
  }

  /** Copies the in-place data line into the framer's buffer (more data follows, or the chunk ends). */
  private materialize(): void {
    const src = this.inPlace!;
    this.inPlace = null;
    this.appendData(src, this.inPlaceStart, this.inPlaceEnd);
  }

  private lineEnd(chunk: Uint8Array, i: number, n: number): number {
    if (n - i <= SMALL_SCAN) {
      // A short rest: a plain loop beats two native indexOf calls (their fixed cost dominates).
      for (let k = i; k < n; k++) {
        const c = chunk[k];
        if (c === LF || c === CR) return k;
      }
      return n;
    }
    if (this.nextLF < i) {
      const p = chunk.indexOf(LF, i);
      this.nextLF = p < 0 ? n : p;
    }
    if (this.nextCR < i) {
      const p = chunk.indexOf(CR, i);
      this.nextCR = p < 0 ? n : p;
    }
    return this.nextLF < this.nextCR ? this.nextLF : this.nextCR;
  }

  private lineTooLong(): never {
    throw new SseError('SSE_LINE_TOO_LONG', `SSE line starting at byte ${this.lineStart} exceeds ${this.maxLine} bytes`, {
      byteOffset: this.lineStart,
    });
  }

  private resolveField(): number {
    const f = this.fieldName;
    switch (this.fieldLength) {
      case 2:
        return f[0] === 0x69 && f[1] === 0x64 ? FIELD_ID : FIELD_OTHER; // id
      case 4:
        return f[0] === 0x64 && f[1] === 0x61 && f[2] === 0x74 && f[3] === 0x61 ? FIELD_DATA : FIELD_OTHER; // data
      case 5:
        if (f[0] === 0x65 && f[1] === 0x76 && f[2] === 0x65 && f[3] === 0x6e && f[4] === 0x74) return FIELD_EVENT;
        if (f[0] === 0x72 && f[1] === 0x65 && f[2] === 0x74 && f[3] === 0x72 && f[4] === 0x79) return FIELD_RETRY;
        return FIELD_OTHER;
      default:
        return FIELD_OTHER;
    }
  }

  private beginValue(): void {
    const kind = this.resolveField();
    this.field = kind;
    if (kind === FIELD_DATA) {
      if (this.inPlace !== null) this.materialize();
      if (this.dataLines > 0) this.appendData(LF_BYTE, 0, 1);
      this.dataLines++;
    } else if (kind === FIELD_EVENT) this.fields.beginEvent();
    else if (kind === FIELD_ID) this.fields.beginId();
    else if (kind === FIELD_RETRY) this.fields.beginRetry();
  }

  /**
   * Small chunks (network splits of a few bytes): find the line end and copy the data in one
   * loop instead of a search and then a copy. Returns the line end (n when none).
   */
  private copyDataToEol(chunk: Uint8Array, i: number, n: number): number {
    const start = this.dataLength;
    if (start + (n - i) > this.buf.length) this.buf = grow(this.buf, start + (n - i));
    const d = this.buf;
    let o = start;
    let k = i;
    for (; k < n; k++) {
      const c = chunk[k]!;
      if (c === LF || c === CR) break;
      d[o++] = c;
    }
    this.dataLength = o; // checked against the limit by the caller, after the line limit

    this.copied = true;
    return k;
  }

  private eventTooLarge(): never {
    throw new SseError(
      'SSE_EVENT_TOO_LARGE',
      `SSE event starting at byte ${this.eventStartOffset} has more than ${this.maxEvent} bytes of data`,
      { byteOffset: this.eventStartOffset },
    );
  }

  private appendData(src: Uint8Array, a: number, b: number): void {
    const len = this.dataLength + (b - a);
    if (len + this.externalData > this.maxEvent) this.eventTooLarge();
    if (len > this.buf.length) this.buf = grow(this.buf, len);
    copyBytes(src, a, b, this.buf, this.dataLength);
    this.dataLength = len;
  }

  private appendValue(chunk: Uint8Array, a: number, b: number): void {
    switch (this.field) {
      case FIELD_DATA:
        this.appendData(chunk, a, b);
        return;
      case FIELD_EVENT:
        this.fields.appendEvent(chunk, a, b);
        return;
      case FIELD_ID:
        this.fields.appendId(chunk, a, b);
        return;
      case FIELD_RETRY:
        this.fields.appendRetry(chunk, a, b);
        return;
      default:
        return;
    }
  }

  private endLine(): void {
    const st = this.state;
    this.state = STATE_START;
    this.lineBytes = 0;
    if (st === STATE_START) {
      this.dispatch();
      return;
    }
    if (st === STATE_COMMENT) return;
    if (st === STATE_FIELD) this.beginValue(); // a field with no colon: the whole line is the name
    switch (this.field) {
      case FIELD_ID:
        if (this.fields.commitId()) this.hasOwnId = true;
        return;
      case FIELD_RETRY: {
        const retry = this.fields.retry();
        if (retry >= 0) this.opts.onRetry?.(retry);
        return;
      }
      default:
        return;
    }
  }

  private dispatch(): void {
    if (this.dataLines > 0) {
      this.isMessage = this.fields.isMessage;
      if (this.inPlace !== null) {
        this.data = this.inPlace;
        this.dataStart = this.inPlaceStart;
        this.dataLength = this.inPlaceEnd - this.inPlaceStart;
      } else {
        this.data = this.buf;
        this.dataStart = 0;
      }
      if (this.opts.onFrame(this) === false) this.paused = true;
    }
    this.resetEvent();
  }

  private resetEvent(): void {
    this.inPlace = null;
    this.data = this.buf;
    this.dataStart = 0;
    this.dataLength = 0;
    this.dataLines = 0;
    this.externalData = 0;
    this.fields.endEvent();
    this.hasOwnId = false;
    this.eventOpen = false;
  }
}

