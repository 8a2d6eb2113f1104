import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { OggPageReader, type OggPacket } from '../../src/codec/ogg/OggPageReader.js';
import { oggCrc } from '../../src/internal/oggCrc.js';
import { CodecError, OggSequenceError } from '../../src/errors.js';
import { fixture } from './audioFixtures.js';
import { dropPage, oggPages, pageOffsets, pageSequence, repeatPage, swapPages } from './oggPages.js';

interface Seen {
  bytes: string;
  serial: number;
  granule: number;
  bos: boolean;
  eos: boolean;
}

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

/** Reads `b` reporting sequence faults instead of failing on them. */
function readReporting(b: Uint8Array): { packets: (Seen & { afterGap: boolean })[]; faults: OggSequenceError[]; error: unknown } {
  const packets: (Seen & { afterGap: boolean })[] = [];
  const faults: OggSequenceError[] = [];
  const reader = new OggPageReader({
    onPacket: (p) =>
      packets.push({
        bytes: Buffer.from(p.data).toString('hex'),
        serial: p.serial,
        granule: p.granule,
        bos: p.bos,
        eos: p.eos,
        afterGap: p.afterGap,
      }),
    onSequenceFault: (fault) => faults.push(fault),
  });
  let error: unknown = null;
  try {
    reader.push(b);
  } catch (e) {
    error = e;
  }
  return { packets, faults, error };
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
function page(opts: {
  serial?: number;
  seq?: number;
  flags?: number;
  granule?: number;
  packets: Uint8Array[];
  openLast?: boolean;
}): Uint8Array {
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
    const { packets } = readAll([
      page({ flags: 2, packets: [bytes(2, 1)] }),
      page({ seq: 1, flags: 4, packets: [bytes(2, 2), bytes(2, 3)], granule: 5 }),
    ]);
    expect(packets.map((p) => [p.bos, p.eos])).toEqual([
      [true, false],
      [false, false],
      [false, true],
    ]);
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
    const continued = oggPages(fixture('opus/spanning-packet.opus')).filter((page) => (page[5]! & 1) !== 0);
    expect(continued.length).toBeGreaterThan(0);
  });

  it('a page lost on the way is a fatal OGG_PAGE_SEQUENCE naming the expected and found page and where', () => {
    const b = dropPage(fixture('opus/20ms-pages.opus'), 40);
    const whole = readAll([fixture('opus/20ms-pages.opus')]).packets;
    const { packets, error } = readAll([b]);
    expect(error).toBeInstanceOf(OggSequenceError);
    expect(error).toMatchObject({
      code: 'OGG_PAGE_SEQUENCE',
      kind: 'gap',
      serial: 12,
      expectedSequence: 40,
      foundSequence: 41,
      missingPages: 1,
      byteOffset: pageOffsets(b)[40],
      fatal: true,
    });
    expect((error as Error).message).toMatch(/page 41 of stream 12 at byte \d+, expected page 40/);
    // every packet of the pages before it was delivered
    expect(packets).toEqual(whole.slice(0, 40));
  });

  it('with onSequenceFault, a gap is reported (non-fatal), the page after it is used and its first packet is marked afterGap', () => {
    const whole = readAll([fixture('opus/20ms-pages.opus')]).packets;
    const { packets, faults, error } = readReporting(dropPage(fixture('opus/20ms-pages.opus'), 40));
    expect(error).toBeNull();
    expect(faults).toHaveLength(1);
    expect(faults[0]).toMatchObject({ kind: 'gap', expectedSequence: 40, foundSequence: 41, fatal: false });
    expect(packets.map(({ afterGap, ...p }) => p)).toEqual([...whole.slice(0, 40), ...whole.slice(41)]);
    expect(packets.map((p, i) => (p.afterGap ? i : -1)).filter((i) => i >= 0)).toEqual([40]);
  });

  it('a page sent twice is one fault and its packets are not delivered again, in either mode', () => {
    const original = fixture('opus/default-pages.opus');
    const whole = readAll([original]).packets;
    const repeated = repeatPage(original, 2);
    const { packets, faults } = readReporting(repeated);
    expect(faults).toHaveLength(1);
    expect(faults[0]).toMatchObject({
      kind: 'repeat',
      expectedSequence: 3,
      foundSequence: 2,
      missingPages: 0,
      byteOffset: pageOffsets(repeated)[3],
    });
    expect(packets.map(({ afterGap, ...p }) => p)).toEqual(whole);
    expect(readAll([repeated]).error).toMatchObject({ code: 'OGG_PAGE_SEQUENCE', kind: 'repeat', fatal: true });
  });

  it('two pages swapped are a gap then a late page, the late one not used', () => {
    const original = fixture('opus/default-pages.opus');
    const whole = readAll([original]).packets;
    const { packets, faults } = readReporting(swapPages(original, 2));
    expect(faults.map((f) => [f.kind, f.expectedSequence, f.foundSequence])).toEqual([
      ['gap', 2, 3],
      ['repeat', 4, 2],
    ]);
    // page 3's packets come; page 2's (50 packets) are lost
    expect(packets.map(({ afterGap, ...p }) => p)).toEqual([...whole.slice(0, 2), ...whole.slice(52)]);
  });

  it('a chained stream restarts its sequence at the new BOS page: not a gap', () => {
    const b = fixture('opus/chained.opus');
    expect(oggPages(b).map(pageSequence)).toEqual([0, 1, 2, 3, 4, 0, 1, 2, 3]);
    const { faults, error } = readReporting(b);
    expect(error).toBeNull();
    expect(faults).toEqual([]);
    // and a page lost in the second link is that link's gap
    const lost = readReporting(dropPage(b, 7));
    expect(lost.faults.map((f) => [f.serial, f.expectedSequence, f.foundSequence])).toEqual([[2, 2, 3]]);
  });

  it('a packet continued across a lost page is dropped, not glued to the start of another', () => {
    // page 0 opens packet X, page 1 (lost) ends X and opens Y, page 2 ends Y then holds Z
    const x = bytes(300, 0x58);
    const y = bytes(300, 0x59);
    const p0 = page({ seq: 0, flags: 2, packets: [bytes(3, 1), x.subarray(0, 255)], openLast: true, granule: 960 });
    const p1 = page({ seq: 1, flags: 1, packets: [x.subarray(255), y.subarray(0, 255)], openLast: true, granule: 1920 });
    const p2 = page({ seq: 2, flags: 1, packets: [y.subarray(255), bytes(4, 0x5a)], granule: 2880 });
    const hex = (u: Uint8Array): string => Buffer.from(u).toString('hex');
    expect(readAll([p0, p1, p2]).packets.map((p) => p.bytes)).toEqual([hex(bytes(3, 1)), hex(x), hex(y), hex(bytes(4, 0x5a))]);
    const { packets, faults } = readReporting(Buffer.concat([p0, p2]));
    expect(faults).toHaveLength(1);
    expect(packets.map((p) => [p.bytes, p.afterGap])).toEqual([
      [hex(bytes(3, 1)), false],
      [hex(bytes(4, 0x5a)), true],
    ]);
  });

  it('sequence numbers wrap at 2^32 without a fault', () => {
    const { faults } = readReporting(
      Buffer.concat([page({ seq: 0xffffffff, packets: [bytes(2, 1)] }), page({ seq: 0, packets: [bytes(2, 2)] })]),
    );
    expect(faults).toEqual([]);
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
    expect(
      readAll(
        splitAt(
          b,
          Array.from({ length: b.length }, (_, i) => i),
        ),
      ),
    ).toEqual(readAll([b]));
  });
});
