/**
 * A minimal Ogg page writer (RFC 3533) for one logical stream: packets in, pages out, with real
 * CRCs. The caller decides when a page ends (`flush`), which is what sets streaming latency:
 * the local service ends a page per transport event rather than opusenc's ~1 s pages.
 */
import {
  OGG_FLAG_BOS,
  OGG_FLAG_EOS,
  OGG_HEADER_BYTES,
  OGG_LACING_CONTINUES,
  OGG_MAX_SEGMENTS,
  OGG_OFFSET_CRC,
  OGG_OFFSET_FLAGS,
  OGG_OFFSET_GRANULE,
  OGG_OFFSET_SEGMENTS,
  OGG_OFFSET_SEQUENCE,
  OGG_OFFSET_SERIAL,
  OGG_OFFSET_VERSION,
  OGG_VERSION,
  OGGS_CAPTURE,
} from '../../codec/ogg/oggPageLayout.js';
import { oggCrcUpdate } from '../../internal/oggCrc.js';

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
    const need = Math.floor(packet.length / OGG_LACING_CONTINUES) + 1;
    if (need > OGG_MAX_SEGMENTS) throw new RangeError('packet too large for one Ogg page');
    if (this.segments + need > OGG_MAX_SEGMENTS) out.push(this.page(false));
    this.packets.push(packet);
    this.segments += need;
    this.granule = granule;
    return out;
  }

  /**
   * Sets the granule of the page being built (the last pushed packet's otherwise): the last page
   * of an Ogg Opus stream states where the real audio ends, before the encoder's padding.
   */
  setGranule(granule: bigint): void {
    this.granule = granule;
  }

  /** Ends the current page (none when nothing is queued, unless `eos`). */
  flush(eos = false): Uint8Array[] {
    if (this.packets.length === 0 && !eos) return [];
    return [this.page(eos)];
  }

  private page(eos: boolean): Uint8Array {
    let bodyBytes = 0;
    for (const p of this.packets) bodyBytes += p.length;
    const page = new Uint8Array(OGG_HEADER_BYTES + this.segments + bodyBytes);
    const v = new DataView(page.buffer);
    page.set(OGGS_CAPTURE, 0);
    page[OGG_OFFSET_VERSION] = OGG_VERSION;
    page[OGG_OFFSET_FLAGS] = (this.first ? OGG_FLAG_BOS : 0) | (eos ? OGG_FLAG_EOS : 0);
    v.setBigInt64(OGG_OFFSET_GRANULE, this.granule, true);
    v.setUint32(OGG_OFFSET_SERIAL, this.serial, true);
    v.setUint32(OGG_OFFSET_SEQUENCE, this.sequence++, true);
    v.setUint32(OGG_OFFSET_CRC, 0, true);
    page[OGG_OFFSET_SEGMENTS] = this.segments;
    let o = OGG_HEADER_BYTES;
    for (const p of this.packets) {
      let left = p.length;
      while (left >= OGG_LACING_CONTINUES) {
        page[o++] = OGG_LACING_CONTINUES;
        left -= OGG_LACING_CONTINUES;
      }
      page[o++] = left;
    }
    for (const p of this.packets) {
      page.set(p, o);
      o += p.length;
    }
    v.setUint32(OGG_OFFSET_CRC, oggCrcUpdate(0, page), true);
    this.first = false;
    this.packets = [];
    this.segments = 0;
    return page;
  }
}
