/**
 * The `fmt ` chunk of a RIFF/WAVE file and the sample conversion to s16 (pure helpers for
 * {@link WavDecoder}).
 */
import { CodecError } from '../errors.js';

export const WAVE_FORMAT_PCM = 0x0001;
export const WAVE_FORMAT_IEEE_FLOAT = 0x0003;
export const WAVE_FORMAT_MULAW = 0x0007;
export const WAVE_FORMAT_EXTENSIBLE = 0xfffe;
/** Shortest legal `fmt ` body (WAVEFORMAT + wBitsPerSample). */
export const FMT_MIN_BYTES = 16;
/** `fmt ` of WAVE_FORMAT_EXTENSIBLE: cbSize(2) validBits(2) channelMask(4) subFormat GUID(16). */
const EXTENSIBLE_MIN_BYTES = 40;
const SUBFORMAT_OFFSET = 24;
const INT16_SCALE = 32768;
const INT16_MAX = 32767;
const INT16_MIN = -32768;
/** 8-bit WAV is unsigned: this is its silence. */
const U8_MIDPOINT = 128;
const BITS_PER_BYTE = 8;
const S16_BYTES = 2;
const S24_BYTES = 3;
const S32_BYTES = 4;
const F32_BYTES = 4;

export type WavSampleKind = 'u8' | 's16' | 's24' | 's32' | 'f32';

export interface WavFmt {
  formatTag: number;
  channels: number;
  sampleRate: number;
  blockAlign: number;
  bitsPerSample: number;
  kind: WavSampleKind;
}

/** Parses a `fmt ` body; `byteOffset` is where it starts in the stream (for errors). */
export function parseWavFmt(body: Uint8Array, byteOffset: number): WavFmt {
  if (body.length < FMT_MIN_BYTES) {
    throw new CodecError('WAV_BAD_HEADER', `wav 'fmt ' chunk is ${body.length} bytes, needs at least ${FMT_MIN_BYTES}`, { byteOffset });
  }
  const view = new DataView(body.buffer, body.byteOffset, body.length);
  let formatTag = view.getUint16(0, true);
  const channels = view.getUint16(2, true);
  const sampleRate = view.getUint32(4, true);
  const blockAlign = view.getUint16(12, true);
  const bitsPerSample = view.getUint16(14, true);
  if (formatTag === WAVE_FORMAT_EXTENSIBLE) {
    if (body.length < EXTENSIBLE_MIN_BYTES) {
      throw new CodecError('WAV_BAD_HEADER', `wav WAVE_FORMAT_EXTENSIBLE 'fmt ' chunk is ${body.length} bytes, needs ${EXTENSIBLE_MIN_BYTES}`, { byteOffset });
    }
    // The sub-format GUID starts with the plain format tag (KSDATAFORMAT_SUBTYPE_PCM / _IEEE_FLOAT).
    formatTag = view.getUint16(SUBFORMAT_OFFSET, true);
  }
  if (channels === 0 || sampleRate === 0) {
    throw new CodecError('WAV_BAD_HEADER', `wav header has ${channels} channels at ${sampleRate} Hz`, { byteOffset });
  }
  let kind: WavSampleKind | undefined;
  if (formatTag === WAVE_FORMAT_PCM) {
    kind = bitsPerSample === 8 ? 'u8' : bitsPerSample === 16 ? 's16' : bitsPerSample === 24 ? 's24' : bitsPerSample === 32 ? 's32' : undefined;
  } else if (formatTag === WAVE_FORMAT_IEEE_FLOAT && bitsPerSample === 32) {
    kind = 'f32';
  }
  if (kind === undefined) {
    throw new CodecError('WAV_UNSUPPORTED', `wav format tag 0x${formatTag.toString(16)} with ${bitsPerSample}-bit samples` +
      ` is not supported (PCM 8/16/24/32-bit and 32-bit float are)`, { byteOffset });
  }
  if (blockAlign !== channels * (bitsPerSample / BITS_PER_BYTE)) {
    throw new CodecError('WAV_BAD_HEADER', `wav block align ${blockAlign} does not match ${channels} channels × ${bitsPerSample} bits`, { byteOffset });
  }
  return { formatTag, channels, sampleRate, blockAlign, bitsPerSample, kind };
}

/** Converts `frames` whole sample frames of `src` (from `start`) to interleaved s16 in `out` at `outStart`. */
export function convertToS16(fmt: WavFmt, src: Uint8Array, start: number, frames: number, out: Int16Array, outStart: number): void {
  const n = frames * fmt.channels;
  switch (fmt.kind) {
    case 's16': {
      // Little-endian host: a byte copy is the conversion.
      new Uint8Array(out.buffer, out.byteOffset + outStart * S16_BYTES, n * S16_BYTES).set(src.subarray(start, start + n * S16_BYTES));
      return;
    }
    case 'u8':
      for (let i = 0; i < n; i++) out[outStart + i] = ((src[start + i] as number) - U8_MIDPOINT) << BITS_PER_BYTE;
      return;
    // s24 / s32: keep the top two bytes of each little-endian sample (sign-extended by << 16 >> 16).
    case 's24':
      for (let i = 0, p = start + S24_BYTES - S16_BYTES; i < n; i++, p += S24_BYTES) out[outStart + i] = ((src[p] as number) | ((src[p + 1] as number) << 8)) << 16 >> 16;
      return;
    case 's32':
      for (let i = 0, p = start + S32_BYTES - S16_BYTES; i < n; i++, p += S32_BYTES) out[outStart + i] = ((src[p] as number) | ((src[p + 1] as number) << 8)) << 16 >> 16;
      return;
    case 'f32': {
      const view = new DataView(src.buffer, src.byteOffset + start, n * F32_BYTES);
      for (let i = 0; i < n; i++) {
        const v = Math.round(view.getFloat32(i * F32_BYTES, true) * INT16_SCALE);
        out[outStart + i] = v > INT16_MAX ? INT16_MAX : v < INT16_MIN ? INT16_MIN : v;
      }
      return;
    }
  }
}
