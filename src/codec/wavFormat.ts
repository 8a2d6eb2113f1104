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
    throw new CodecError('WAV_UNSUPPORTED', `wav format tag 0x${formatTag.toString(16)} with ${bitsPerSample}-bit samples is not supported (PCM 8/16/24/32-bit and 32-bit float are)`, { byteOffset });
  }
  if (blockAlign !== channels * (bitsPerSample / 8)) {
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
      new Uint8Array(out.buffer, out.byteOffset + outStart * 2, n * 2).set(src.subarray(start, start + n * 2));
      return;
    }
    case 'u8':
      for (let i = 0; i < n; i++) out[outStart + i] = ((src[start + i] as number) - 128) << 8;
      return;
    case 's24':
      for (let i = 0, p = start + 1; i < n; i++, p += 3) out[outStart + i] = ((src[p] as number) | ((src[p + 1] as number) << 8)) << 16 >> 16;
      return;
    case 's32':
      for (let i = 0, p = start + 2; i < n; i++, p += 4) out[outStart + i] = ((src[p] as number) | ((src[p + 1] as number) << 8)) << 16 >> 16;
      return;
    case 'f32': {
      const view = new DataView(src.buffer, src.byteOffset + start, n * 4);
      for (let i = 0; i < n; i++) {
        const v = Math.round(view.getFloat32(i * 4, true) * INT16_SCALE);
        out[outStart + i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
      }
      return;
    }
  }
}
