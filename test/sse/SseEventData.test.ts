import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseError } from '../../src/errors.js';
import { SseEventData, type SseDataView } from '../../src/sse/SseEventData.js';

const START = { eventStartOffset: 123 };

function view(d: SseEventData): string {
  const v: SseDataView = { data: Buffer.alloc(0), dataStart: 0, dataLength: 0 };
  d.viewInto(v);
  return v.data.toString('latin1', v.dataStart, v.dataStart + v.dataLength);
}

function errorOf(fn: () => void): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return null;
}

describe('SseEventData', () => {
  it('joins data lines with a LF and hands them over from its own buffer', () => {
    const d = new SseEventData(1024, START);
    d.beginLine();
    d.append(Buffer.from('first'), 0, 5);
    d.beginLine();
    d.append(Buffer.from('xsecondx'), 1, 7);
    expect(d.lines).toBe(2);
    expect(view(d)).toBe('first\nsecond');
  });

  it('a line kept in place is handed over from the chunk itself, and copied once the chunk must be given back', () => {
    const d = new SseEventData(1024, START);
    const chunk = Buffer.from('data: hello\n\n');
    d.beginLine();
    d.holdInPlace(chunk, 6, 11);
    const v: SseDataView = { data: Buffer.alloc(0), dataStart: 0, dataLength: 0 };
    d.viewInto(v);
    expect(v.data).toBe(chunk);
    expect([v.dataStart, v.dataLength]).toEqual([6, 5]);
    d.copyInPlace();
    chunk.fill(0x21); // the caller reuses its buffer
    expect(view(d)).toBe('hello');
  });

  it('copyToEol copies up to the first LF or CR and says where it stopped', () => {
    const d = new SseEventData(1024, START);
    d.beginLine();
    const chunk = Buffer.from('abc\rdef');
    expect(d.copyToEol(chunk, 0, chunk.length)).toBe(3);
    expect(d.copyToEol(chunk, 4, chunk.length)).toBe(chunk.length);
    expect(view(d)).toBe('abcdef');
  });

  it('bytes held outside count against the limit, and the error names where the event started', () => {
    const d = new SseEventData(10, START);
    d.beginLine();
    d.append(Buffer.from('0123456'), 0, 7);
    d.takeAfter(2); // "23456" now held outside
    expect(d.length).toBe(2);
    expect(d.room).toBe(3);
    d.skip(3); // exactly at the limit
    const err = errorOf(() => d.skip(1));
    expect(err).toBeInstanceOf(SseError);
    expect((err as SseError).code).toBe('SSE_EVENT_TOO_LARGE');
    expect((err as SseError).byteOffset).toBe(123);
  });

  it('a line too long to keep in place is refused at once', () => {
    const d = new SseEventData(4, START);
    d.beginLine();
    expect(() => d.holdInPlace(Buffer.from('12345'), 0, 5)).toThrow(SseError);
  });

  it('held bytes restored at their position give back exactly the data (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.uint8Array({ maxLength: 300 }), fc.nat(), (bytes, after, k) => {
        const src = Buffer.from(bytes);
        const keep = k % (src.length + 1);
        const d = new SseEventData(1 << 20, START);
        d.beginLine();
        d.append(src, 0, src.length);
        // A fast path takes everything after `keep` and keeps it elsewhere; framing goes on after
        // it; then the held bytes come back into the middle, where they were (as Base64Stage does).
        d.takeAfter(keep);
        const elsewhere = Buffer.from(src.subarray(keep));
        d.append(after, 0, after.length);
        d.restore(keep, elsewhere, 0, elsewhere.length);
        expect(d.room).toBe((1 << 20) - src.length - after.length);
        expect(Buffer.from(view(d), 'latin1').equals(Buffer.concat([src, after]))).toBe(true);
      }),
    );
  });

  it('reset forgets the event: no lines, no bytes held outside, the whole limit free again', () => {
    const d = new SseEventData(100, START);
    d.beginLine();
    d.append(Buffer.from('abc'), 0, 3);
    d.skip(50);
    d.reset();
    expect([d.lines, d.length, d.room]).toEqual([0, 0, 100]);
  });
});
