/**
 * A streaming WAV file writer: the file is created at once, audio is appended as it comes, and
 * the header's sizes are fixed on {@link WavWriter.close}. Until then the header says "size
 * unknown" (0xFFFFFFFF), which streaming readers (voicewire's WavDecoder, ffmpeg) read to the end,
 * so a file cut short by a crash is still playable.
 *
 * {@link wavHeader} is the pure part: s16le (format 1), f32le (format 3, IEEE float) and μ-law
 * (format 7, G.711), with the `fact` chunk that non-PCM formats carry.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { SampleEncoding } from '../codec/types.js';
import { WAVE_FORMAT_IEEE_FLOAT, WAVE_FORMAT_MULAW, WAVE_FORMAT_PCM } from '../codec/wavFormat.js';

export interface WavFormat {
  sampleRate: number;
  channels: number;
  /** @defaultValue 's16le' */
  encoding?: SampleEncoding;
}

const PCM_FMT_BYTES = 16;
/** Non-PCM `fmt `: WAVEFORMATEX with cbSize = 0. */
const EX_FMT_BYTES = 18;
const FACT_BYTES = 4;
const CHUNK_HEADER = 8;
const RIFF_HEADER = 12;
/** "Size unknown" in a streamed WAV header. */
export const WAV_SIZE_UNKNOWN = 0xffffffff;
const MAX_RIFF_SIZE = 0xfffffffe;
const BITS_PER_BYTE = 8;
/** Audio staged in memory before one file write (a few hundred 20 ms frames). */
const WRITE_BATCH_BYTES = 64 * 1024;

const SPECS: Record<SampleEncoding, { tag: number; bytes: number }> = {
  s16le: { tag: WAVE_FORMAT_PCM, bytes: 2 },
  f32le: { tag: WAVE_FORMAT_IEEE_FLOAT, bytes: 4 },
  mulaw: { tag: WAVE_FORMAT_MULAW, bytes: 1 },
};

/** Header length in bytes for `encoding` (44 for s16le, 58 with `fact` for f32le / μ-law). */
export function wavHeaderLength(encoding: SampleEncoding = 's16le'): number {
  return encoding === 's16le' ? RIFF_HEADER + CHUNK_HEADER + PCM_FMT_BYTES + CHUNK_HEADER : RIFF_HEADER + CHUNK_HEADER + EX_FMT_BYTES + CHUNK_HEADER + FACT_BYTES + CHUNK_HEADER;
}

/**
 * A WAV header for `dataBytes` of audio; `undefined` writes "size unknown" (streaming).
 * An odd `dataBytes` is followed by a pad byte the caller writes (the RIFF size counts it).
 */
export function wavHeader(format: WavFormat, dataBytes?: number): Buffer {
  const encoding = format.encoding ?? 's16le';
  const spec = SPECS[encoding];
  const length = wavHeaderLength(encoding);
  const h = Buffer.alloc(length);
  const blockAlign = spec.bytes * format.channels;
  const known = dataBytes !== undefined;
  const data = known ? dataBytes : 0;
  const riffSize = known ? Math.min(MAX_RIFF_SIZE, length - CHUNK_HEADER + data + (data & 1)) : WAV_SIZE_UNKNOWN;
  let p = 0;
  p += h.write('RIFF', p, 'latin1');
  p = h.writeUInt32LE(riffSize, p);
  p += h.write('WAVE', p, 'latin1');
  p += h.write('fmt ', p, 'latin1');
  const fmtBytes = encoding === 's16le' ? PCM_FMT_BYTES : EX_FMT_BYTES;
  p = h.writeUInt32LE(fmtBytes, p);
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
  h.writeUInt32LE(known ? Math.min(data, MAX_RIFF_SIZE) : WAV_SIZE_UNKNOWN, p);
  return h;
}

/**
 * Appends audio to a WAV file and fixes its header on close.
 * @example
 * ```ts
 * const wav = await WavWriter.open('out.wav', { sampleRate: 22050, channels: 1 });
 * for await (const frame of speech) await wav.write(frame.samples);
 * await wav.close();
 * ```
 */
export class WavWriter {
  private format: WavFormat | null = null;
  private headerBytes = 0;
  /** Audio bytes accepted, staged ones included. */
  private written = 0;
  /** Audio bytes already in the file. */
  private flushed = 0;
  /** Frames are small (640 B for 20 ms at 16 kHz): stage them so a file write moves many. */
  private readonly staging = Buffer.allocUnsafe(WRITE_BATCH_BYTES);
  private staged = 0;
  private closed = false;

  private constructor(private readonly file: FileHandle) {}

  /** Creates (truncates) `path` now, so I/O errors surface before any audio. */
  static async open(path: string, format?: WavFormat): Promise<WavWriter> {
    const writer = new WavWriter(await open(path, 'w'));
    if (format !== undefined) await writer.setFormat(format);
    return writer;
  }

  /** Audio bytes written so far. */
  get dataBytes(): number {
    return this.written;
  }

  /** Sets the format (once, before the first write) and writes a streaming header. */
  async setFormat(format: WavFormat): Promise<void> {
    if (this.format !== null) throw new Error('WavWriter format is already set');
    this.format = format;
    const header = wavHeader(format);
    this.headerBytes = header.length;
    await this.file.write(header, 0, header.length, 0);
  }

  /** Appends interleaved samples in the writer's encoding (little-endian host memory). */
  async write(samples: Int16Array | Float32Array | Uint8Array): Promise<void> {
    if (this.format === null) throw new Error('WavWriter.write before setFormat');
    const bytes = new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
    if (this.staged + bytes.length > WRITE_BATCH_BYTES) await this.flush();
    if (bytes.length >= WRITE_BATCH_BYTES) {
      await this.file.write(bytes, 0, bytes.length, this.headerBytes + this.flushed);
      this.flushed += bytes.length;
    } else {
      this.staging.set(bytes, this.staged);
      this.staged += bytes.length;
    }
    this.written += bytes.length;
  }

  /** Writes the staged audio to the file (close() does it too). */
  async flush(): Promise<void> {
    if (this.staged === 0) return;
    const n = this.staged;
    this.staged = 0;
    await this.file.write(this.staging, 0, n, this.headerBytes + this.flushed);
    this.flushed += n;
  }

  /** Fixes the header sizes and closes the file. With no format set, `fallback` names the (empty) file's format. */
  async close(fallback: WavFormat = { sampleRate: 44100, channels: 1 }): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.format === null) await this.setFormat(fallback);
      const format = this.format as WavFormat;
      await this.flush();
      if (this.written & 1) await this.file.write(new Uint8Array(1), 0, 1, this.headerBytes + this.written);
      const header = wavHeader(format, this.written);
      await this.file.write(header, 0, header.length, 0);
    } finally {
      await this.file.close();
    }
  }
}
