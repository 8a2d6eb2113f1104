import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OggOpusDecoder } from '../../src/codec/OpusDecoder.js';
import { OggPacketQueue } from '../../src/codec/ogg/OggPacketQueue.js';
import { OggPageReader, type OggPacket, type OggPacketInfo } from '../../src/codec/ogg/OggPageReader.js';
import { InvalidOptionError } from '../../src/errors.js';
import { collect, fixture } from './audioFixtures.js';

interface Seen {
  hex: string;
  serial: number;
  bos: boolean;
  eos: boolean;
  granule: number;
  lastOnPage: boolean;
  pageSequence: number;
  pageOffset: number;
  afterGap: boolean;
}

const seen = (bytes: Uint8Array, info: Readonly<OggPacketInfo>): Seen => ({
  hex: Buffer.from(bytes).toString('hex'),
  serial: info.serial,
  bos: info.bos,
  eos: info.eos,
  granule: info.granule,
  lastOnPage: info.lastOnPage,
  pageSequence: info.pageSequence,
  pageOffset: info.pageOffset,
  afterGap: info.afterGap,
});

function info(i: number): OggPacketInfo {
  return {
    serial: 1000 + i,
    bos: i === 0,
    eos: false,
    granule: i * 960 + 2 ** 40,
    lastOnPage: true,
    pageSequence: i,
    pageOffset: i * 4096 + 2 ** 33,
    afterGap: i % 3 === 1,
  };
}

/** Packet `i`: `i % 300 + 1` bytes of a pattern that names it. */
function packet(i: number): Uint8Array {
  return Uint8Array.from({ length: (i % 300) + 1 }, (_, k) => (i * 31 + k) & 0xff);
}

function headOf(q: OggPacketQueue): Seen {
  return {
    ...seen(q.headBytes(), {
      serial: q.headSerial,
      bos: q.headBos,
      eos: false,
      granule: q.headGranule,
      lastOnPage: true,
      pageSequence: 0,
      pageOffset: q.headPageOffset,
      afterGap: q.headAfterGap,
    }),
    pageSequence: 0,
  };
}

const expected = (i: number): Seen => ({ ...seen(packet(i), info(i)), pageSequence: 0 });

describe('OggPacketQueue', () => {
  it('gives packets back first in, first out, with their serial, BOS flag, granule and page offset', () => {
    const q = new OggPacketQueue();
    for (let i = 0; i < 5; i++) q.push(packet(i), 0, packet(i).length, info(i));
    for (let i = 0; i < 5; i++) {
      expect(headOf(q)).toEqual(expected(i));
      q.shift();
    }
    expect(q.length).toBe(0);
  });

  it('copies the bytes: overwriting the input after push does not change a queued packet', () => {
    const q = new OggPacketQueue();
    const input = new Uint8Array(1000).fill(9);
    q.push(input, 100, 400, info(0)); // > the byte-loop size: copied with set()
    q.push(input, 10, 20, info(1));
    input.fill(0);
    expect([...q.headBytes()].every((b) => b === 9)).toBe(true);
    expect(q.headBytes().length).toBe(300);
    q.shift();
    expect(q.headBytes()).toEqual(new Uint8Array(10).fill(9));
  });

  it('keeps every packet intact across growth and compaction, for any interleaving of pushes and shifts', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 60 }), (pushes) => {
        const q = new OggPacketQueue();
        let next = 0;
        let head = 0;
        for (const n of pushes) {
          for (let k = 0; k < n; k++, next++) q.push(packet(next), 0, packet(next).length, info(next));
          // Decode about half of what is queued, as a step-limited decoder does.
          for (let k = Math.ceil(q.length / 2); k > 0; k--, head++) {
            expect(headOf(q)).toEqual(expected(head));
            q.shift();
          }
        }
        expect(q.length).toBe(next - head);
        for (; head < next; head++) {
          expect(headOf(q)).toEqual(expected(head));
          q.shift();
        }
      }),
      { numRuns: 50 },
    );
  });

  it('holds a packet bigger than its arena (a large OpusTags) and empties cleanly after it', () => {
    const q = new OggPacketQueue();
    const big = new Uint8Array(200_000).fill(3);
    q.push(packet(0), 0, packet(0).length, info(0));
    q.push(big, 0, big.length, info(1));
    q.shift();
    expect(q.headBytes().length).toBe(big.length);
    q.shift();
    expect(q.length).toBe(0);
    q.push(packet(2), 0, packet(2).length, info(2));
    expect(headOf(q)).toEqual(expected(2));
  });
});

describe('OggPageReader onPacketBytes', () => {
  it('sees the same packets and positions as onPacket, for any split of a real Ogg Opus stream', () => {
    const ogg = fixture('opus/spanning-packet.opus');
    const objects: Seen[] = [];
    new OggPageReader({ onPacket: (p: OggPacket) => objects.push(seen(p.data, p)) }).push(ogg);
    expect(objects.length).toBeGreaterThan(10);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: ogg.length }), { maxLength: 20 }), (cuts) => {
        const ranges: Seen[] = [];
        const reader = new OggPageReader({ onPacketBytes: (b, start, end, i) => ranges.push(seen(b.subarray(start, end), i)) });
        let prev = 0;
        for (const cut of [...new Set(cuts)].sort((a, b) => a - b).concat(ogg.length)) {
          reader.push(ogg.slice(prev, cut));
          prev = cut;
        }
        expect(ranges).toEqual(objects);
      }),
      { numRuns: 30 },
    );
  });

  it('a packetSink gets, by its push method, the same packets and positions as onPacket, for any split', () => {
    const ogg = fixture('opus/spanning-packet.opus');
    const objects: Seen[] = [];
    new OggPageReader({ onPacket: (p: OggPacket) => objects.push(seen(p.data, p)) }).push(ogg);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: ogg.length }), { maxLength: 20 }), (cuts) => {
        const sink = {
          ranges: [] as Seen[],
          push(b: Uint8Array, start: number, end: number, i: Readonly<OggPacketInfo>): void {
            this.ranges.push(seen(b.subarray(start, end), i));
          },
        };
        const reader = new OggPageReader({ packetSink: sink });
        let prev = 0;
        for (const cut of [...new Set(cuts)].sort((a, b) => a - b).concat(ogg.length)) {
          reader.push(ogg.slice(prev, cut));
          prev = cut;
        }
        expect(sink.ranges).toEqual(objects);
      }),
      { numRuns: 30 },
    );
  });

  it('a queue as the packetSink counts every packet pushed, across emptyings, until reset', () => {
    const ogg = fixture('opus/spanning-packet.opus');
    let packets = 0;
    new OggPageReader({ onPacket: () => packets++ }).push(ogg);
    const q = new OggPacketQueue();
    new OggPageReader({ packetSink: q }).push(ogg);
    expect(q.pushed).toBe(packets);
    while (q.length > 0) q.shift(); // emptied: the queue clears itself, the count stays
    expect(q.pushed).toBe(packets);
    q.reset();
    expect(q.pushed).toBe(0);
    expect(q.length).toBe(0);
  });

  it('a reader with neither callback is an invalid option', () => {
    expect(() => new OggPageReader({})).toThrow(InvalidOptionError);
  });
});

describe('OggOpusDecoder with a backlog', () => {
  it.each(['20ms-pages', 'chained', 'stereo'])(
    '%s: pages pushed while packets still wait decode to the same samples as one call',
    (name) => {
      const ogg = fixture(`opus/${name}.opus`);
      const whole = new OggOpusDecoder();
      const expectedPcm = collect(whole.decode(ogg), whole.flush()).pcm;
      // 40 ms per call and 700-byte inputs: the queue is never empty when more pages arrive, so it
      // compacts and grows under a real stream; each input is overwritten after the call.
      const dec = new OggOpusDecoder({ stepMs: 40 });
      const parts = [];
      for (let at = 0; at < ogg.length; at += 700) {
        const piece = ogg.slice(at, at + 700);
        const r = dec.decode(piece);
        parts.push({ pcm: r.pcm.map((b) => b.slice()), errors: r.errors });
        piece.fill(0x5a);
      }
      while (dec.pending) {
        const r = dec.decode(new Uint8Array(0));
        parts.push({ pcm: r.pcm.map((b) => b.slice()), errors: r.errors });
      }
      parts.push(dec.flush());
      const got = collect(...parts);
      expect(got.errors).toEqual([]);
      expect(got.pcm).toEqual(expectedPcm);
    },
  );
});
