/**
 * The RIFF/WAVE layout in one place: the `fmt ` chunk parser and the sample conversion to s16
 * (pure helpers for {@link WavDecoder}), and {@link wavHeader}, the one header writer used by both
 * the WAV file sink (`WavWriter`) and the local service's `wav` stream encoder.
 */
import { CodecError } from '../errors.js';
import { S16_BYTES, S16_MAX, S16_MIN, S16_SCALE } from '../internal/s16.js';
import { U32_MAX } from '../internal/u32.js';
import type { SampleEncoding } from './types.js';

export const WAVE_FORMAT_PCM = 0x0001;
export const WAVE_FORMAT_IEEE_FLOAT = 0x0003;
export const WAVE_FORMAT_ALAW = 0x0006;
export const WAVE_FORMAT_MULAW = 0x0007;
export const WAVE_FORMAT_EXTENSIBLE = 0xfffe;
/** Shortest legal `fmt ` body (WAVEFORMAT + wBitsPerSample): also the PCM body we write. */
export const FMT_MIN_BYTES = 16;
/** "RIFF" and "WAVE", the fourccs a WAV file starts with. */
export const RIFF_FOURCC = [0x52, 0x49, 0x46, 0x46] as const;
export const WAVE_FOURCC = [0x57, 0x41, 0x56, 0x45] as const;
/** "RIFF", its size, "WAVE". */
export const RIFF_HEADER_BYTES = 12;
/** A chunk's fourcc and size. */
export const CHUNK_HEADER_BYTES = 8;
/**
 * The RIFF and `data` size (and `fact` frame count) of a stream whose length is unknown while it
 * is written: readers (our WavDecoder, ffmpeg) then read to the end of the file or stream.
 */
export const WAV_SIZE_UNKNOWN = U32_MAX;
/** The largest size a header can state: one below {@link WAV_SIZE_UNKNOWN}. */
const WAV_MAX_KNOWN_SIZE = WAV_SIZE_UNKNOWN - 1;
/** Non-PCM `fmt `: WAVEFORMATEX with cbSize = 0. */
const EX_FMT_BYTES = 18;
const FACT_BYTES = 4;
/** `fmt ` of WAVE_FORMAT_EXTENSIBLE: cbSize(2) validBits(2) channelMask(4) subFormat GUID(16). */
const EXTENSIBLE_MIN_BYTES = 40;
const SUBFORMAT_OFFSET = 24;
/** 8-bit WAV is unsigned: this is its silence. */
const U8_MIDPOINT = 128;
const BITS_PER_BYTE = 8;
const S24_BYTES = 3;
const S32_BYTES = 4;
const F32_BYTES = 4;
const MULAW_BYTES = 1;
const ALAW_BYTES = 1;

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
      throw new CodecError(
        'WAV_BAD_HEADER',
        `wav WAVE_FORMAT_EXTENSIBLE 'fmt ' chunk is ${body.length} bytes, needs ${EXTENSIBLE_MIN_BYTES}`,
        { byteOffset },
      );
    }
    // The sub-format GUID starts with the plain format tag (KSDATAFORMAT_SUBTYPE_PCM / _IEEE_FLOAT).
    formatTag = view.getUint16(SUBFORMAT_OFFSET, true);
  }
  if (channels === 0 || sampleRate === 0) {
    throw new CodecError('WAV_BAD_HEADER', `wav header has ${channels} channels at ${sampleRate} Hz`, { byteOffset });
  }
  let kind: WavSampleKind | undefined;
  if (formatTag === WAVE_FORMAT_PCM) {
    kind =
      bitsPerSample === 8 ? 'u8' : bitsPerSample === 16 ? 's16' : bitsPerSample === 24 ? 's24' : bitsPerSample === 32 ? 's32' : undefined;
  } else if (formatTag === WAVE_FORMAT_IEEE_FLOAT && bitsPerSample === 32) {
    kind = 'f32';
  }
  if (kind === undefined) {
    throw new CodecError(
      'WAV_UNSUPPORTED',
      `wav format tag 0x${formatTag.toString(16)} with ${bitsPerSample}-bit samples` +
        ` is not supported (PCM 8/16/24/32-bit and 32-bit float are)`,
      { byteOffset },
    );
  }
  if (blockAlign !== channels * (bitsPerSample / BITS_PER_BYTE)) {
    throw new CodecError('WAV_BAD_HEADER', `wav block align ${blockAlign} does not match ${channels} channels × ${bitsPerSample} bits`, {
      byteOffset,
    });
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
      for (let i = 0, p = start + S24_BYTES - S16_BYTES; i < n; i++, p += S24_BYTES)
        out[outStart + i] = (((src[p] as number) | ((src[p + 1] as number) << 8)) << 16) >> 16;
      return;
    case 's32':
      for (let i = 0, p = start + S32_BYTES - S16_BYTES; i < n; i++, p += S32_BYTES)
        out[outStart + i] = (((src[p] as number) | ((src[p + 1] as number) << 8)) << 16) >> 16;
      return;
    case 'f32': {
      const view = new DataView(src.buffer, src.byteOffset + start, n * F32_BYTES);
      for (let i = 0; i < n; i++) {
        const v = Math.round(view.getFloat32(i * F32_BYTES, true) * S16_SCALE);
        out[outStart + i] = v > S16_MAX ? S16_MAX : v < S16_MIN ? S16_MIN : v;
      }
      return;
    }
  }
}

/** The format a header describes. */
export interface WavFormat {
  sampleRate: number;
  channels: number;
  /** @defaultValue 's16le' */
  encoding?: SampleEncoding;
}

/** Encodings a WAV file can hold (WAV PCM is little-endian: `s16be` has no WAV form). */
const SPECS: Partial<Record<SampleEncoding, { tag: number; bytes: number }>> = {
  s16le: { tag: WAVE_FORMAT_PCM, bytes: S16_BYTES },
  f32le: { tag: WAVE_FORMAT_IEEE_FLOAT, bytes: F32_BYTES },
  mulaw: { tag: WAVE_FORMAT_MULAW, bytes: MULAW_BYTES },
  alaw: { tag: WAVE_FORMAT_ALAW, bytes: ALAW_BYTES },
};

/** The output encodings a WAV file can hold (all but `s16be`). */
export const WAV_SAMPLE_ENCODINGS = Object.keys(SPECS) as SampleEncoding[];

/** Header length in bytes for `encoding` (44 for s16le, 58 with `fact` for f32le / μ-law / A-law). */
export function wavHeaderLength(encoding: SampleEncoding = 's16le'): number {
  return encoding === 's16le'
    ? RIFF_HEADER_BYTES + CHUNK_HEADER_BYTES + FMT_MIN_BYTES + CHUNK_HEADER_BYTES
    : RIFF_HEADER_BYTES + CHUNK_HEADER_BYTES + EX_FMT_BYTES + CHUNK_HEADER_BYTES + FACT_BYTES + CHUNK_HEADER_BYTES;
}

/**
 * A WAV header for `dataBytes` of audio; `undefined` writes "size unknown" (streaming). s16le is
 * format 1 with a 16-byte `fmt `; f32le (format 3, IEEE float), A-law (format 6) and μ-law (format 7) carry
 * cbSize and the `fact` chunk that non-PCM formats need. An odd `dataBytes` is followed by a pad
 * byte the caller writes (the RIFF size counts it).
 */
export function wavHeader(format: WavFormat, dataBytes?: number): Buffer {
  const encoding = format.encoding ?? 's16le';
  const spec = SPECS[encoding];
  if (spec === undefined) {
    throw new CodecError('WAV_UNSUPPORTED', `WAV cannot hold ${encoding} audio (WAV PCM is little-endian); use s16le`, {
      field: 'encoding',
    });
  }
  const length = wavHeaderLength(encoding);
  const h = Buffer.alloc(length);
  const blockAlign = spec.bytes * format.channels;
  const known = dataBytes !== undefined;
  const data = known ? dataBytes : 0;
  const riffSize = known ? Math.min(WAV_MAX_KNOWN_SIZE, length - CHUNK_HEADER_BYTES + data + (data & 1)) : WAV_SIZE_UNKNOWN;
  let p = 0;
  p += h.write('RIFF', p, 'latin1');
  p = h.writeUInt32LE(riffSize, p);
  p += h.write('WAVE', p, 'latin1');
  p += h.write('fmt ', p, 'latin1');
  p = h.writeUInt32LE(encoding === 's16le' ? FMT_MIN_BYTES : EX_FMT_BYTES, p);
  p = h.writeUInt16LE(spec.tag, p);
  p = h.writeUInt16LE(format.channels, p);
  p = h.writeUInt32LE(format.sampleRate, p);
  p = h.writeUInt32LE(format.sampleRate * blockAlign, p);
  p = h.writeUInt16LE(blockAlign, p);
  p = h.writeUInt16LE(spec.bytes * BITS_PER_BYTE, p);
  if (encoding !== 's16le') {
    p = h.writeUInt16LE(0, p); // cbSize
    p += h.write('fact', p, 'latin1');
    p = h.writeUInt32LE(FACT_BYTES, p);
    p = h.writeUInt32LE(known ? Math.floor(data / blockAlign) : WAV_SIZE_UNKNOWN, p);
  }
  p += h.write('data', p, 'latin1');
  h.writeUInt32LE(known ? Math.min(data, WAV_MAX_KNOWN_SIZE) : WAV_SIZE_UNKNOWN, p);
  return h;
}
