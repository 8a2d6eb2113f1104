/**
 * The MP3 "Info" frame (Xing header for CBR) with a LAME extension carrying the encoder delay, so
 * that decoders (ffmpeg, LAME-aware players) trim the encoder's start delay and word times stay in
 * sync. Written before any audio, so the end padding, frame count and byte count are unknown
 * and left 0 (see native-notes/service-encoders.md for what that leaves at the end).
 *
 * Layout: MPEG frame header (same version / rate / bitrate as the stream, mono) → side info
 * (zeros) → "Info" → flags (0: no frames/bytes/TOC/quality fields) → 36-byte LAME extension.
 */

/** LAME's encoder delay (ENCDELAY); decoders add their own 529-sample decoder delay. */
export const LAME_ENCODER_DELAY = 576;
export const MPEG1_BITRATES = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
export const MPEG2_BITRATES = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const RATE_INDEX: Record<number, [version: number, index: number]> = {
  44100: [3, 0], 48000: [3, 1], 32000: [3, 2],
  22050: [2, 0], 24000: [2, 1], 16000: [2, 2],
  11025: [0, 0], 12000: [0, 1], 8000: [0, 2],
};
const VERSION_MPEG1 = 3;
const LAYER_III = 1;
const MODE_MONO = 3;
const SIDE_INFO_MONO_MPEG1 = 17;
const SIDE_INFO_MONO_MPEG2 = 9;
const LAME_VERSION = 'LAME3.100';
const VBR_METHOD_CBR = 1;

/** The largest bitrate (kbps) legal at `sampleRate`: MPEG-2/2.5 stop at 160. */
export function maxMp3Kbps(sampleRate: number): number {
  return (RATE_INDEX[sampleRate]?.[0] ?? VERSION_MPEG1) === VERSION_MPEG1 ? 320 : 160;
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
  const rate = RATE_INDEX[sampleRate];
  if (!rate) throw new RangeError(`${sampleRate} Hz is not an MP3 rate`);
  const [version, rateIndex] = rate;
  const mpeg1 = version === VERSION_MPEG1;
  const table = mpeg1 ? MPEG1_BITRATES : MPEG2_BITRATES;
  const bitrateIndex = table.indexOf(kbps);
  if (bitrateIndex <= 0) throw new RangeError(`${kbps} kbps is not legal at ${sampleRate} Hz`);
  const size = Math.floor(((mpeg1 ? 144 : 72) * kbps * 1000) / sampleRate);
  const f = new Uint8Array(size);
  f[0] = 0xff;
  f[1] = 0xe0 | (version << 3) | (LAYER_III << 1) | 1; // protection bit 1: no CRC
  f[2] = (bitrateIndex << 4) | (rateIndex << 2);
  f[3] = MODE_MONO << 6;
  let o = 4 + (mpeg1 ? SIDE_INFO_MONO_MPEG1 : SIDE_INFO_MONO_MPEG2);
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
