import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { OggPageReader, type OggPacket } from '../../src/codec/ogg/OggPageReader.js';
import { oggCrc } from '../../src/internal/oggCrc.js';
import { CodecError } from '../../src/errors.js';
import { fixture } from './audioFixtures.js';

interface Seen { bytes: string; serial: number; granule: number; bos: boolean; eos: boolean }

function readAll(chunks: Uint8Array[]): { packets: Seen[]; error: unknown; end: CodecError | null } {
  const packets: Seen[] = [];
  const reader = new OggPageReader({
    onPacket: (p: OggPacket) =>
      packets.push({ bytes: Buffer.from(p.data).toString('hex'), serial: p.serial, granule: p.granule, bos: p.bos, eos: p.eos }),
  });
  let error: unknown = null;
  try {
    for (const c of chunks) reader.push(c);
  } catch (e) {
    error = e;
  }
  return { packets, error, end: error ? null : reader.end() };
}

function splitAt(b: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (b.length + 1)))].sort((x, y) => x - y);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const p of [...points, b.length]) {
    out.push(b.slice(prev, p));
    prev = p;
  }
  return out;
}

/** Builds one Ogg page (RFC 3533) around the given lacing and body. */
function page(opts: { serial?: number; seq?: number; flags?: number; granule?: number; packets: Uint8Array[]; openLast?: boolean }): Uint8Array {
  const lacing: number[] = [];
  opts.packets.forEach((p, i) => {
    let n = p.length;
    while (n >= 255) {
      lacing.push(255);
      n -= 255;
    }
    if (!(opts.openLast && i === opts.packets.length - 1)) lacing.push(n);
  });
  const body = Buffer.concat(opts.packets);
  const b = Buffer.alloc(27 + lacing.length + body.length);
  b.write('OggS', 0, 'latin1');
  b[5] = opts.flags ?? 0;
  b.writeBigInt64LE(BigInt(opts.granule ?? 0), 6);
  b.writeUInt32LE(opts.serial ?? 7, 14);
  b.writeUInt32LE(opts.seq ?? 0, 18);
  b[26] = lacing.length;
  Buffer.from(lacing).copy(b, 27);
  body.copy(b, 27 + lacing.length);
  b.writeUInt32LE(oggCrc(b), 22);
  return new Uint8Array(b);
}

const bytes = (n: number, fill: number): Uint8Array => new Uint8Array(n).fill(fill);

describe('OggPageReader', () => {
  it('reads several packets from one page, with a 255-byte packet laced as 255 + 0', () => {
    const { packets, error } = readAll([page({ packets: [bytes(3, 1), bytes(255, 2), bytes(0, 0), bytes(600, 3)], granule: 960 })]);
    expect(error).toBeNull();
    expect(packets.map((p) => p.bytes.length / 2)).toEqual([3, 255, 0, 600]);
    expect(packets.map((p) => p.granule)).toEqual([960, 960, 960, 960]); // the page's, on every packet completed there
  });

  it('joins a packet that spans three pages', () => {
    const big = new Uint8Array(700).map((_, i) => i & 0xff);
    const p1 = page({ packets: [bytes(5, 9), big.subarray(0, 255)], openLast: true, granule: -1 });
    const p2 = page({ seq: 1, flags: 1, packets: [big.subarray(255, 510)], openLast: true, granule: -1 });
    const p3 = page({ seq: 2, flags: 1, packets: [big.subarray(510)], granule: 1920 });
    const { packets } = readAll([p1, p2, p3]);
    expect(packets.map((p) => p.bytes)).toEqual([Buffer.from(bytes(5, 9)).toString('hex'), Buffer.from(big).toString('hex')]);
    expect(packets[1]!.granule).toBe(1920);
  });

  it('drops the tail of a packet whose start it never saw (joined mid-stream)', () => {
    const { packets } = readAll([page({ flags: 1, packets: [bytes(10, 1), bytes(4, 2)] })]);
    expect(packets.map((p) => p.bytes)).toEqual(['02020202']);
  });

  it('marks BOS on the first packet and EOS on the last packet of the last page', () => {
    const { packets } = readAll([page({ flags: 2, packets: [bytes(2, 1)] }), page({ seq: 1, flags: 4, packets: [bytes(2, 2), bytes(2, 3)], granule: 5 })]);
    expect(packets.map((p) => [p.bos, p.eos])).toEqual([[true, false], [false, false], [false, true]]);
  });

  it('a corrupt CRC is a typed error at that page, after the earlier pages were delivered', () => {
    const a = page({ packets: [bytes(4, 1)] });
    const bad = page({ seq: 1, packets: [bytes(4, 2)] });
    bad[bad.length - 1]! ^= 0x40;
    const { packets, error } = readAll([Buffer.concat([a, bad, page({ seq: 2, packets: [bytes(1, 3)] })])]);
    expect(packets).toHaveLength(1);
    expect(error).toBeInstanceOf(CodecError);
    expect(error).toMatchObject({ code: 'OGG_BAD_CRC', byteOffset: a.length, fatal: true });
  });

  it('bytes without the OggS capture pattern are OGG_BAD_CAPTURE, even one byte at a time', () => {
    const junk = new TextEncoder().encode('ID3\x04 not an ogg stream at all, clearly');
    expect(readAll([junk]).error).toMatchObject({ code: 'OGG_BAD_CAPTURE', byteOffset: 0 });
    expect(readAll(splitAt(junk, [1, 2, 3])).error).toMatchObject({ code: 'OGG_BAD_CAPTURE', byteOffset: 0 });
  });

  it('a stream cut inside a page reports AUDIO_TRUNCATED (non-fatal) at end', () => {
    const p = page({ packets: [bytes(100, 1)] });
    const { packets, end } = readAll([p.subarray(0, 50)]);
    expect(packets).toHaveLength(0);
    expect(end).toMatchObject({ code: 'AUDIO_TRUNCATED', fatal: false, byteOffset: 0 });
  });

  it('the spanning-packet fixture really has packets continued across pages', () => {
    const b = fixture('opus/spanning-packet.opus');
    let continued = 0;
    for (let p = 0; p < b.length; ) {
      if ((b[p + 5]! & 1) !== 0) continued++;
      const n = b[p + 26]!;
      let len = 27 + n;
      for (let s = 0; s < n; s++) len += b[p + 27 + s]!;
      p += len;
    }
    expect(continued).toBeGreaterThan(0);
  });

  it('gives the same packets however the bytes are split (fast-check)', () => {
    for (const name of ['opus/spanning-packet.opus', 'opus/chained.opus']) {
      const b = fixture(name);
      const whole = readAll([b]);
      expect(whole.error).toBeNull();
      expect(whole.end).toBeNull();
      fc.assert(
        fc.property(fc.array(fc.nat(b.length), { maxLength: 40 }), (cuts) => {
          expect(readAll(splitAt(b, cuts))).toEqual(whole);
        }),
        { numRuns: 25 },
      );
    }
  });

  it('1-byte feeding gives the same packets as one chunk', () => {
    const b = fixture('opus/20ms-pages.opus').subarray(0, 6000);
    expect(readAll(splitAt(b, Array.from({ length: b.length }, (_, i) => i)))).toEqual(readAll([b]));
  });
});
