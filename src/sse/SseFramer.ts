/**
 * The byte-level core of WHATWG event-stream parsing, shared by the generic {@link SseParser} and
 * the speech hot path (`SpeechEventScanner`). It frames lines and fields and hands each dispatched
 * event over as BYTES (the joined `data` in a reusable buffer), so that the hot path never builds
 * a string per event; {@link SseParser} decodes to strings on top of it.
 *
 * The event's joined data (its memory, the in-place hand-over and the event size limit) is
 * {@link SseEventData}; the values of `event`, `id` and `retry` are {@link SseFieldValues}. This
 * file keeps the line and field state machine, the line limit, stream offsets and the BOM.
 *
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
import { SseError } from '../errors.js';
import { SseEventData, type SseDataView, type SseEventStart } from './SseEventData.js';
import type { SseFastPathSeam } from './fastPathSeam.js';
import { SseFieldValues } from './SseFieldValues.js';

/** Default line and event size limit: 8 MiB. */
export const DEFAULT_MAX_SSE_BYTES = 8 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const BOM = Uint8Array.of(0xef, 0xbb, 0xbf);
/** Bytes of a field name kept: the longest known name is "retry" (the length counts the rest). */
const MAX_FIELD_NAME = 5;

const STATE_START = 0; // at the start of a line, nothing read
const STATE_FIELD = 1; // reading the field name
const STATE_VALUE_FIRST = 2; // after the colon: one leading space is stripped
const STATE_VALUE = 3; // reading the value
const STATE_COMMENT = 4; // a line starting with ':'

export interface SseFramerOptions {
  /** Called at each dispatched event (a blank line after at least one `data` field). Return
   * `false` to make {@link SseFramer.feed} return right after this event. */
  onFrame(framer: SseFramer): boolean | void;
  /** A `retry` field made only of ASCII digits. */
  onRetry?: ((ms: number) => void) | undefined;
  /** @defaultValue 8 MiB */
  maxLineBytes?: number | undefined;
  /** Limit on one event's joined `data`. @defaultValue 8 MiB */
  maxEventBytes?: number | undefined;
}

/** Up to this many bytes, line ends are searched with a loop instead of indexOf. */
const SMALL_SCAN = 96;
/**
 * Two kinds of public member: the framing API for whoever owns the framer ({@link SseParser},
 * `SpeechEventScanner`): `feed`, `end`, `reset`, the offsets and, during `onFrame`, the dispatched
 * event ({@link SseDataView}, `isMessage`, `hasOwnId`, `eventType`, `lastEventId`); and the
 * fast-path seam ({@link SseFastPathSeam}), which only `Base64Stage` uses, through that interface.
 * The framer's own parts ({@link SseEventData}, {@link SseFieldValues}) are internal to it.
 */
export class SseFramer implements SseDataView, SseEventStart, SseFastPathSeam {
  private readonly opts: SseFramerOptions;
  private readonly maxLine: number;

  /** Joined `data` of the event being dispatched: `data[dataStart..dataStart + dataLength)`: the
   * framer's own buffer, or the fed chunk itself. Valid during onFrame only, and read only there:
   * the three are written by the framer (through {@link SseEventData.viewInto}). */
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

  /** The current event's joined `data`, and its size limit. */
  private readonly eventData: SseEventData;
  /** `event`, `id` and `retry`. */
  private readonly fields = new SseFieldValues();

  private state = STATE_START;
  /** The line being read is a `data` field (any other field is {@link fields}'). */
  private dataField = false;
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
    this.eventData = new SseEventData(options.maxEventBytes ?? DEFAULT_MAX_SSE_BYTES, this);
    this.data = this.eventData.buffer;
  }

  /** The dispatched event's type (`'message'` when none was given). Allocates a string. */
  eventType(): string {
    return this.fields.eventType();
  }
  /** The last event ID: sticky across events, and set only when a blank line dispatches a block
   * (an unfinished block's `id` does not count). During onFrame, the dispatched event's. */
  get lastEventId(): string {
    return this.fields.lastEventId;
  }

  // ---- The fast-path seam (SseFastPathSeam: documented there; for Base64Stage only) ----
  get inFirstDataLine(): boolean {
    return this.state === STATE_VALUE && this.dataField && this.eventData.firstLineInBuffer;
  }
  get pendingData(): Buffer {
    return this.eventData.buffer;
  }
  get pendingDataLength(): number {
    return this.eventData.length;
  }
  takePendingData(keep: number): void {
    this.eventData.takeAfter(keep);
  }
  skipData(n: number): void {
    this.offset += n;
    this.lineBytes += n;
    if (this.lineBytes > this.maxLine) this.lineTooLong();
    this.eventData.skip(n);
  }
  get dataRoom(): number {
    const line = this.maxLine - this.lineBytes;
    const event = this.eventData.room;
    return line < event ? line : event;
  }
  restoreData(at: number, src: Uint8Array, a: number, b: number): void {
    this.eventData.restore(at, src, a, b);
  }
  // ---- end of the seam ----

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
        const isData = st === STATE_VALUE && this.dataField;
        const eol = isData && n - i <= SMALL_SCAN ? this.copyDataToEol(chunk, i, n) : this.lineEnd(chunk, i, n);
        if (isData && eol < n && !this.copied && this.eventData.firstLineEmpty && chunk instanceof Buffer) {
          // The event's first data line, whole in this chunk: keep it where it is (no copy).
          this.lineBytes += eol - i;
          if (this.lineBytes > this.maxLine) this.lineTooLong();
          this.eventData.holdInPlace(chunk, i, eol);
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
          this.eventData.checkLimit();
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
    this.eventData.copyInPlace();
    this.offset = base + i;
    return i;
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

  /** The field name is complete: `data` is framed here, any other field is {@link fields}'. */
  private beginValue(): void {
    const f = this.fieldName;
    const isData = this.fieldLength === 4 && f[0] === 0x64 && f[1] === 0x61 && f[2] === 0x74 && f[3] === 0x61; // data
    this.dataField = isData;
    if (isData) this.eventData.beginLine();
    else this.fields.begin(f, this.fieldLength);
  }

  /** Small chunks: the line end is found while the data is copied (one loop, not a search and
   * a copy); the copy is then checked against the limits by the caller, line limit first. */
  private copyDataToEol(chunk: Uint8Array, i: number, n: number): number {
    const eol = this.eventData.copyToEol(chunk, i, n);
    this.copied = true;
    return eol;
  }

  private appendValue(chunk: Uint8Array, a: number, b: number): void {
    if (this.dataField) this.eventData.append(chunk, a, b);
    else this.fields.append(chunk, a, b);
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
    if (this.dataField) return;
    const retry = this.fields.endLine();
    this.hasOwnId = this.fields.hasOwnId;
    if (retry >= 0) this.opts.onRetry?.(retry);
  }

  private dispatch(): void {
    this.fields.dispatch();
    if (this.eventData.lines > 0) {
      this.isMessage = this.fields.isMessage;
      this.eventData.viewInto(this);
      if (this.opts.onFrame(this) === false) this.paused = true;
    }
    this.resetEvent();
  }

  private resetEvent(): void {
    this.eventData.reset();
    this.data = this.eventData.buffer;
    this.dataStart = 0;
    this.dataLength = 0;
    this.fields.endEvent();
    this.hasOwnId = false;
    this.eventOpen = false;
  }
}
