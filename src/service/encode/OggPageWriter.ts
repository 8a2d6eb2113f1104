/**
 * A minimal Ogg page writer (RFC 3533) for one logical stream: packets in, pages out, with real
 * CRCs. The caller decides when a page ends (`flush`), which is what sets streaming latency:
 * the local service ends a page per transport event rather than opusenc's ~1 s pages.
 */
import { oggCrcUpdate } from '../../internal/oggCrc.js';

const HEADER_BYTES = 27;
const MAX_SEGMENTS = 255;
const LACING_MAX = 255;
export const OGG_FLAG_CONTINUED = 0x01;
export const OGG_FLAG_BOS = 0x02;
export const OGG_FLAG_EOS = 0x04;

export class OggPageWriter {
  private sequence = 0;
  private packets: Uint8Array[] = [];
  private segments = 0;
  private granule = -1n;
  private first = true;

  constructor(private readonly serial: number) {}

  /** Queues one whole packet that completes at `granule`. Returns pages forced out by size. */
  push(packet: Uint8Array, granule: bigint): Uint8Array[] {
    const out: Uint8Array[] = [];
    const need = Math.floor(packet.length / LACING_MAX) + 1;
    if (need > MAX_SEGMENTS) throw new RangeError('packet too large for one Ogg page');
    if (this.segments + need > MAX_SEGMENTS) out.push(this.page(false));
    this.packets.push(packet);
    this.segments += need;
    this.granule = granule;
    return out;
  }

  /** Ends the current page (none when nothing is queued, unless `eos`). */
  flush(eos = false): Uint8Array[] {
    if (this.packets.length === 0 && !eos) return [];
    return [this.page(eos)];
  }

  private page(eos: boolean): Uint8Array {
    let bodyBytes = 0;
    for (const p of this.packets) bodyBytes += p.length;
    const page = new Uint8Array(HEADER_BYTES + this.segments + bodyBytes);
    const v = new DataView(page.buffer);
    page.set([0x4f, 0x67, 0x67, 0x53], 0); // "OggS"
    page[4] = 0; // version
    page[5] = (this.first ? OGG_FLAG_BOS : 0) | (eos ? OGG_FLAG_EOS : 0);
    v.setBigInt64(6, this.granule, true);
    v.setUint32(14, this.serial, true);
    v.setUint32(18, this.sequence++, true);
    v.setUint32(22, 0, true);
    page[26] = this.segments;
    let o = HEADER_BYTES;
    for (const p of this.packets) {
      let left = p.length;
      while (left >= LACING_MAX) { page[o++] = LACING_MAX; left -= LACING_MAX; }
      page[o++] = left;
    }
    for (const p of this.packets) { page.set(p, o); o += p.length; }
    v.setUint32(22, oggCrcUpdate(0, page), true);
    this.first = false;
    this.packets = [];
    this.segments = 0;
    return page;
  }
}
