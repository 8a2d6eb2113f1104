/**
 * The values of an event stream's fields other than `data`, as {@link SseFramer} reads them
 * (WHATWG event-stream interpretation): `event` (the type of the event being read), `id` (the
 * last event ID, sticky across events) and `retry` (the reconnection time). A value arrives in
 * pieces, since a line may span reads, and takes effect at its line's end. Apart from the framer
 * because only `data` lines are on the hot path.
 *
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
import { copyBytes, grow } from './growableBytes.js';

const NUL = 0x00;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const INITIAL_VALUE_BYTES = 64;
const MESSAGE = Buffer.from('message');

export class SseFieldValues {
  private eventBuf: Buffer = Buffer.allocUnsafe(INITIAL_VALUE_BYTES);
  private eventLength = 0;
  /** The `id` line being read; it replaces the last event ID at its end unless it holds a NUL. */
  private idTmp: Buffer = Buffer.allocUnsafe(INITIAL_VALUE_BYTES);
  private idTmpLength = 0;
  private idHasNul = false;
  /** The last event ID (sticky). */
  private idBuf: Buffer = Buffer.allocUnsafe(INITIAL_VALUE_BYTES);
  private idLength = 0;
  private idString: string | null = '';
  private retryValue = 0;
  private retryDigits = true;
  private retryLength = 0;

  /** An `event` line starts: its value replaces the event type. */
  beginEvent(): void {
    this.eventLength = 0;
  }

  appendEvent(chunk: Uint8Array, a: number, b: number): void {
    const len = this.eventLength + (b - a);
    if (len > this.eventBuf.length) this.eventBuf = grow(this.eventBuf, len);
    copyBytes(chunk, a, b, this.eventBuf, this.eventLength);
    this.eventLength = len;
  }

  beginId(): void {
    this.idTmpLength = 0;
    this.idHasNul = false;
  }

  appendId(chunk: Uint8Array, a: number, b: number): void {
    const len = this.idTmpLength + (b - a);
    if (len > this.idTmp.length) this.idTmp = grow(this.idTmp, len);
    for (let k = a; k < b; k++) if (chunk[k] === NUL) this.idHasNul = true;
    copyBytes(chunk, a, b, this.idTmp, this.idTmpLength);
    this.idTmpLength = len;
  }

  /** The `id` line ended: it becomes the last event ID unless it held a NUL. True when it did. */
  commitId(): boolean {
    if (this.idHasNul) return false;
    const t = this.idBuf;
    this.idBuf = this.idTmp;
    this.idTmp = t;
    this.idLength = this.idTmpLength;
    this.idString = null;
    return true;
  }

  beginRetry(): void {
    this.retryValue = 0;
    this.retryDigits = true;
    this.retryLength = 0;
  }

  appendRetry(chunk: Uint8Array, a: number, b: number): void {
    for (let k = a; k < b; k++) {
      const c = chunk[k]!;
      if (c < DIGIT_0 || c > DIGIT_9) this.retryDigits = false;
      else this.retryValue = this.retryValue * 10 + (c - DIGIT_0);
    }
    this.retryLength += b - a;
  }

  /** The `retry` line's value in ms, or -1 when it was empty or not all ASCII digits (ignored). */
  retry(): number {
    return this.retryDigits && this.retryLength > 0 ? this.retryValue : -1;
  }

  /** Whether the event's type is `message`: no `event` field, an empty one, or "message". */
  get isMessage(): boolean {
    return this.eventLength === 0 || (this.eventLength === MESSAGE.length && this.eventBuf.compare(MESSAGE, 0, MESSAGE.length, 0, this.eventLength) === 0);
  }

  /** The event's type (`'message'` when none was given). Allocates a string. */
  eventType(): string {
    return this.eventLength === 0 ? 'message' : this.eventBuf.toString('utf8', 0, this.eventLength);
  }

  get lastEventId(): string {
    if (this.idString === null) this.idString = this.idBuf.toString('utf8', 0, this.idLength);
    return this.idString;
  }

  /** The event was dispatched (or dropped): the next one starts without a type. */
  endEvent(): void {
    this.eventLength = 0;
  }

  /** A new stream: the last event ID is forgotten too. */
  reset(): void {
    this.eventLength = 0;
    this.idLength = 0;
    this.idString = '';
  }
}
