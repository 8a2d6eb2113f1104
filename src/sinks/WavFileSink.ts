/**
 * A Writable of audio frames that streams them into a WAV file (on {@link WavWriter}).
 *
 * The header is written with "size unknown" at the first frame and fixed on close — on a normal
 * end *and* when the stream is destroyed by an error upstream (e.g. `pipeline(stream, sink)`
 * after a broken connection), so the file always holds a valid WAV of the audio that arrived.
 * `close` fires only after the header is fixed.
 */
import { Writable } from 'node:stream';
import type { AudioFrame } from '../codec/types.js';
import { SinkError } from '../errors.js';
import { WavWriter, type WavFormat } from './WavWriter.js';

export interface WavFileSinkOptions {
  /** Format of an empty file (no frame ever arrived). @defaultValue 44100 Hz mono s16le */
  emptyFormat?: WavFormat;
}

export class WavFileSink extends Writable {
  readonly path: string;
  private writer: WavWriter | null = null;
  private format: WavFormat | null = null;
  private samples = 0;
  private readonly emptyFormat: WavFormat | undefined;
  /** The write in flight: a destroy waits for it so the header counts every byte on disk. */
  private pending: Promise<void> = Promise.resolve();

  constructor(path: string, options: WavFileSinkOptions = {}) {
    super({ objectMode: true });
    this.path = path;
    this.emptyFormat = options.emptyFormat;
  }

  /** Samples (per channel) written. */
  get writtenSamples(): number {
    return this.samples;
  }

  /** Seconds of audio written. */
  get durationSec(): number {
    return this.format === null ? 0 : this.samples / this.format.sampleRate;
  }

  override _construct(callback: (err?: Error | null) => void): void {
    WavWriter.open(this.path).then(
      (w) => {
        this.writer = w;
        callback();
      },
      (err: Error) => callback(new SinkError('SINK_IO', `cannot write ${this.path}: ${err.message}`, { cause: err })),
    );
  }

  override _write(frame: AudioFrame, _enc: BufferEncoding, callback: (err?: Error | null) => void): void {
    const pending = this.writeFrame(frame);
    this.pending = pending.catch(() => undefined);
    pending.then(
      () => callback(),
      (err: Error) => callback(err),
    );
  }

  override _final(callback: (err?: Error | null) => void): void {
    this.closeFile().then(
      () => callback(),
      (err: Error) => callback(err),
    );
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    // A failure upstream still leaves a valid file: fix the header before reporting.
    this.closeFile().then(
      () => callback(err),
      (closeErr: Error) => callback(err ?? closeErr),
    );
  }

  private async writeFrame(frame: AudioFrame): Promise<void> {
    const writer = this.writer;
    if (writer === null) throw new SinkError('SINK_IO', `${this.path} is not open`);
    const format: WavFormat = { sampleRate: frame.sampleRate, channels: frame.channels, encoding: frame.encoding };
    if (this.format === null) {
      this.format = format;
      await writer.setFormat(format).catch((err: Error) => {
        throw new SinkError('SINK_IO', `cannot write ${this.path}: ${err.message}`, { cause: err });
      });
    } else if (
      format.sampleRate !== this.format.sampleRate ||
      format.channels !== this.format.channels ||
      format.encoding !== this.format.encoding
    ) {
      throw new SinkError(
        'FORMAT_MISMATCH',
        `the audio format changed mid-stream (${describe(this.format)} → ${describe(format)}); a WAV holds one format`,
      );
    }
    await writer.write(frame.samples).catch((err: Error) => {
      throw new SinkError('SINK_IO', `cannot write ${this.path}: ${err.message}`, { cause: err });
    });
    this.samples += frame.sampleCount;
  }

  private async closeFile(): Promise<void> {
    const writer = this.writer;
    if (writer === null) return;
    this.writer = null;
    await this.pending;
    await writer.close(this.emptyFormat).catch((err: Error) => {
      throw new SinkError('SINK_IO', `cannot finish ${this.path}: ${err.message}`, { cause: err });
    });
  }
}

function describe(f: WavFormat): string {
  return `${f.sampleRate} Hz × ${f.channels} ${f.encoding ?? 's16le'}`;
}

/**
 * A streaming WAV file sink: header fixed up on close, valid after a failure too.
 *
 * @example
 * ```ts
 * const { stream } = await client.tts.streamWithTimestamps({ text: 'Hello.', format: 'opus' });
 * await pipeline(stream, createWavFileSink('hello.wav'));
 * ```
 */
export function createWavFileSink(path: string, options: WavFileSinkOptions = {}): WavFileSink {
  return new WavFileSink(path, options);
}
