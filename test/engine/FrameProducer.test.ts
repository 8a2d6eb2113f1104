import { describe, expect, it } from 'vitest';
import { RingBuffer } from '../../src/buffer/RingBuffer.js';
import type { AudioDecoder, AudioFrame, DecodeHint, DecodedAudio } from '../../src/codec/types.js';
import { CodecError, type VoicewireError } from '../../src/errors.js';
import { ConversionStage } from '../../src/dsp/ConversionStage.js';
import { FrameProducer } from '../../src/engine/FrameProducer.js';

/** A pcm-like decoder that records every call (length and hint). */
function recordingDecoder(calls: Array<[number, boolean]>, failAt = Infinity): AudioDecoder {
  let seen = 0;
  return {
    kind: 'pcm',
    format: { sampleRate: 1000, channels: 1 },
    decode(bytes: Uint8Array, hint?: DecodeHint): DecodedAudio {
      calls.push([bytes.length, hint?.chunkStart === true]);
      seen += bytes.length;
      const errors = seen >= failAt ? [new CodecError('WAV_BAD_HEADER', 'boom', { byteOffset: failAt })] : [];
      return { pcm: [new Int16Array(bytes.length >> 1)], errors };
    },
    flush: () => ({ pcm: [], errors: [] }),
    reset() {},
  };
}

function fill(ring: RingBuffer, n: number): void {
  ring.buffer.fill(0, ring.writeIndex, ring.writeIndex + n);
  ring.commitWrite(n);
}

describe('FrameProducer', () => {
  it('never decodes across a chunk boundary, and flags the first bytes after it as a chunk start', () => {
    const ring = new RingBuffer(4096);
    const calls: Array<[number, boolean]> = [];
    const warnings: VoicewireError[] = [];
    const p = new FrameProducer({
      ring,
      decoder: recordingDecoder(calls),
      frameMs: 10,
      stage: null,
      declared: { format: 'pcm' },
      onWarning: (w) => warnings.push(w),
      onFormat: () => {},
    });
    p.markChunkStart(0);
    fill(ring, 100);
    p.markChunkStart(100);
    fill(ring, 60);
    p.markChunkStart(160);
    const out: AudioFrame[] = [];
    while (p.step(ring.totalWritten, out));
    expect(calls).toEqual([
      [100, true],
      [60, true],
    ]);
    p.finish(false, out);
    expect(out.map((f) => f.sampleCount)).toEqual(Array(8).fill(10));
    expect(p.samples).toBe(80);
    expect(warnings).toEqual([]);
  });

  it('decodes only below the limit it is given (validated audio)', () => {
    const ring = new RingBuffer(4096);
    const calls: Array<[number, boolean]> = [];
    const p = new FrameProducer({
      ring,
      decoder: recordingDecoder(calls),
      frameMs: 10,
      stage: null,
      declared: { format: 'pcm' },
      onWarning: () => {},
      onFormat: () => {},
    });
    fill(ring, 500);
    const out: AudioFrame[] = [];
    expect(p.step(200, out)).toBe(true);
    expect(p.step(200, out)).toBe(false);
    expect(calls).toEqual([[200, false]]);
    expect(ring.length).toBe(300);
  });

  it('a fatal decoder fault stops decoding; frames before it are kept', () => {
    const ring = new RingBuffer(4096);
    const calls: Array<[number, boolean]> = [];
    const p = new FrameProducer({
      ring,
      decoder: recordingDecoder(calls, 40),
      frameMs: 10,
      stage: null,
      declared: { format: 'pcm' },
      onWarning: () => {},
      onFormat: () => {},
    });
    fill(ring, 40);
    const out: AudioFrame[] = [];
    expect(p.step(40, out)).toBe(true);
    fill(ring, 40);
    expect(p.step(80, out)).toBe(false);
    expect(p.fault?.code).toBe('WAV_BAD_HEADER');
    expect(out).toHaveLength(2);
  });

  it('a decoder with a backlog (pending) is continued one bounded step at a time before it gets more bytes', () => {
    const ring = new RingBuffer(4096);
    const calls: number[] = [];
    let backlog = 0;
    const STEP = 20; // samples per call: two 10-sample frames
    const decoder: AudioDecoder = {
      kind: 'pcm',
      format: { sampleRate: 1000, channels: 1 },
      get pending() {
        return backlog > 0;
      },
      decode(bytes: Uint8Array): DecodedAudio {
        calls.push(bytes.length);
        backlog += bytes.length >> 1;
        const n = Math.min(STEP, backlog);
        backlog -= n;
        return { pcm: [new Int16Array(n)], errors: [] };
      },
      flush: () => {
        const n = backlog;
        backlog = 0;
        return { pcm: [new Int16Array(n)], errors: [] };
      },
      reset() {},
    };
    const p = new FrameProducer({
      ring,
      decoder,
      frameMs: 10,
      stage: null,
      declared: { format: 'pcm' },
      onWarning: () => {},
      onFormat: () => {},
    });
    fill(ring, 200); // 100 samples
    const out: AudioFrame[] = [];
    const perStep: number[] = [];
    while (p.step(ring.totalWritten, out)) perStep.push(out.length);
    expect(calls).toEqual([200, 0, 0, 0, 0]);
    expect(perStep).toEqual([2, 4, 6, 8, 10]);
    expect(ring.length).toBe(0); // the decoder copied what it keeps: the ring is free at once
    fill(ring, 60);
    expect(p.step(ring.totalWritten, out)).toBe(true);
    p.finish(false, out); // flush drains the rest
    expect(out.reduce((n, f) => n + f.sampleCount, 0)).toBe(130);
  });

  it('chunk starts keep being flagged over a long stream of many chunks', () => {
    const ring = new RingBuffer(4096);
    const calls: Array<[number, boolean]> = [];
    const p = new FrameProducer({
      ring,
      decoder: recordingDecoder(calls),
      frameMs: 10,
      stage: null,
      declared: { format: 'pcm' },
      onWarning: () => {},
      onFormat: () => {},
    });
    const out: AudioFrame[] = [];
    for (let chunk = 0; chunk < 200; chunk++) {
      p.markChunkStart(ring.totalWritten);
      fill(ring, 40);
      while (p.step(ring.totalWritten, out));
      out.length = 0;
    }
    expect(calls).toEqual(Array(200).fill([40, true]));
  });

  it('with a conversion stage, every converted frame lands in the output in order and counts as produced', () => {
    const ring = new RingBuffer(4096);
    const stage = new ConversionStage({ encoding: 'mulaw', frameMs: 20 });
    const p = new FrameProducer({
      ring,
      decoder: recordingDecoder([]),
      frameMs: 10,
      stage,
      declared: { format: 'pcm' },
      onWarning: () => {},
      onFormat: () => {},
    });
    const out: AudioFrame[] = [];
    fill(ring, 1000); // 500 samples at 1 kHz: 25 frames of 20 ms, none left over
    while (p.step(ring.totalWritten, out));
    p.finish(false, out);
    expect(out.every((f) => f.encoding === 'mulaw')).toBe(true);
    expect(out.map((f) => f.startSample)).toEqual(Array.from({ length: 25 }, (_, i) => i * 20));
    expect(p.samples).toBe(500);
  });
});
