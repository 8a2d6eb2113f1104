import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MediaBatcher } from '../../src/telephony/MediaBatcher.js';
import type { OutboundChunking } from '../../src/telephony/providerAdapter.js';

type Sent = { media: Uint8Array } | { ack: string; counted: boolean };

function record(chunking: OutboundChunking): { batcher: MediaBatcher; sent: Sent[] } {
  const sent: Sent[] = [];
  const batcher = new MediaBatcher(chunking, {
    media: (audio) => sent.push({ media: audio.slice() }),
    ack: (name, counted) => sent.push({ ack: name, counted }),
  });
  return { batcher, sent };
}

const EXOTEL_LIKE: OutboundChunking = { quantumBytes: 320, minBatchBytes: 3200 };

/** Audio pieces (each a run of one byte value, so order is visible) with an ack after some. */
const script = fc.array(fc.record({ bytes: fc.integer({ min: 0, max: 900 }), ack: fc.boolean() }), { maxLength: 40 });

function play(chunking: OutboundChunking, steps: { bytes: number; ack: boolean }[]): { sent: Sent[]; total: number; released: number } {
  const { batcher, sent } = record(chunking);
  let total = 0;
  let released = 0;
  steps.forEach((s, i) => {
    released += batcher.push(new Uint8Array(s.bytes).fill(i % 251));
    total += s.bytes;
    if (s.ack) batcher.ack(`a${i}`, true);
  });
  released += batcher.flushPadded(0xff);
  return { sent, total, released };
}

describe('media batcher', () => {
  it('unbatched, every piece and every ack goes out at once, in order', () => {
    const { batcher, sent } = record({ quantumBytes: 0, minBatchBytes: 0 });
    expect(batcher.push(new Uint8Array([1, 2, 3]))).toBe(3);
    batcher.ack('m', true);
    expect(batcher.push(new Uint8Array([4]))).toBe(1);
    expect(sent).toEqual([{ media: new Uint8Array([1, 2, 3]) }, { ack: 'm', counted: true }, { media: new Uint8Array([4]) }]);
    expect(batcher.flushPadded(0xff)).toBe(0);
  });

  it('batched, every message is a multiple of the quantum and at least the minimum, whatever the pieces', () => {
    fc.assert(
      fc.property(script, (steps) => {
        const { sent, total, released } = play(EXOTEL_LIKE, steps);
        let bytes = 0;
        for (const s of sent) {
          if (!('media' in s)) continue;
          expect(s.media.length % 320).toBe(0);
          expect(s.media.length).toBeGreaterThanOrEqual(3200);
          bytes += s.media.length;
        }
        expect(bytes).toBe(released);
        // All audio went out; only the end is padded, by less than a batch.
        expect(bytes).toBeGreaterThanOrEqual(total);
        expect(bytes - total).toBeLessThan(total === 0 ? 1 : 3200);
      }),
    );
  });

  it('batched, each ack follows all the audio pushed before it, and none is lost', () => {
    fc.assert(
      fc.property(script, (steps) => {
        const { sent } = play(EXOTEL_LIKE, steps);
        let sentBytes = 0;
        const ackedAfter = new Map<string, number>();
        for (const s of sent) {
          if ('media' in s) sentBytes += s.media.length;
          else ackedAfter.set(s.ack, sentBytes);
        }
        let pushed = 0;
        steps.forEach((s, i) => {
          pushed += s.bytes;
          if (!s.ack) return;
          expect(ackedAfter.get(`a${i}`)).toBeGreaterThanOrEqual(pushed);
        });
        expect(ackedAfter.size).toBe(steps.filter((s) => s.ack).length);
      }),
    );
  });

  it('the audio out is the audio in, byte for byte, then silence', () => {
    fc.assert(
      fc.property(script, (steps) => {
        const { sent, total } = play(EXOTEL_LIKE, steps);
        const out = Buffer.concat(sent.flatMap((s) => ('media' in s ? [s.media] : [])));
        const expected = Buffer.concat(steps.map((s, i) => Buffer.alloc(s.bytes, i % 251)));
        expect(out.subarray(0, total).equals(expected)).toBe(true);
        expect(out.subarray(total).every((b) => b === 0xff)).toBe(true);
      }),
    );
  });

  it('a clear drops held audio and the utterance’s acks, and hands back the users’ marks', () => {
    const { batcher, sent } = record(EXOTEL_LIKE);
    batcher.push(new Uint8Array(1000));
    batcher.ack('vw:1:0', true);
    batcher.ack('mine', false);
    expect(batcher.heldBytes).toBe(1000);
    expect(batcher.drop()).toEqual(['mine']);
    expect(batcher.heldBytes).toBe(0);
    expect(batcher.flushPadded(0)).toBe(0);
    expect(sent).toEqual([]);
  });
});
