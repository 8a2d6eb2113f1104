/**
 * A Node Transform over {@link createSseParser}: bytes in, objectMode {@link SseEvent} out.
 *
 * Events: `'retry'` (number, milliseconds) for each valid `retry` field, and `'warning'`
 * ({@link SseError} `SSE_TRUNCATED`) when the stream ends inside an event, which is dropped as the
 * WHATWG rules say. A size-limit fault (`SSE_LINE_TOO_LONG` / `SSE_EVENT_TOO_LARGE`) errors the
 * stream, after every earlier event was pushed. (Node discards a readable buffer on error: a consumer
 * that must see every event before the fault reads in flowing mode, with a `'data'` listener.)
 *
 * @example
 * const res = await fetch(url, { method: 'POST', body });
 * for await (const ev of Readable.fromWeb(res.body).pipe(new SseParseStream())) {
 *   if (ev.event === 'message') console.log(JSON.parse(ev.data));
 * }
 */
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import type { SseError } from '../errors.js';
import { createSseParser } from './SseParser.js';
import type { SseEvent, SseParser } from './SseParser.js';

export interface SseParseStreamOptions {
  /** @defaultValue 8 MiB */
  maxLineBytes?: number;
  /** @defaultValue 8 MiB */
  maxEventBytes?: number;
}

export class SseParseStream extends Transform {
  private readonly parser: SseParser;

  constructor(options: SseParseStreamOptions = {}) {
    super({ readableObjectMode: true, writableObjectMode: false });
    this.parser = createSseParser({
      maxLineBytes: options.maxLineBytes,
      maxEventBytes: options.maxEventBytes,
      onEvent: (event: SseEvent) => {
        this.push(event);
      },
      onRetry: (ms: number) => {
        this.emit('retry', ms);
      },
      onWarning: (warning: SseError) => {
        this.emit('warning', warning);
      },
    });
  }

  /** The sticky last event ID (what a reconnect sends as `Last-Event-ID`). */
  get lastEventId(): string {
    return this.parser.lastEventId;
  }

  override _transform(chunk: Buffer | string, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      this.parser.feed(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
      callback();
    } catch (err) {
      callback(err as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    try {
      this.parser.end();
      callback();
    } catch (err) {
      callback(err as Error);
    }
  }
}
