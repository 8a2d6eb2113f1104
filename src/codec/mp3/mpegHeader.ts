/**
 * Just enough of the MPEG audio frame header (ISO 11172-3 / 13818-3) and ID3v2 header to find
 * the first frame, its channel mode and whether it carries a Xing/Info (LAME) gapless tag.
 */
/** "ID3" */
export const ID3V2_MAGIC = [0x49, 0x44, 0x33] as const;
export const ID3V2_HEADER_BYTES = 10;
const ID3V2_FOOTER_FLAG = 0x10;
const ID3V2_FOOTER_BYTES = 10;
const SYNCHSAFE_BITS = 7;
const FRAME_SYNC_BYTE = 0xff;
const FRAME_SYNC_MASK = 0xe0;
/** Field values of the frame header, shared with the service's MP3 Info-frame writer. */
export const MPEG_MODE_MONO = 3;
/** Version field: 3 = MPEG-1, 2 = MPEG-2, 0 = MPEG-2.5 (1 is reserved). */
export const MPEG_VERSION_1 = 3;
export const MPEG_VERSION_2 = 2;
export const MPEG_VERSION_2_5 = 0;
const MPEG_VERSION_RESERVED = 1;
const LAYER_RESERVED = 0;
export const MPEG_LAYER_3 = 1;
const BITRATE_FREE = 0;
const BITRATE_BAD = 15;
const RATE_RESERVED = 3;
/** MPEG-1 rates by rate index; MPEG-2 halves them, MPEG-2.5 quarters them. */
const SAMPLE_RATES_V1 = [44100, 48000, 32000] as const;
const RATE_DIVISOR: Record<number, number> = { [MPEG_VERSION_1]: 1, [MPEG_VERSION_2]: 2, [MPEG_VERSION_2_5]: 4 };
/** kbit/s by bitrate index, MPEG-1 Layer III and MPEG-2/2.5 Layer III. */
export const BITRATES_V1_L3: readonly number[] = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
export const BITRATES_V2_L3: readonly number[] = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
/** Side-information size after the 4-byte header: where a Xing/Info tag starts. */
export const SIDE_INFO = { v1Stereo: 32, v1Mono: 17, v2Stereo: 17, v2Mono: 9 } as const;
export const MPEG_HEADER_BYTES = 4;
/** Layer III frame bytes = coefficient × bitrate / rate (+ padding): 144 for MPEG-1, 72 for MPEG-2/2.5. */
const L3_FRAME_COEFFICIENT_V1 = 144;
const L3_FRAME_COEFFICIENT_V2 = 72;
const BITS_PER_KBIT = 1000;
const L3_SAMPLES_V1 = 1152;
const L3_SAMPLES_V2 = 576;

export interface MpegFrameHeader {
  sampleRate: number;
  channels: 1 | 2;
  /** Bytes in this frame (Layer III); 0 when free-format. */
  frameBytes: number;
  /** Where a Xing/Info tag would start, from the frame start. */
  tagOffset: number;
  /** Samples per channel in a Layer III frame: 1152 (MPEG-1) or 576 (MPEG-2/2.5). */
  samplesPerFrame: number;
}

/** ID3v2 tag length at `b[p..]` (header + body + footer), or 0 when no "ID3" is there. */
export function id3v2Length(b: Uint8Array, p: number): number {
  if (b[p] !== ID3V2_MAGIC[0] || b[p + 1] !== ID3V2_MAGIC[1] || b[p + 2] !== ID3V2_MAGIC[2]) return 0;
  let size = 0;
  for (let i = 6; i < ID3V2_HEADER_BYTES; i++) size = (size << SYNCHSAFE_BITS) | (b[p + i]! & 0x7f);
  const footer = b[p + 5]! & ID3V2_FOOTER_FLAG ? ID3V2_FOOTER_BYTES : 0;
  return ID3V2_HEADER_BYTES + size + footer;
}

/** Parses a frame header at `b[p..p+4)`, or returns null when it is not a valid one. */
export function parseMpegHeader(b: Uint8Array, p: number): MpegFrameHeader | null {
  if (p + MPEG_HEADER_BYTES > b.length) return null;
  const b1 = b[p + 1]!;
  const b2 = b[p + 2]!;
  const b3 = b[p + 3]!;
  if (b[p] !== FRAME_SYNC_BYTE || (b1 & FRAME_SYNC_MASK) !== FRAME_SYNC_MASK) return null;
  const version = (b1 >> 3) & 3;
  const layer = (b1 >> 1) & 3;
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 3;
  if (version === MPEG_VERSION_RESERVED || layer === LAYER_RESERVED || bitrateIndex === BITRATE_BAD || rateIndex === RATE_RESERVED)
    return null;
  const v1 = version === MPEG_VERSION_1;
  const sampleRate = SAMPLE_RATES_V1[rateIndex]! / RATE_DIVISOR[version]!;
  const channels = b3 >> 6 === MPEG_MODE_MONO ? 1 : 2;
  const padding = (b2 >> 1) & 1;
  let frameBytes = 0;
  if (layer === MPEG_LAYER_3 && bitrateIndex !== BITRATE_FREE) {
    const kbps = (v1 ? BITRATES_V1_L3 : BITRATES_V2_L3)[bitrateIndex]!;
    frameBytes = l3FrameBytes(v1, kbps, sampleRate) + padding;
  }
  const tagOffset =
    MPEG_HEADER_BYTES +
    (v1 ? (channels === 1 ? SIDE_INFO.v1Mono : SIDE_INFO.v1Stereo) : channels === 1 ? SIDE_INFO.v2Mono : SIDE_INFO.v2Stereo);
  return { sampleRate, channels, frameBytes, tagOffset, samplesPerFrame: v1 ? L3_SAMPLES_V1 : L3_SAMPLES_V2 };
}

/** Bytes in an unpadded Layer III frame of `kbps` at `sampleRate`. */
export function l3FrameBytes(mpeg1: boolean, kbps: number, sampleRate: number): number {
  return Math.floor(((mpeg1 ? L3_FRAME_COEFFICIENT_V1 : L3_FRAME_COEFFICIENT_V2) * kbps * BITS_PER_KBIT) / sampleRate);
}

/** The version field and rate index that carry `sampleRate`, or undefined when no MPEG version can. */
export function mpegRateFields(sampleRate: number): { version: number; rateIndex: number } | undefined {
  for (const version of [MPEG_VERSION_1, MPEG_VERSION_2, MPEG_VERSION_2_5]) {
    const rateIndex = SAMPLE_RATES_V1.findIndex((r) => r / RATE_DIVISOR[version]! === sampleRate);
    if (rateIndex >= 0) return { version, rateIndex };
  }
  return undefined;
}

export interface XingTag {
  /** Frame count from the Xing header, or null when its flag is off (a streaming encoder). */
  frames: number | null;
  /** LAME extension: encoder delay and end padding in samples; null without the extension. */
  encoderDelay: number | null;
  padding: number | null;
}

const XING_FRAMES = 0x1;
const XING_BYTES = 0x2;
const XING_TOC = 0x4;
const XING_QUALITY = 0x8;
const XING_TOC_BYTES = 100;
/** In the LAME extension, from its 9-byte version string: delay (12 bits) + padding (12 bits). */
const LAME_DELAY_OFFSET = 21;
const LAME_EXTENSION_BYTES = 24;
/** Bytes from the frame start needed to read the largest Xing header and the LAME delay field. */
export const XING_PROBE_BYTES = 4 + 32 + 8 + 4 + 4 + XING_TOC_BYTES + 4 + LAME_EXTENSION_BYTES;

/** Reads a Xing or Info tag (LAME writes "Info" for CBR) in the frame at `b[p..]`, or null. */
export function readXingTag(b: Uint8Array, p: number, header: MpegFrameHeader): XingTag | null {
  let t = p + header.tagOffset;
  const magic = String.fromCharCode(b[t] ?? 0, b[t + 1] ?? 0, b[t + 2] ?? 0, b[t + 3] ?? 0);
  if (magic !== 'Xing' && magic !== 'Info') return null;
  const u32 = (q: number): number => ((b[q]! << 24) | (b[q + 1]! << 16) | (b[q + 2]! << 8) | b[q + 3]!) >>> 0;
  if (t + 8 > b.length) return { frames: null, encoderDelay: null, padding: null };
  const flags = u32(t + 4);
  t += 8;
  let frames: number | null = null;
  if (flags & XING_FRAMES) {
    frames = t + 4 <= b.length ? u32(t) : null;
    t += 4;
  }
  if (flags & XING_BYTES) t += 4;
  if (flags & XING_TOC) t += XING_TOC_BYTES;
  if (flags & XING_QUALITY) t += 4;
  const frameEnd = header.frameBytes > 0 ? p + header.frameBytes : b.length;
  const d = t + LAME_DELAY_OFFSET;
  if (d + 3 > Math.min(b.length, frameEnd) || !isPrintable(b, t, 4)) return { frames, encoderDelay: null, padding: null };
  return { frames, encoderDelay: (b[d]! << 4) | (b[d + 1]! >> 4), padding: ((b[d + 1]! & 0x0f) << 8) | b[d + 2]! };
}

/** The LAME extension starts with an encoder name ("LAME3.100", "Lavc60.31", ...). */
function isPrintable(b: Uint8Array, from: number, n: number): boolean {
  for (let i = from; i < from + n; i++) if (b[i] === undefined || b[i]! < 0x20 || b[i]! > 0x7e) return false;
  return true;
}
