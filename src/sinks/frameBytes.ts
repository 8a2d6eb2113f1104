/**
 * Bytes out: the speech stream yields frame objects (samples with their format, for sinks that
 * play or time them), but a file, a socket or an HTTP response wants the raw bytes of the output
 * encoding. {@link frameBytes} is the pure step (one frame → its bytes, no copy);
 * {@link FrameByteStream} is the Transform that puts it between the stream and a byte sink:
 *
 * ```ts
 * await pipeline(stream, createFrameByteStream(), createWriteStream('hello.pcm'));
 * ```
 *
 * The bytes are headerless, in the stream's output encoding: s16le and f32le interleaved in host
 * memory order (little-endian, as the WAV sink also assumes), μ-law one byte a sample. Their
 * format (the first frame's) is on `format`; a frame in another format later would make the bytes
 * unreadable, so it fails the stream instead.
 */
import { Transform, type TransformCallback } from 'node:stream';
import type { AudioFrame, SampleEncoding } from '../codec/types.js';
import { SinkError } from '../errors.js';

/** What the bytes of a {@link FrameByteStream} are. */
export interface FrameByteFormat {
  encoding: SampleEncoding;
  sampleRate: number;
  channels: number;
}

/**
 * The bytes of one frame's samples, in its encoding (a view, no copy: a frame is its consumer's,
 * nothing later overwrites it). Only the frame's own bytes, never the rest of the slab it was cut
 * from.
 */
export function frameBytes(frame: AudioFrame): Buffer {
  const { samples } = frame;
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
}

/** A Transform of audio frames (object mode) into their bytes (a plain byte stream). */
export class FrameByteStream extends Transform {
  private formatValue: FrameByteFormat | null = null;

  constructor() {
    super({ writableObjectMode: true, readableObjectMode: false });
  }

  /** The format of the bytes: the first frame's; null before it. */
  get format(): FrameByteFormat | null {
    return this.formatValue;
  }

  override _transform(frame: AudioFrame, _enc: BufferEncoding, callback: TransformCallback): void {
    if (frame === null || typeof frame !== 'object' || !ArrayBuffer.isView(frame.samples)) {
      callback(
        new SinkError('INVALID_OPTION', 'a frame byte stream takes audio frames ({ samples, encoding, sampleRate, channels })', {
          field: 'samples',
        }),
      );
      return;
    }
    const format = this.formatValue;
    if (format === null) {
      this.formatValue = { encoding: frame.encoding, sampleRate: frame.sampleRate, channels: frame.channels };
    } else if (frame.encoding !== format.encoding || frame.sampleRate !== format.sampleRate || frame.channels !== format.channels) {
      callback(
        new SinkError(
          'FORMAT_MISMATCH',
          `the audio format changed mid-stream (${describe(format)} → ${describe(frame)}): headerless bytes cannot say so`,
          { field: 'format' },
        ),
      );
      return;
    }
    if (frame.samples.byteLength === 0) {
      callback();
      return;
    }
    callback(null, frameBytes(frame));
  }
}

/** A new {@link FrameByteStream}: `pipeline(speechStream, createFrameByteStream(), byteSink)`. */
export function createFrameByteStream(): FrameByteStream {
  return new FrameByteStream();
}

function describe(f: FrameByteFormat): string {
  return `${f.encoding} ${f.sampleRate} Hz × ${f.channels}`;
}
