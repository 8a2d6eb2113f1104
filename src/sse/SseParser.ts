/**
 * A pure, byte-level WHATWG event-stream parser: bytes in, `{event, data, id?}` out.
 *
 * It follows the spec's interpretation rules: a leading BOM (also split across chunks) is
 * dropped; CR, LF and CRLF end lines (also a CRLF split across chunks); `:` lines are comments; a
 * field with no colon has an empty value; exactly one space after the colon is stripped; `data`
 * lines are joined with `\n`; an `id` containing NUL is ignored; an `id` becomes the last event
 * ID only when the blank line ending its block is read (also for a block without data); `retry`
 * counts only when it is all ASCII digits; an unfinished last event is dropped at the end (and
 * reported as a warning), its `id` with it; UTF-8 is decoded per complete field, so a character
 * split across chunks survives.
 *
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 * @example
 * const parser = createSseParser({ onEvent: (e) => console.log(e.event, e.data) });
 * parser.feed(bytes);
 * parser.end();
 */
import { SseError } from '../errors.js';
import { SseFramer } from './SseFramer.js';

export { DEFAULT_MAX_SSE_BYTES } from './SseFramer.js';

/** One dispatched event. */
export interface SseEvent {
  /** The `event` field, `'message'` when absent or empty. */
  event: string;
  /** The `data` lines joined with `\n`. */
  data: string;
  /** The event's own `id` field, when it had one (the sticky id is {@link SseParser.lastEventId}). */
  id?: string;
}

export interface SseParserOptions {
  onEvent(event: SseEvent): void;
  /** A valid `retry` field (milliseconds). */
  onRetry?(ms: number): void;
  /** Non-fatal findings: an unfinished event dropped at the end (code `SSE_TRUNCATED`). */
  onWarning?(warning: SseError): void;
  /** A line longer than this throws `SSE_LINE_TOO_LONG`. @defaultValue 8 MiB */
  maxLineBytes?: number | undefined;
  /** An event whose joined data is longer than this throws `SSE_EVENT_TOO_LARGE`. @defaultValue 8 MiB */
  maxEventBytes?: number | undefined;
}

export interface SseParser {
  /** Parses the next bytes. Throws {@link SseError} on a size limit; the parser is then done. */
  feed(chunk: Uint8Array): void;
  /** End of stream: drops (and reports) an unfinished event. */
  end(): void;
  /** Starts over for a new stream (forgets the last event ID too). */
  reset(): void;
  /** The sticky last event ID, as of the last blank line that ended a block: an unfinished
   * block's `id` is not counted, so a reconnect with it resumes at the event that was cut off. */
  readonly lastEventId: string;
  /** Bytes consumed so far. */
  readonly byteOffset: number;
}

/** Builds the {@link SseError} reported for a body that ended inside an event. */
export function truncationError(byteOffset: number, what: string, eventIndex?: number): SseError {
  return new SseError('SSE_TRUNCATED', `the stream ended inside ${what} starting at byte ${byteOffset}`, {
    byteOffset,
    ...(eventIndex === undefined ? {} : { eventIndex }),
  });
}

/** Creates a {@link SseParser}. */
export function createSseParser(options: SseParserOptions): SseParser {
  const framer = new SseFramer({
    maxLineBytes: options.maxLineBytes,
    maxEventBytes: options.maxEventBytes,
    onRetry: options.onRetry,
    onFrame(f) {
      const event: SseEvent = { event: f.eventType(), data: f.data.toString('utf8', f.dataStart, f.dataStart + f.dataLength) };
      if (f.hasOwnId) event.id = f.lastEventId;
      options.onEvent(event);
    },
  });
  let failed: unknown = null;
  return {
    feed(chunk) {
      if (failed) throw failed;
      try {
        framer.feed(chunk);
      } catch (err) {
        failed = err;
        throw err;
      }
    },
    end() {
      if (failed) return;
      const start = framer.eventStartOffset;
      if (framer.end()) options.onWarning?.(truncationError(start, 'an event, which was dropped,'));
    },
    reset() {
      failed = null;
      framer.reset();
    },
    get lastEventId() {
      return framer.lastEventId;
    },
    get byteOffset() {
      return framer.offset;
    },
  };
}
