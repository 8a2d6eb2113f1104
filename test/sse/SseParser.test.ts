import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseError } from '../../src/errors.js';
import { createSseParser } from '../../src/sse/SseParser.js';
import type { SseEvent, SseParserOptions } from '../../src/sse/SseParser.js';

interface Run {
  events: SseEvent[];
  retries: number[];
  warnings: SseError[];
  lastEventId: string;
  error?: unknown;
}

function parse(chunks: (string | Uint8Array)[], opts: Partial<SseParserOptions> = {}): Run {
  const r: Run = { events: [], retries: [], warnings: [], lastEventId: '' };
  const p = createSseParser({
    ...opts,
    onEvent: (e) => r.events.push(e),
    onRetry: (ms) => r.retries.push(ms),
    onWarning: (w) => r.warnings.push(w),
  });
  try {
    for (const c of chunks) p.feed(typeof c === 'string' ? Buffer.from(c) : c);
    p.end();
  } catch (e) {
    r.error = e;
  }
  r.lastEventId = p.lastEventId;
  return r;
}
const bytes = (...xs: number[]): Uint8Array => Uint8Array.from(xs);

/** A plain model of the WHATWG last event ID: an `id` line without NUL sets the buffer, a blank
 * line makes the buffer the last event ID; the unterminated rest of `text` changes nothing. */
function dispatchedLastEventId(text: string): string {
  const lines = text.split(/\r\n|\r|\n/);
  lines.pop(); // the last piece has no line end yet
  let buffer = '';
  let last = '';
  for (const line of lines) {
    if (line === '') last = buffer;
    else if (line === 'id' || line.startsWith('id:')) {
      const value = line.slice(3).replace(/^ /, '');
      if (!value.includes('\u0000')) buffer = value;
    }
  }
  return last;
}

describe('SseParser (WHATWG event-stream rules)', () => {
  it('a leading BOM is dropped', () => {
    expect(parse(['\uFEFFdata: a\n\n']).events).toEqual([{ event: 'message', data: 'a' }]);
  });
  it('a BOM split across chunks is dropped', () => {
    expect(parse([bytes(0xef), bytes(0xbb), bytes(0xbf), 'data: a\n\n']).events).toEqual([{ event: 'message', data: 'a' }]);
  });
  it('only one BOM is dropped, and only at the start', () => {
    const r = parse(['\uFEFF\uFEFFdata: a\n\n']);
    expect(r.events).toEqual([]); // the second BOM is part of a field name
  });
  it('a partial BOM followed by other bytes is content', () => {
    const r = parse([bytes(0xef, 0xbb), 'data: a\n\ndata: b\n\n']);
    expect(r.events).toEqual([{ event: 'message', data: 'b' }]);
  });
  it('LF, CR and CRLF each end a line', () => {
    expect(parse(['data: a\n\ndata: b\r\rdata: c\r\n\r\n']).events.map((e) => e.data)).toEqual(['a', 'b', 'c']);
  });
  it('a CRLF split across chunks ends one line', () => {
    const r = parse(['data: a\r', '\ndata: b\r', '\n\r', '\n']);
    expect(r.events).toEqual([{ event: 'message', data: 'a\nb' }]);
  });
  it('a CR at the end of a chunk followed by a non-LF byte ends the line', () => {
    expect(parse(['data: a\r', 'data: b\r\r']).events).toEqual([{ event: 'message', data: 'a\nb' }]);
  });
  it('a comment line is ignored', () => {
    expect(parse([': hello\ndata: a\n:\n\n']).events).toEqual([{ event: 'message', data: 'a' }]);
  });
  it('a field with no colon has an empty value', () => {
    expect(parse(['data\ndata\n\n']).events).toEqual([{ event: 'message', data: '\n' }]);
    expect(parse(['event\ndata: a\n\n']).events).toEqual([{ event: 'message', data: 'a' }]);
  });
  it('exactly one leading space is stripped from the value', () => {
    expect(parse(['data:  two\n\ndata:none\n\n']).events.map((e) => e.data)).toEqual([' two', 'none']);
  });
  it('multi-line data is joined with \\n', () => {
    expect(parse(['data: a\ndata: b\ndata: c\n\n']).events[0]!.data).toBe('a\nb\nc');
  });
  it('an event field sets the event name, absent or empty means message', () => {
    expect(parse(['event: ping\ndata: a\n\nevent:\ndata: b\n\n']).events).toEqual([
      { event: 'ping', data: 'a' },
      { event: 'message', data: 'b' },
    ]);
  });
  it('an event with no data field is not dispatched', () => {
    expect(parse(['event: x\n\nid: 3\n\n']).events).toEqual([]);
  });
  it('an id is the event own id and also sticky on the parser', () => {
    const r = parse(['id: 7\ndata: a\n\ndata: b\n\n']);
    expect(r.events).toEqual([
      { event: 'message', data: 'a', id: '7' },
      { event: 'message', data: 'b' },
    ]);
    expect(r.lastEventId).toBe('7');
  });
  it('an id containing NUL is ignored', () => {
    const r = parse(['id: 1\n\nid: a\u0000b\ndata: x\n\n']);
    expect(r.events).toEqual([{ event: 'message', data: 'x' }]);
    expect(r.lastEventId).toBe('1');
  });
  it('an empty id resets the last event id', () => {
    expect(parse(['id: 1\n\nid\ndata: x\n\n']).lastEventId).toBe('');
  });
  it('an id becomes the last event id at the blank line that ends its block, not at its own line', () => {
    const p = createSseParser({ onEvent: () => {} });
    p.feed(Buffer.from('id: 1\ndata: a\n\nid: 2\ndata: b\n'));
    expect(p.lastEventId).toBe('1');
    p.feed(Buffer.from('\n'));
    expect(p.lastEventId).toBe('2');
  });
  it('an unfinished block at the end leaves the last event id as it was', () => {
    const r = parse(['id: 1\ndata: a\n\nid: 2\ndata: b']);
    expect(r.events).toEqual([{ event: 'message', data: 'a', id: '1' }]);
    expect(r.lastEventId).toBe('1');
    expect(parse(['id: 1\ndata: a\n\nid: 2\n']).lastEventId).toBe('1');
  });
  it('the id of a block cut off at the end does not count for a block read after it', () => {
    const events: SseEvent[] = [];
    const p = createSseParser({ onEvent: (e) => events.push(e) });
    p.feed(Buffer.from('id: 1\ndata: a\n\nid: 2\ndata: b'));
    p.end();
    p.feed(Buffer.from('data: c\n\n'));
    expect(events.at(-1)).toEqual({ event: 'message', data: 'c' });
    expect(p.lastEventId).toBe('1');
  });
  it('a block with an id but no data sets the last event id at its blank line, and dispatches nothing', () => {
    const events: SseEvent[] = [];
    const p = createSseParser({ onEvent: (e) => events.push(e) });
    p.feed(Buffer.from('id: 1\ndata: a\n\nid: 2\n'));
    expect(p.lastEventId).toBe('1');
    p.feed(Buffer.from('\n'));
    expect(p.lastEventId).toBe('2');
    expect(events).toEqual([{ event: 'message', data: 'a', id: '1' }]);
  });
  it('while an event is handed over, the last event id is its own', () => {
    const seen: string[] = [];
    const p = createSseParser({ onEvent: () => seen.push(p.lastEventId) });
    p.feed(Buffer.from('id: 1\ndata: a\n\ndata: b\n\nid: 3\ndata: c\n\n'));
    expect(seen).toEqual(['1', '1', '3']);
  });
  it('the last event id after any split is that of the last dispatched block (property)', () => {
    const lineArb = fc.constantFrom(
      '',
      '',
      'data: d',
      'data',
      ': c',
      'event: e',
      'id: 1',
      'id:2',
      'id',
      'id: €',
      'id: a\u0000b',
      'id: ',
      'retry: 5',
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(lineArb, fc.constantFrom('\n', '\r\n', '\r')), { maxLength: 16 }),
        fc.constantFrom('', 'id: 9', 'id: 9\ndata: cut', 'data: cut'),
        fc.array(fc.nat(200), { maxLength: 10 }),
        (lines, tail, cuts) => {
          const all = Buffer.from(lines.map(([l, e]) => l + e).join('') + tail);
          const expected = dispatchedLastEventId(all.toString('utf8'));
          expect(parse([all]).lastEventId).toBe(expected);
          const pts = [...new Set(cuts.map((c) => c % (all.length + 1)))].sort((a, b) => a - b);
          const chunks: Uint8Array[] = [];
          let prev = 0;
          for (const at of pts) {
            chunks.push(all.subarray(prev, at));
            prev = at;
          }
          chunks.push(all.subarray(prev));
          expect(parse(chunks).lastEventId).toBe(expected);
          // Byte by byte, the id seen after each byte is that of the blocks dispatched so far.
          const p = createSseParser({ onEvent: () => {} });
          for (let k = 0; k < all.length; k++) {
            p.feed(all.subarray(k, k + 1));
            expect(p.lastEventId).toBe(dispatchedLastEventId(all.toString('utf8', 0, k + 1)));
          }
          p.end();
          expect(p.lastEventId).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
  it('retry counts only when it is all ASCII digits', () => {
    expect(parse(['retry: 1500\nretry: 15x\nretry: -1\nretry:\nretry: 1.5\nretry:30\n\n']).retries).toEqual([1500, 30]);
  });
  it('unknown fields are ignored', () => {
    expect(parse(['foo: bar\ndata: a\n\n']).events).toEqual([{ event: 'message', data: 'a' }]);
  });
  it('an unfinished last event is dropped at the end and reported as a warning', () => {
    const r = parse(['data: a\n\ndata: b\n']);
    expect(r.events).toEqual([{ event: 'message', data: 'a' }]);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toBeInstanceOf(SseError);
    expect(r.warnings[0]!.code).toBe('SSE_TRUNCATED');
    expect(r.warnings[0]!.byteOffset).toBe(9); // where 'data: b' starts
  });
  it('a stream ending after a complete event gives no warning', () => {
    expect(parse(['data: a\n\n: bye\n']).warnings).toEqual([]);
  });
  it('a UTF-8 character split across chunks survives', () => {
    const euro = Buffer.from('data: 1€ é 😀\n\n');
    const chunks = Array.from(euro, (b) => bytes(b));
    expect(parse(chunks).events[0]!.data).toBe('1€ é 😀');
  });
  it('a line over the limit throws SSE_LINE_TOO_LONG with its byte offset, after earlier events', () => {
    const r = parse(['data: ok\n\n', `: ${'x'.repeat(100)}\n`], { maxLineBytes: 50 });
    expect(r.events).toEqual([{ event: 'message', data: 'ok' }]);
    expect(r.error).toBeInstanceOf(SseError);
    expect((r.error as SseError).code).toBe('SSE_LINE_TOO_LONG');
    expect((r.error as SseError).byteOffset).toBe(10);
  });
  it('an event over the limit throws SSE_EVENT_TOO_LARGE with its byte offset', () => {
    const r = parse(['data: ok\n\n', 'data: 0123456789\n'.repeat(10)], { maxEventBytes: 64 });
    expect(r.events).toHaveLength(1);
    expect((r.error as SseError).code).toBe('SSE_EVENT_TOO_LARGE');
    expect((r.error as SseError).byteOffset).toBe(10);
  });
  it('any split gives the same events as one chunk (property)', () => {
    const lineArb = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 10 }).map((s) => `data: ${s.replace(/[\r\n]/g, '')}`),
      fc.constantFrom('', '', ': c', 'event: x', 'event: message', 'id: 4', 'id', 'data', 'retry: 10', 'retry: z', 'data:x'),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(lineArb, fc.constantFrom('\n', '\r\n', '\r')), { maxLength: 20 }),
        fc.boolean(),
        fc.array(fc.nat(500), { maxLength: 20 }),
        (lines, bom, cuts) => {
          const text = (bom ? '\uFEFF' : '') + lines.map(([l, e]) => l + e).join('');
          const all = Buffer.from(text);
          const whole = parse([all]);
          const pts = [...new Set(cuts.map((c) => c % (all.length + 1)))].sort((a, b) => a - b);
          const chunks: Uint8Array[] = [];
          let prev = 0;
          for (const p of pts) {
            chunks.push(all.subarray(prev, p));
            prev = p;
          }
          chunks.push(all.subarray(prev));
          const split = parse(chunks);
          expect(split).toEqual(whole);
          expect(parse(Array.from(all, (b) => bytes(b)))).toEqual(whole);
        },
      ),
      { numRuns: 300 },
    );
  });
  it('reset starts a new stream and forgets the last event id', () => {
    const events: SseEvent[] = [];
    const p = createSseParser({ onEvent: (e) => events.push(e) });
    p.feed(Buffer.from('id: 1\ndata: par'));
    p.reset();
    p.feed(Buffer.from('\uFEFFdata: b\n\n'));
    expect(events).toEqual([{ event: 'message', data: 'b' }]);
    expect(p.lastEventId).toBe('');
  });
});
