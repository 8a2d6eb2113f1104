import type { OggPacketQueue } from '../ogg/OggPacketQueue.js';

/**
 * The duration of an Opus packet from its TOC byte, without decoding it (RFC 6716 §3.1): the
 * configuration (top 5 bits) gives the frame size, the code (low 2 bits) the frame count (1, 2,
 * 2, or for code 3 the low 6 bits of the next byte). Used to place a page's packets on the
 * granule timeline when the pages before it were lost (OggOpusDecoder's gap repair).
 */

/** Frame sizes in 48 kHz samples: SILK-only configs 0–11, hybrid 12–15, CELT-only 16–31. */
const SILK_FRAME_SAMPLES = [480, 960, 1920, 2880] as const;
const HYBRID_FRAME_SAMPLES = [480, 960] as const;
const CELT_FRAME_SAMPLES = [120, 240, 480, 960] as const;
const CONFIG_SHIFT = 3;
/** Which of a mode's frame sizes: the low bits of the configuration. */
const SIZE_INDEX_MASK = 0x03;
const HYBRID_SIZE_INDEX_MASK = 0x01;
const CODE_MASK = 0x03;
const CODE_ARBITRARY = 3;
const FRAME_COUNT_MASK = 0x3f;
const LAST_SILK_CONFIG = 11;
const LAST_HYBRID_CONFIG = 15;
/** RFC 6716 §3.2.5: a packet holds at most 120 ms. */
export const OPUS_MAX_PACKET_SAMPLES = 5760;

/** Samples per channel at 48 kHz the packet decodes to; 0 for a packet that is not valid Opus. */
export function opusPacketSamples(packet: Uint8Array): number {
  if (packet.length === 0) return 0;
  const toc = packet[0]!;
  const config = toc >> CONFIG_SHIFT;
  const frame =
    config <= LAST_SILK_CONFIG
      ? SILK_FRAME_SAMPLES[config & SIZE_INDEX_MASK]!
      : config <= LAST_HYBRID_CONFIG
        ? HYBRID_FRAME_SAMPLES[config & HYBRID_SIZE_INDEX_MASK]!
        : CELT_FRAME_SAMPLES[config & SIZE_INDEX_MASK]!;
  const code = toc & CODE_MASK;
  let frames = code === 0 ? 1 : 2;
  if (code === CODE_ARBITRARY) {
    if (packet.length < 2) return 0;
    frames = packet[1]! & FRAME_COUNT_MASK;
  }
  const samples = frame * frames;
  return samples > OPUS_MAX_PACKET_SAMPLES ? 0 : samples;
}

/**
 * Where the queue's first packet starts on the granule timeline (48 kHz samples): its page's
 * granule (the end of the page's last packet) minus the durations of the packets completed on
 * that page from this one on. All of them are queued, since a page's packets are queued together.
 * 0 when the page has no granule (nothing better is known: a stream starts at 0).
 */
export function headPacketStart(q: OggPacketQueue): number {
  const granule = q.headGranule;
  if (granule < 0) return 0;
  const page = q.headPageOffset;
  let span = 0;
  for (let k = 0; k < q.length && q.pageOffsetAt(k) === page; k++) span += opusPacketSamples(q.bytesAt(k));
  return granule - span;
}
