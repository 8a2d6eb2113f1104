/**
 * mpg123-decoder's wasm driven directly: feed bytes, read frame by frame, hand each frame's
 * float output (a view of the wasm heap, valid during the callback) to the caller.
 *
 * Why: `MPEGDecoder.decode()` copies every frame's two channels out of the heap (`slice` ×2),
 * then concatenates them into two new Float32Arrays per call. With the engine's bounded steps
 * (two frames per call) that wrapper and the garbage it makes were ~15 % of the MP3 pipeline's
 * CPU, more than the engine's own work. This is the same loop as the wrapper's `decode`
 * (mpg123-decoder 1.0.3, its `MPEGDecoder.js`), minus the copies.
 *
 * It relies on the wrapper's internal fields, so {@link directMpg123} checks every one of them
 * and returns null when any is missing or of another shape (another version): the caller then
 * uses the public `decode()`. Both paths give the same samples (test/codec/mp3.test.ts).
 */
import type { MPEGDecoder } from 'mpg123-decoder';

/** mpg123.h: MPG123_NEED_MORE, MPG123_NEW_FORMAT. */
const MPG123_NEED_MORE = -10;
const MPG123_NEW_FORMAT = -11;

interface HeapArray<T> {
  ptr: number;
  len: number;
  buf: T;
}

interface Internals {
  _common: {
    wasm: {
      mpeg_decoder_feed(decoder: number, ptr: number, length: number): number;
      mpeg_decoder_read(decoder: number, out: number, outLength: number, samples: number, rate: number, error: number): number;
    };
  };
  _decoder: number;
  _input: HeapArray<Uint8Array>;
  _output: HeapArray<Float32Array>;
  _samplesDecodedPtr: HeapArray<Uint32Array>;
  _sampleRatePtr: HeapArray<Uint32Array>;
  _errorStringPtr: HeapArray<Uint32Array>;
  _getErrorMessage(error: number): string;
}

/** One decoded frame: left = heap[0..n), right = heap[n..2n) (views valid during the call). */
export type FrameSink = (heap: Float32Array, samples: number) => void;
export type ErrorSink = (message: string, inputBytes: number) => void;

export interface DirectMpg123 {
  /** Decodes `data` (copied into the wasm heap), calling `onFrame` per decoded frame. */
  decode(data: Uint8Array, onFrame: FrameSink, onError: ErrorSink): void;
}

function isHeapArray(x: unknown, type: { prototype: object }): boolean {
  const h = x as HeapArray<unknown> | undefined;
  return (
    typeof h === 'object' &&
    h !== null &&
    typeof h.ptr === 'number' &&
    typeof h.len === 'number' &&
    h.buf instanceof (type as unknown as typeof Object)
  );
}

/** The direct driver for a ready `MPEGDecoder`, or null when its internals are not the known ones. */
export function directMpg123(decoder: MPEGDecoder): DirectMpg123 | null {
  const d = decoder as unknown as Partial<Internals>;
  const wasm = d._common?.wasm;
  if (
    wasm === undefined ||
    typeof wasm.mpeg_decoder_feed !== 'function' ||
    typeof wasm.mpeg_decoder_read !== 'function' ||
    typeof d._decoder !== 'number' ||
    typeof d._getErrorMessage !== 'function' ||
    !isHeapArray(d._input, Uint8Array) ||
    !isHeapArray(d._output, Float32Array) ||
    !isHeapArray(d._samplesDecodedPtr, Uint32Array) ||
    !isHeapArray(d._sampleRatePtr, Uint32Array) ||
    !isHeapArray(d._errorStringPtr, Uint32Array)
  ) {
    return null;
  }
  const it = d as Internals;
  const feed = wasm.mpeg_decoder_feed;
  const read = wasm.mpeg_decoder_read;
  let inputBytes = 0;
  return {
    decode(data, onFrame, onError) {
      const input = it._input;
      const output = it._output;
      const samples = it._samplesDecodedPtr;
      for (let offset = 0; offset < data.length;) {
        const length = Math.min(input.len, data.length - offset);
        input.buf.set(length === data.length ? data : data.subarray(offset, offset + length));
        offset += length;
        inputBytes += length;
        let error = feed(it._decoder, input.ptr, length);
        if (error === MPG123_NEED_MORE) continue;
        for (;;) {
          samples.buf[0] = 0;
          error = read(it._decoder, output.ptr, output.len, samples.ptr, it._sampleRatePtr.ptr, it._errorStringPtr.ptr);
          const n = samples.buf[0]!;
          if (n > 0) onFrame(output.buf, n);
          if (error === MPG123_NEW_FORMAT) continue;
          if (error === MPG123_NEED_MORE) break;
          if (error !== 0) onError(it._getErrorMessage(error), inputBytes);
        }
      }
    },
  };
}
