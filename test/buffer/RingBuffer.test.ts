import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RingBuffer } from '../../src/buffer/RingBuffer.js';

/** Writes `bytes` through the writer API (writeIndex, then buffer), as far as they fit. */
function write(ring: RingBuffer, bytes: Uint8Array): number {
  let done = 0;
  while (done < bytes.length && ring.free > 0) {
    const at = ring.writeIndex;
    const n = Math.min(ring.writeSpanLength, bytes.length - done);
    ring.buffer.set(bytes.subarray(done, done + n), at);
    ring.commitWrite(n);
    done += n;
  }
  return done;
}

function read(ring: RingBuffer, max: number): number[] {
  const out: number[] = [];
  while (out.length < max && ring.length > 0) {
    const n = Math.min(ring.readSpanLength, max - out.length);
    out.push(...ring.buffer.subarray(ring.readIndex, ring.readIndex + n));
    ring.consume(n);
  }
  return out;
}

describe('RingBuffer', () => {
  it('a growing ring gives the same bytes, free space and offsets as a preallocated one, across wraps', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 90 }), fc.integer({ min: 1, max: 90 })), { maxLength: 60 }),
        (ops) => {
          const capacity = 100;
          const fixed = new RingBuffer(capacity);
          const growing = new RingBuffer(capacity, 8);
          for (const op of ops) {
            if (typeof op === 'number') expect(read(growing, op)).toEqual(read(fixed, op));
            else expect(write(growing, op)).toBe(write(fixed, op));
            expect([growing.length, growing.free, growing.totalWritten, growing.totalRead]).toEqual([
              fixed.length,
              fixed.free,
              fixed.totalWritten,
              fixed.totalRead,
            ]);
          }
          expect(growing.buffer.length).toBeLessThanOrEqual(capacity);
        },
      ),
    );
  });

  it('a growing ring starts small and never grows past its capacity', () => {
    const ring = new RingBuffer(1000, 64);
    expect(ring.buffer.length).toBe(64);
    expect(write(ring, new Uint8Array(1000).fill(7))).toBe(1000);
    expect(ring.buffer.length).toBe(1000);
    expect(ring.free).toBe(0);
  });

  it('by default all of the capacity is allocated up front', () => {
    expect(new RingBuffer(5000).buffer.length).toBe(5000);
  });
});
