/**
 * A streaming WAV file writer: the file is created at once, audio is appended as it comes, and
 * the header's sizes are fixed on {@link WavWriter.close}. Until then the header says "size
 * unknown" (0xFFFFFFFF), which streaming readers (voicewire's WavDecoder, ffmpeg) read to the end,
 * so a file cut short by a crash is still playable.
 *
 * {@link wavHeader} (in codec/wavFormat.ts) is the pure part: s16le (format 1), f32le (format 3,
 * IEEE float) and μ-law (format 7, G.711), with the `fact` chunk that non-PCM formats carry.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { wavHeader, type WavFormat } from '../codec/wavFormat.js';

/** The header writer lives beside the WAV parser: the local service's `wav` encoder writes the same bytes. */
export { WAV_SIZE_UNKNOWN, wavHeader, wavHeaderLength, type WavFormat } from '../codec/wavFormat.js';

/** Audio staged in memory before one file write (a few hundred 20 ms frames). */
const WRITE_BATCH_BYTES = 64 * 1024;

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
