/**
 * The fields other than `data`, as {@link SseFramer} reads them (WHATWG event-stream
 * interpretation): which names they are, and their values: `event` (the type of the event being
 * read), `id` (the last event ID, sticky across events) and `retry` (the reconnection time); any
 * other name is ignored. A value arrives in pieces, since a line may span reads, and takes effect
 * at its line's end. Apart from the framer because only `data` lines are on the hot path: the
 * framer recognises `data` itself and hands every other field line here.
 *
 * The `id` takes effect in two steps, as the spec's "last event ID buffer" and "last event ID
 * string": its line's end sets the pending id of the block being read, and only the blank line
 * that dispatches the block (with data or without) makes it the last event ID. A block cut off
 * by the end of the stream leaves the last event ID as it was: a client resuming with
 * `Last-Event-ID` must be sent again the event it never received whole.
 *
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
import { copyBytes, grow } from '../internal/growableBytes.js';

const NUL = 0x00;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const INITIAL_VALUE_BYTES = 64;
const MESSAGE = Buffer.from('message');
/** No reconnection time: the line was no `retry`, or an empty one or one not all ASCII digits. */
const NO_RETRY = -1;

const FIELD_OTHER = 0; // ignored
const FIELD_EVENT = 1;
const FIELD_ID = 2;
const FIELD_RETRY = 3;

/** The field named `f[0..length)`. `length` counts the whole name, and the known names are at
 * most five bytes long, so `f` needs to hold no more than its first five. */
function fieldOf(f: Uint8Array, length: number): number {
  switch (length) {
    case 2:
      return f[0] === 0x69 && f[1] === 0x64 ? FIELD_ID : FIELD_OTHER; // id
    case 5:
      if (f[0] === 0x65 && f[1] === 0x76 && f[2] === 0x65 && f[3] === 0x6e && f[4] === 0x74) return FIELD_EVENT;
      if (f[0] === 0x72 && f[1] === 0x65 && f[2] === 0x74 && f[3] === 0x72 && f[4] === 0x79) return FIELD_RETRY;
      return FIELD_OTHER;
    default:
      return FIELD_OTHER;
  }
}

/** @internal Part of {@link SseFramer}, used by it only (its public methods are the framer's, not an API). */
export class SseFieldValues {
  /** The field of the line being read. */
  private field = FIELD_OTHER;
  private eventBuf: Buffer = Buffer.allocUnsafe(INITIAL_VALUE_BYTES);
  private eventLength = 0;
  /** The `id` line being read; it becomes the pending id at its end unless it holds a NUL. */
  private idTmp: Buffer = Buffer.allocUnsafe(INITIAL_VALUE_BYTES);
  private idTmpLength = 0;
  private idHasNul = false;
  /** The spec's last event ID buffer, set by an `id` line of the block being read: meaningful
   * only while {@link idPending} is true (otherwise it equals the last event ID). */
  private idNext: Buffer = Buffer.allocUnsafe(INITIAL_VALUE_BYTES);
  private idNextLength = 0;
  private idPending = false;
  /** The last event ID (sticky), as of the last dispatched block. */
  private idBuf: Buffer = Buffer.allocUnsafe(INITIAL_VALUE_BYTES);
  private idLength = 0;
  private idString: string | null = '';
  private retryValue = 0;
  private retryDigits = true;
  private retryLength = 0;
  private ownId = false;

  /** A field line other than `data` starts, its name `name[0..length)`. */
  begin(name: Uint8Array, length: number): void {
    const field = fieldOf(name, length);
    this.field = field;
    if (field === FIELD_EVENT) this.beginEvent();
    else if (field === FIELD_ID) this.beginId();
    else if (field === FIELD_RETRY) this.beginRetry();
  }

  /** More of the line's value: `chunk[a..b)`. */
  append(chunk: Uint8Array, a: number, b: number): void {
    switch (this.field) {
      case FIELD_EVENT:
        this.appendEvent(chunk, a, b);
        return;
      case FIELD_ID:
        this.appendId(chunk, a, b);
        return;
      case FIELD_RETRY:
        this.appendRetry(chunk, a, b);
        return;
      default:
        return;
    }
  }

  /** The line ended and its value takes effect. Returns a valid `retry` line's value in ms, else
   * {@link NO_RETRY} (an empty `retry` or one not all ASCII digits is ignored). */
  endLine(): number {
    if (this.field === FIELD_ID) {
      if (this.commitId()) this.ownId = true;
    } else if (this.field === FIELD_RETRY) return this.retry();
    return NO_RETRY;
  }

  /** Whether the event being read has an `id` field that took effect (one without NUL). */
  get hasOwnId(): boolean {
    return this.ownId;
  }

  /** An `event` line starts: its value replaces the event type. */
  private beginEvent(): void {
    this.eventLength = 0;
  }

  private appendEvent(chunk: Uint8Array, a: number, b: number): void {
    const len = this.eventLength + (b - a);
    if (len > this.eventBuf.length) this.eventBuf = grow(this.eventBuf, len);
    copyBytes(chunk, a, b, this.eventBuf, this.eventLength);
    this.eventLength = len;
  }

  private beginId(): void {
    this.idTmpLength = 0;
    this.idHasNul = false;
  }

  private appendId(chunk: Uint8Array, a: number, b: number): void {
    const len = this.idTmpLength + (b - a);
    if (len > this.idTmp.length) this.idTmp = grow(this.idTmp, len);
    for (let k = a; k < b; k++) if (chunk[k] === NUL) this.idHasNul = true;
    copyBytes(chunk, a, b, this.idTmp, this.idTmpLength);
    this.idTmpLength = len;
  }

  /** The `id` line ended: it becomes the block's pending id unless it held a NUL. True when it
   * did. The buffers are swapped, not copied, so a long id costs no copy and no allocation. */
  private commitId(): boolean {
    if (this.idHasNul) return false;
    const t = this.idNext;
    this.idNext = this.idTmp;
    this.idTmp = t;
    this.idNextLength = this.idTmpLength;
    this.idPending = true;
    return true;
  }

  private beginRetry(): void {
    this.retryValue = 0;
    this.retryDigits = true;
    this.retryLength = 0;
  }

  private appendRetry(chunk: Uint8Array, a: number, b: number): void {
    for (let k = a; k < b; k++) {
      const c = chunk[k]!;
      if (c < DIGIT_0 || c > DIGIT_9) this.retryDigits = false;
      else this.retryValue = this.retryValue * 10 + (c - DIGIT_0);
    }
    this.retryLength += b - a;
  }

  /** The `retry` line's value in ms, or {@link NO_RETRY} when it was empty or not all ASCII digits. */
  private retry(): number {
    return this.retryDigits && this.retryLength > 0 ? this.retryValue : NO_RETRY;
  }

  /** Whether the event's type is `message`: no `event` field, an empty one, or "message". */
  get isMessage(): boolean {
    return (
      this.eventLength === 0 ||
      (this.eventLength === MESSAGE.length && this.eventBuf.compare(MESSAGE, 0, MESSAGE.length, 0, this.eventLength) === 0)
    );
  }

  /** The event's type (`'message'` when none was given). Allocates a string. */
  eventType(): string {
    return this.eventLength === 0 ? 'message' : this.eventBuf.toString('utf8', 0, this.eventLength);
  }

  /** The last event ID, as of the last dispatched block. */
  get lastEventId(): string {
    if (this.idString === null) this.idString = this.idBuf.toString('utf8', 0, this.idLength);
    return this.idString;
  }

  /** A blank line dispatches the block (whether or not it had data): its pending id, if an `id`
   * line set one, becomes the last event ID. Called before the event is handed over, so that
   * {@link lastEventId} is the event's own id while it is. */
  dispatch(): void {
    if (!this.idPending) return;
    const t = this.idBuf;
    this.idBuf = this.idNext;
    this.idNext = t; // stale now, and unread until the next `id` line sets it again
    this.idLength = this.idNextLength;
    this.idString = null;
    this.idPending = false;
  }

  /** The event was dispatched or dropped: the next one starts without a type, own id or pending
   * id (after a drop, the cut-off block's id is forgotten: it never took effect). */
  endEvent(): void {
    this.eventLength = 0;
    this.ownId = false;
    this.idPending = false;
  }

  /** A new stream: the last event ID is forgotten too. */
  reset(): void {
    this.eventLength = 0;
    this.ownId = false;
    this.idPending = false;
    this.idLength = 0;
    this.idString = '';
  }
}
