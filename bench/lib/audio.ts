/**
 * Synthetic-but-real inputs for the benches: the committed fixtures (real espeak-ng speech, real
 * opusenc / lame output) re-wrapped into SSE events, and looped into streams of any length by
 * generators that never hold the whole stream in memory.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OggPageReader } from '../../src/codec/ogg/OggPageReader.js';
import { isOpusHead, isOpusTags } from '../../src/codec/opus/OpusHead.js';
import { oggCrc } from '../../src/internal/oggCrc.js';

export const OPUS_RATE = 48000;
export const FRAME_MS = 20;

export function fixtureBytes(path: string): Uint8Array {
  return new Uint8Array(readFileSync(fileURLToPath(new URL(`../../test/fixtures/${path}`, import.meta.url))));
}

// --- PCM ----------------------------------------------------------------------------------------

export interface Pcm {
  sampleRate: number;
  channels: number;
  /** Interleaved s16. */
  samples: Int16Array;
}

/** Reads a 16-bit PCM RIFF/WAVE file (the reference decodes next to each fixture). */
export function readWav16(bytes: Uint8Array): Pcm {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 12;
  let sampleRate = 0;
  let channels = 0;
  while (at + 8 <= bytes.length) {
    const id = String.fromCharCode(...bytes.subarray(at, at + 4));
    const size = view.getUint32(at + 4, true);
    if (id === 'fmt ') {
      channels = view.getUint16(at + 10, true);
      sampleRate = view.getUint32(at + 12, true);
      if (view.getUint16(at + 22, true) !== 16) throw new Error('readWav16: not 16-bit PCM');
    } else if (id === 'data') {
      const len = Math.min(size, bytes.length - at - 8) & ~1;
      const samples = new Int16Array(len >> 1);
      new Uint8Array(samples.buffer).set(bytes.subarray(at + 8, at + 8 + len));
      return { sampleRate, channels, samples };
    }
    at += 8 + size + (size & 1);
  }
  throw new Error('readWav16: no data chunk');
}

/** A canonical 44-byte WAV header; `dataBytes` 0xffffffff marks a stream of unknown length. */
export function wavHeader(sampleRate: number, channels: number, dataBytes: number): Uint8Array {
  const h = new Uint8Array(44);
  const v = new DataView(h.buffer);
  const blockAlign = channels * 2;
  h.set([0x52, 0x49, 0x46, 0x46], 0); // RIFF
  v.setUint32(4, Math.min(0xffffffff, 36 + dataBytes), true);
  h.set([0x57, 0x41, 0x56, 0x45, 0x66, 0x6d, 0x74, 0x20], 8); // WAVEfmt␠
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true);
  v.setUint16(22, channels, true);
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, sampleRate * blockAlign, true);
  v.setUint16(32, blockAlign, true);
  v.setUint16(34, 16, true);
  h.set([0x64, 0x61, 0x74, 0x61], 36); // data
  v.setUint32(40, dataBytes, true);
  return h;
}

// --- Ogg Opus -----------------------------------------------------------------------------------

export interface OpusSource {
  head: Uint8Array;
  tags: Uint8Array;
  /** Audio packets, copied. */
  packets: Uint8Array[];
  /** 48 kHz samples per packet, from each packet's TOC byte. */
  durations: number[];
  channels: number;
}

/** RFC 6716 §3.1: the 48 kHz sample count of one Opus packet, from its TOC. */
export function opusPacketSamples(p: Uint8Array): number {
  const toc = p[0] ?? 0;
  const config = toc >> 3;
  let frame: number;
  if (config < 12) frame = [480, 960, 1920, 2880][config & 3]!;
  else if (config < 16) frame = [480, 960][config & 1]!;
  else frame = [120, 240, 480, 960][config & 3]!;
  const code = toc & 3;
  const frames = code === 0 ? 1 : code < 3 ? 2 : (p[1] ?? 0) & 0x3f;
  return frame * frames;
}

export function readOpus(ogg: Uint8Array): OpusSource {
  let head: Uint8Array | null = null;
  let tags: Uint8Array | null = null;
  const packets: Uint8Array[] = [];
  new OggPageReader({
    onPacket: (p) => {
      if (isOpusHead(p.data)) head ??= p.data.slice();
      else if (isOpusTags(p.data)) tags ??= p.data.slice();
      else packets.push(p.data.slice());
    },
  }).push(ogg);
  if (!head || !tags) throw new Error('readOpus: no OpusHead/OpusTags');
  return { head, tags, packets, durations: packets.map(opusPacketSamples), channels: (head as Uint8Array)[9]! };
}

const FLAG_BOS = 0x02;
const FLAG_EOS = 0x04;
const LACING_MAX = 255;
const OGGS = [0x4f, 0x67, 0x67, 0x53];

/** Writes the pages of one logical Ogg stream (RFC 3533): packets in, page bytes out. */
export class OggPager {
  private sequence = 0;
  /** {@link pageView}'s memory, reused from page to page. */
  private scratch = new Uint8Array(0);
  private readonly lacing: number[] = [];
  constructor(private readonly serial: number) {}

  /** The next page, in a new array of its own. */
  page(packets: Uint8Array[], granule: number, flags = 0): Uint8Array {
    return this.write(packets, granule, flags, (size) => new Uint8Array(size));
  }

  /**
   * The next page, as a view of memory this pager reuses: valid until its next call (for a
   * generator whose consumer encodes the page before it asks for another).
   */
  pageView(packets: Uint8Array[], granule: number, flags = 0): Uint8Array {
    return this.write(packets, granule, flags, (size) => {
      if (this.scratch.length < size) this.scratch = new Uint8Array(Math.max(size, this.scratch.length * 2));
      return this.scratch.subarray(0, size);
    });
  }

  private write(packets: Uint8Array[], granule: number, flags: number, alloc: (size: number) => Uint8Array): Uint8Array {
    const lacing = this.lacing;
    lacing.length = 0;
    let body = 0;
    for (const p of packets) {
      for (let left = p.length; ; left -= LACING_MAX) {
        lacing.push(Math.min(left, LACING_MAX));
        if (left < LACING_MAX) break;
      }
      body += p.length;
    }
    if (lacing.length > LACING_MAX) throw new Error('OggPager: too many packets for one page');
    const out = alloc(27 + lacing.length + body);
    const v = new DataView(out.buffer, out.byteOffset, out.byteLength);
    out.set(OGGS, 0);
    out[4] = 0;
    out[5] = flags;
    v.setUint32(6, granule % 0x1_0000_0000, true);
    v.setUint32(10, Math.floor(granule / 0x1_0000_0000), true);
    v.setUint32(14, this.serial, true);
    v.setUint32(18, this.sequence++, true);
    v.setUint32(22, 0, true);
    out[26] = lacing.length;
    out.set(lacing, 27);
    let at = 27 + lacing.length;
    for (const p of packets) {
      out.set(p, at);
      at += p.length;
    }
    v.setUint32(22, oggCrc(out), true);
    return out;
  }
}

/**
 * One continuous Ogg Opus stream of `seconds`, looping the source's packets, `packetsPerPage`
 * packets per page (1 = 20 ms pages as `opusenc --max-delay 20`; 50 ≈ opusenc's default 1 s).
 * Yields page bytes one page at a time.
 */
export function* loopedOggOpus(src: OpusSource, seconds: number, packetsPerPage: number, serial = 0x5eed): Generator<Uint8Array> {
  const pager = new OggPager(serial);
  yield pager.page([src.head], 0, FLAG_BOS);
  yield pager.page([src.tags], 0);
  const total = Math.round(seconds * OPUS_RATE);
  let granule = 0;
  let i = 0;
  const page: Uint8Array[] = [];
  while (granule < total) {
    page.length = 0;
    while (page.length < packetsPerPage && granule < total) {
      const k = i++ % src.packets.length;
      page.push(src.packets[k]!);
      granule += src.durations[k]!;
    }
    yield pager.page(page, granule, granule >= total ? FLAG_EOS : 0);
  }
}

// --- SSE ----------------------------------------------------------------------------------------

export interface EventFields {
  content?: string;
  alignment?: unknown;
  chunkSeq?: number;
  chunkAudioOffsetSec?: number;
}

/** One SSE `message` event carrying `audio` in the service's wire shape. */
export function sseEvent(audio: Uint8Array, f: EventFields = {}): string {
  const event = {
    audio_base64: Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength).toString('base64'),
    content: f.content ?? '',
    alignment: f.alignment ?? null,
    chunk_seq: f.chunkSeq ?? 0,
    chunk_audio_offset_sec: f.chunkAudioOffsetSec ?? 0,
  };
  return `data: ${JSON.stringify(event)}\n\n`;
}

export function concatBytes(chunks: Iterable<Uint8Array>): Uint8Array {
  const list = Array.from(chunks, (c) => c.slice());
  const out = new Uint8Array(list.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of list) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
