import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { SseError } from '../../src/errors.js';
import { SseParseStream } from '../../src/sse/SseParseStream.js';
import type { SseEvent } from '../../src/sse/SseParser.js';

async function collect(
  chunks: (string | Buffer)[],
  stream = new SseParseStream(),
): Promise<{ events: SseEvent[]; retries: number[]; warnings: SseError[]; error?: unknown; stream: SseParseStream }> {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  const warnings: SseError[] = [];
  stream.on('retry', (ms: number) => retries.push(ms));
  stream.on('warning', (w: SseError) => warnings.push(w));
  let error: unknown;
  try {
    await pipeline(
      Readable.from(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c))),
      stream,
      async (src: AsyncIterable<SseEvent>) => {
        for await (const e of src) events.push(e);
      },
    );
  } catch (e) {
    error = e;
  }
  return { events, retries, warnings, error, stream };
}

describe('SseParseStream', () => {
  it('turns bytes into {event, data, id?} objects, with the sticky id as a property', async () => {
    const r = await collect(['id: 4\nevent: a\ndata: x\n\n', 'data: y\n', '\n']);
    expect(r.events).toEqual([
      { event: 'a', data: 'x', id: '4' },
      { event: 'message', data: 'y' },
    ]);
    expect(r.stream.lastEventId).toBe('4');
  });
  it('an id in a block cut off by the end of the stream does not become the last event id', async () => {
    const r = await collect(['id: 1\ndata: a\n\nid: 2\ndata: b']);
    expect(r.events).toEqual([{ event: 'message', data: 'a', id: '1' }]);
    expect(r.stream.lastEventId).toBe('1');
  });
  it('end(chunk) with an unfinished last block keeps the id of the last finished one', async () => {
    const s = new SseParseStream();
    s.on('warning', () => {});
    s.resume();
    const done = new Promise((resolve) => s.on('end', resolve));
    s.end('id: 1\ndata: a\n\nid: 2\ndata: b');
    await done;
    expect(s.lastEventId).toBe('1');
  });
  it('emits retry values and a warning for an unfinished last event', async () => {
    const r = await collect(['retry: 3000\ndata: a\n\ndata: cut']);
    expect(r.retries).toEqual([3000]);
    expect(r.events).toHaveLength(1);
    expect(r.warnings.map((w) => w.code)).toEqual(['SSE_TRUNCATED']);
    expect(r.error).toBeUndefined();
  });
  it('errors with SSE_LINE_TOO_LONG after the earlier events were emitted', async () => {
    const stream = new SseParseStream({ maxLineBytes: 100 });
    const events: SseEvent[] = [];
    stream.on('data', (e: SseEvent) => events.push(e));
    const error = await new Promise((resolve) => {
      stream.on('error', resolve);
      stream.write(Buffer.from('data: a\n\n'));
      stream.write(Buffer.from(`data: ${'x'.repeat(200)}\n\n`));
    });
    expect(events).toEqual([{ event: 'message', data: 'a' }]);
    expect(error).toBeInstanceOf(SseError);
    expect(error).toMatchObject({ code: 'SSE_LINE_TOO_LONG', byteOffset: 9 });
  });
});
