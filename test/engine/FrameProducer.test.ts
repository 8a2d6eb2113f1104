import { describe, expect, it } from 'vitest';
import { RingBuffer } from '../../src/buffer/RingBuffer.js';
import type { AudioDecoder, AudioFrame, DecodeHint, DecodedAudio } from '../../src/codec/types.js';
import { CodecError, type VoicewireError } from '../../src/errors.js';
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
    const p = new FrameProducer({ ring, decoder: recordingDecoder(calls), frameMs: 10, stage: null, declared: { format: 'pcm' }, onWarning: (w) => warnings.push(w), onFormat: () => {} });
    p.markChunkStart(0);
    fill(ring, 100);
    p.markChunkStart(100);
    fill(ring, 60);
    p.markChunkStart(160);
    const out: AudioFrame[] = [];
    while (p.step(ring.totalWritten, out));
    expect(calls).toEqual([[100, true], [60, true]]);
    p.finish(false, out);
    expect(out.map((f) => f.sampleCount)).toEqual(Array(8).fill(10));
    expect(p.samples).toBe(80);
    expect(warnings).toEqual([]);
  });

  it('decodes only below the limit it is given (validated audio)', () => {
    const ring = new RingBuffer(4096);
    const calls: Array<[number, boolean]> = [];
    const p = new FrameProducer({ ring, decoder: recordingDecoder(calls), frameMs: 10, stage: null, declared: { format: 'pcm' }, onWarning: () => {}, onFormat: () => {} });
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
    const p = new FrameProducer({ ring, decoder: recordingDecoder(calls, 40), frameMs: 10, stage: null, declared: { format: 'pcm' }, onWarning: () => {}, onFormat: () => {} });
    fill(ring, 40);
    const out: AudioFrame[] = [];
    expect(p.step(40, out)).toBe(true);
    fill(ring, 40);
    expect(p.step(80, out)).toBe(false);
    expect(p.fault?.code).toBe('WAV_BAD_HEADER');
    expect(out).toHaveLength(2);
  });
});
