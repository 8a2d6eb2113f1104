/**
 * The containers the service writes: Ogg pages (property test on the writer, then a real Ogg
 * Opus stream: CRCs, OpusHead pre-skip, granules, EOS) and the MP3 Info/LAME tag.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oggCrcUpdate } from '../../src/internal/oggCrc.js';
import { OggPageWriter } from '../../src/service/encode/OggPageWriter.js';
import { OPUS_PRESKIP_48K } from '../../src/service/encode/OggOpusStreamEncoder.js';
import { buildLameInfoFrame, crc16Lame, LAME_ENCODER_DELAY } from '../../src/service/encode/lameTag.js';
import { startLocalService, type LocalService } from '../../src/service/index.js';
import { postTts } from './helpers.js';

interface Page {
  flags: number;
  granule: bigint;
  serial: number;
  seq: number;
  packets: Uint8Array[];
  continued: boolean;
  crcOk: boolean;
}

/** A plain Ogg page parser for the tests (packets completed on each page). */
function parsePages(bytes: Uint8Array): Page[] {
  const pages: Page[] = [];
  let o = 0;
  let carry: number[] = [];
  while (o < bytes.length) {
    expect(Buffer.from(bytes.subarray(o, o + 4)).toString('latin1')).toBe('OggS');
    const v = new DataView(bytes.buffer, bytes.byteOffset + o);
    const nseg = bytes[o + 26]!;
    const lacing = bytes.subarray(o + 27, o + 27 + nseg);
    const bodyLen = lacing.reduce((a, b) => a + b, 0);
    const total = 27 + nseg + bodyLen;
    const copy = new Uint8Array(bytes.subarray(o, o + total)); // a copy (Buffer#slice would share)
    copy.fill(0, 22, 26);
    const crcOk = oggCrcUpdate(0, copy) === v.getUint32(22, true);
    const packets: Uint8Array[] = [];
    let p = o + 27 + nseg;
    for (const l of lacing) {
      for (let i = 0; i < l; i++) carry.push(bytes[p + i]!);
      p += l;
      if (l < 255) {
        packets.push(Uint8Array.from(carry));
        carry = [];
      }
    }
    pages.push({
      flags: bytes[o + 5]!,
      granule: v.getBigInt64(6, true),
      serial: v.getUint32(14, true),
      seq: v.getUint32(18, true),
      packets,
      continued: (bytes[o + 5]! & 1) === 1,
      crcOk,
    });
    o += total;
  }
  return pages;
}

describe('Ogg page writer', () => {
  it('any packets survive the trip through pages, with valid CRCs and sequence numbers', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.uint8Array({ minLength: 0, maxLength: 1300 }), { maxLength: 6 }), { minLength: 1, maxLength: 6 }),
        (batches) => {
          const w = new OggPageWriter(0x1234);
          const out: Uint8Array[] = [];
          let granule = 0n;
          const all: Uint8Array[] = [];
          for (const batch of batches) {
            for (const packet of batch) {
              granule += 960n;
              all.push(packet);
              out.push(...w.push(packet, granule));
            }
            out.push(...w.flush());
          }
          out.push(...w.flush(true));
          const pages = parsePages(Buffer.concat(out));
          expect(pages.every((p) => p.crcOk && p.serial === 0x1234)).toBe(true);
          expect(pages.map((p) => p.seq)).toEqual(pages.map((_, i) => i));
          expect(pages[0]!.flags & 2).toBe(2);
          expect(pages[pages.length - 1]!.flags & 4).toBe(4);
          expect(pages.flatMap((p) => p.packets).map((p) => Buffer.from(p).toString('hex'))).toEqual(
            all.map((p) => Buffer.from(p).toString('hex')),
          );
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("the service's Ogg Opus and MP3", () => {
  let svc: LocalService;
  beforeAll(async () => {
    svc = await startLocalService();
  });
  afterAll(async () => {
    await svc.close();
  });

  it('Ogg Opus: OpusHead (pre-skip 312, input rate), OpusTags, CRCs, rising granules, and an EOS granule that trims to the real length', async () => {
    const r = await postTts(svc, { text: 'Granules count at forty eight kilohertz.', format: 'opus', sample_rate: 16000 });
    const pages = parsePages(r.audio);
    expect(pages.every((p) => p.crcOk)).toBe(true);
    const head = pages[0]!.packets[0]!;
    expect(Buffer.from(head.subarray(0, 8)).toString()).toBe('OpusHead');
    const hv = new DataView(head.buffer, head.byteOffset);
    expect(hv.getUint16(10, true)).toBe(OPUS_PRESKIP_48K);
    expect(hv.getUint32(12, true)).toBe(16000);
    expect(pages[0]!.flags & 2).toBe(2);
    expect(Buffer.from(pages[1]!.packets[0]!.subarray(0, 8)).toString()).toBe('OpusTags');
    const audioPages = pages.slice(2);
    for (let i = 1; i < audioPages.length; i++) expect(audioPages[i]!.granule).toBeGreaterThanOrEqual(audioPages[i - 1]!.granule);
    const last = audioPages[audioPages.length - 1]!;
    expect(last.flags & 4).toBe(4);
    const packets = audioPages.flatMap((p) => p.packets).length;
    const final = r.events[r.events.length - 1]!;
    const realSamples48k = Math.round((final.chunk_audio_offset_sec + final.alignment!.audio_duration) * 48000);
    expect(Math.abs(Number(last.granule) - OPUS_PRESKIP_48K - realSamples48k)).toBeLessThanOrEqual(48);
    expect(Number(last.granule)).toBeLessThanOrEqual(packets * 960);
    // The audio does not wait for ~1 s pages: many pages, one per transport event.
    expect(audioPages.length).toBeGreaterThan(5);
  });

  it('MP3: the first frame is an Info frame whose LAME tag carries the encoder delay and a valid CRC', async () => {
    const r = await postTts(svc, { text: 'Tagged.', format: 'mp3', sample_rate: 44100, mp3_bitrate: 128 });
    const f = r.audio;
    expect(f[0]).toBe(0xff);
    expect(Buffer.from(f.subarray(21, 25)).toString()).toBe('Info'); // MPEG-1 mono: 4 + 17
    expect(Buffer.from(f.subarray(29, 33)).toString()).toBe('LAME');
    const lame = 29;
    const delay = (f[lame + 21]! << 4) | (f[lame + 22]! >> 4);
    expect(delay).toBe(LAME_ENCODER_DELAY);
    expect(crc16Lame(f, lame + 34)).toBe((f[lame + 34]! << 8) | f[lame + 35]!);
    const frameLength = Math.floor((144 * 128000) / 44100);
    expect(f[frameLength]).toBe(0xff);
  });

  it('MPEG-2.5 Info frames are built too, and 192 kbps is clamped to 160 below 32 kHz', () => {
    const f = buildLameInfoFrame(8000, 64);
    expect(f.length).toBe(576);
    expect(Buffer.from(f.subarray(13, 17)).toString()).toBe('Info'); // MPEG-2.5 mono: 4 + 9
    expect(() => buildLameInfoFrame(8000, 192)).toThrow(RangeError);
  });

  it('opus_bitrate is honoured: 64 kbit/s makes a larger stream than 24 kbit/s', async () => {
    const text = 'Bitrate matters for the size of this stream.';
    const low = await postTts(svc, { text, format: 'opus', opus_bitrate: 24000 });
    const high = await postTts(svc, { text, format: 'opus', opus_bitrate: 64000 });
    expect(high.audio.length).toBeGreaterThan(1.8 * low.audio.length);
  });

  it('mp3_bitrate is honoured: 192 kbit/s makes a larger stream than 64 kbit/s', async () => {
    const text = 'Bitrate matters.';
    const low = await postTts(svc, { text, format: 'mp3', mp3_bitrate: 64 });
    const high = await postTts(svc, { text, format: 'mp3', mp3_bitrate: 192 });
    expect(high.audio.length).toBeGreaterThan(2.5 * low.audio.length);
  });

  it('the opusscript (wasm) fallback encodes the same kind of packets as the native addon', async () => {
    const { createOpusPacketEncoder } = await import('../../src/service/encode/opusBackend.js');
    const frame = new Int16Array(960);
    for (let i = 0; i < frame.length; i++) frame[i] = Math.round(8000 * Math.sin(i / 5));
    const wasm = createOpusPacketEncoder(48000, 32000, true);
    const native = createOpusPacketEncoder(48000, 32000);
    expect(wasm.backend).toBe('wasm');
    const a = wasm.encode(frame);
    const b = native.encode(frame);
    // Same TOC byte (mode, bandwidth, 20 ms frame): both are libopus with the same settings.
    expect(a[0]).toBe(b[0]);
    expect(a.length).toBeGreaterThan(10);
    wasm.free();
    native.free();
  });
});
