/**
 * The one bounded body reader: whole bodies however they are split, a refusal as soon as the
 * limit is passed (or announced past), and the rest left unread.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readBoundedBody } from '../../src/internal/readBody.js';

/** A request whose body arrives as `chunks`; counts the chunks that were pulled. */
function request(chunks: Uint8Array[], headers: Record<string, string> = {}): IncomingMessage & { pulled: () => number } {
  let pulled = 0;
  const stream = Readable.from(
    (function* () {
      for (const c of chunks) {
        pulled++;
        yield Buffer.from(c);
      }
    })(),
    { objectMode: false, highWaterMark: 1 },
  );
  return Object.assign(stream, { headers, pulled: () => pulled }) as unknown as IncomingMessage & { pulled: () => number };
}

describe('readBoundedBody', () => {
  it('gives the whole body however it is split, when it is within the limit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 20 }), async (chunks) => {
        const total = chunks.reduce((n, c) => n + c.length, 0);
        const read = await readBoundedBody(request(chunks), total);
        expect(read.kind).toBe('body');
        if (read.kind === 'body') expect(read.bytes.equals(Buffer.concat(chunks))).toBe(true);
      }),
    );
  });

  it('refuses a body one byte over the limit, however it is split', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ minLength: 1, maxLength: 64 }), { minLength: 1, maxLength: 20 }), async (chunks) => {
        const total = chunks.reduce((n, c) => n + c.length, 0);
        expect(await readBoundedBody(request(chunks), total - 1)).toEqual({ kind: 'too_large', limit: total - 1 });
      }),
    );
  });

  it('stops reading at the chunk that passes the limit', async () => {
    const chunks = Array.from({ length: 100 }, () => new Uint8Array(10));
    const req = request(chunks);
    expect((await readBoundedBody(req, 25)).kind).toBe('too_large');
    await new Promise((resolve) => setImmediate(resolve));
    expect(req.pulled()).toBeLessThan(10);
  });

  it('refuses an announced Content-Length over the limit before reading a byte', async () => {
    const req = request([new Uint8Array(5)], { 'content-length': '1000' });
    expect(await readBoundedBody(req, 999)).toEqual({ kind: 'too_large', limit: 999 });
    expect(req.pulled()).toBe(0);
  });
});
