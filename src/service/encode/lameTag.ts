/**
 * The MP3 "Info" frame (Xing header for CBR) with a LAME extension carrying the encoder delay, so
 * that decoders (ffmpeg, LAME-aware players) trim the encoder's start delay and word times stay in
 * sync. Written before any audio, so the end padding, frame count and byte count are unknown
 * and left 0 (see native-notes/service-encoders.md for what that leaves at the end).
 *
 * Layout: MPEG frame header (same version / rate / bitrate as the stream, mono) → side info
 * (zeros) → "Info" → flags (0: no frames/bytes/TOC/quality fields) → 36-byte LAME extension.
 */

import {
  BITRATES_V1_L3,
  BITRATES_V2_L3,
  l3FrameBytes,
  MPEG_HEADER_BYTES,
  MPEG_LAYER_3,
  MPEG_MODE_MONO,
  MPEG_VERSION_1,
  mpegRateFields,
  SIDE_INFO,
} from '../../codec/mp3/mpegHeader.js';

/** LAME's encoder delay (ENCDELAY); decoders add their own 529-sample decoder delay. */
export const LAME_ENCODER_DELAY = 576;
/** The top bitrate of each table: MPEG-2/2.5 stop at 160 kbit/s. */
const MAX_KBPS_V1 = BITRATES_V1_L3[BITRATES_V1_L3.length - 1]!;
const MAX_KBPS_V2 = BITRATES_V2_L3[BITRATES_V2_L3.length - 1]!;
const LAME_VERSION = 'LAME3.100';
const VBR_METHOD_CBR = 1;

/** The largest bitrate (kbps) legal at `sampleRate`: MPEG-2/2.5 stop at 160. */
export function maxMp3Kbps(sampleRate: number): number {
  return (mpegRateFields(sampleRate)?.version ?? MPEG_VERSION_1) === MPEG_VERSION_1 ? MAX_KBPS_V1 : MAX_KBPS_V2;
}

/** CRC-16 as LAME uses it (polynomial 0x8005, reflected, initial 0). */
export function crc16Lame(bytes: Uint8Array, end: number): number {
  let crc = 0;
  for (let i = 0; i < end; i++) {
    crc ^= bytes[i]!;
    for (let b = 0; b < 8; b++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc & 0xffff;
}

export function buildLameInfoFrame(sampleRate: number, kbps: number, encoderDelay = LAME_ENCODER_DELAY): Uint8Array {
  const rate = mpegRateFields(sampleRate);
  if (!rate) throw new RangeError(`${sampleRate} Hz is not an MP3 rate`);
  const { version, rateIndex } = rate;
  const mpeg1 = version === MPEG_VERSION_1;
  const table = mpeg1 ? BITRATES_V1_L3 : BITRATES_V2_L3;
  const bitrateIndex = table.indexOf(kbps);
  if (bitrateIndex <= 0) throw new RangeError(`${kbps} kbps is not legal at ${sampleRate} Hz`);
  const f = new Uint8Array(l3FrameBytes(mpeg1, kbps, sampleRate));
  f[0] = 0xff;
  f[1] = 0xe0 | (version << 3) | (MPEG_LAYER_3 << 1) | 1; // protection bit 1: no CRC
  f[2] = (bitrateIndex << 4) | (rateIndex << 2);
  f[3] = MPEG_MODE_MONO << 6;
  let o = MPEG_HEADER_BYTES + (mpeg1 ? SIDE_INFO.v1Mono : SIDE_INFO.v2Mono);
  for (const c of 'Info') f[o++] = c.charCodeAt(0);
  o += 4; // flags: 0
  const lame = o;
  for (const c of LAME_VERSION) f[o++] = c.charCodeAt(0);
  f[lame + 9] = VBR_METHOD_CBR; // tag revision 0, VBR method
  f[lame + 20] = Math.min(255, kbps);
  f[lame + 21] = (encoderDelay >> 4) & 0xff;
  f[lame + 22] = ((encoderDelay & 0x0f) << 4) | 0; // end padding unknown: 0
  f[lame + 23] = 0;
  const crc = crc16Lame(f, lame + 34);
  f[lame + 34] = crc >> 8;
  f[lame + 35] = crc & 0xff;
  return f;
}
