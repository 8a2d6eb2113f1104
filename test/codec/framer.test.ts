import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Framer, samplesPerFrame } from '../../src/codec/Framer.js';
import { FRAMES_PER_SLAB, FrameSlab, MAX_SLAB_BYTES } from '../../src/codec/FrameSlab.js';
import type { PcmFrame } from '../../src/codec/types.js';
import { InvalidOptionError } from '../../src/errors.js';

const ramp = (n: number, from = 0) => Int16Array.from({ length: n }, (_, i) => from + i);

describe('Framer', () => {
  it('cuts 20 ms frames by default (320 samples at 16 kHz), the last one short', () => {
    const f = new Framer({ sampleRate: 16000, channels: 1 });
    const frames = f.push(ramp(700));
    expect(frames.map((x) => x.sampleCount)).toEqual([320, 320]);
    const tail = f.flush();
    expect(tail).toHaveLength(1);
    expect(tail[0]).toMatchObject({ sampleCount: 60, startSample: 640, encoding: 's16le', sampleRate: 16000, channels: 1 });
    expect(Array.from(tail[0]!.samples)).toEqual(Array.from(ramp(60, 640)));
  });

  it('frame size is configurable (frameMs)', () => {
    expect(new Framer({ sampleRate: 8000, channels: 1, frameMs: 10 }).frameSamples).toBe(80);
    expect(samplesPerFrame(22050, 20)).toBe(441);
    expect(() => new Framer({ sampleRate: 8000, channels: 1, frameMs: 0 })).toThrow(InvalidOptionError);
  });

  it('stereo frames are interleaved and count samples per channel', () => {
    const f = new Framer({ sampleRate: 1000, channels: 2, frameMs: 2 });
    const frames = [...f.push(ramp(6)), ...f.flush()];
    expect(frames.map((x) => [x.startSample, x.sampleCount, Array.from(x.samples)])).toEqual([
      [0, 2, [0, 1, 2, 3]],
      [2, 1, [4, 5]],
    ]);
  });

  it('each frame belongs to the consumer: later pushes never overwrite it', () => {
    const f = new Framer({ sampleRate: 1000, channels: 1, frameMs: 4 });
    const first = f.push(ramp(4))[0]!;
    f.push(ramp(4, 100));
    f.push(ramp(2, 200));
    f.flush();
    expect(Array.from(first.samples)).toEqual([0, 1, 2, 3]);
  });

  it('any split of the input gives the same frames (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 500 }), fc.array(fc.nat(500), { maxLength: 8 }), (n, cuts) => {
        const input = ramp(n);
        const whole = (() => {
          const f = new Framer({ sampleRate: 8000, channels: 1 });
          return [...f.push(input), ...f.flush()];
        })();
        const f = new Framer({ sampleRate: 8000, channels: 1 });
        const frames: PcmFrame[] = [];
        let at = 0;
        for (const c of [...cuts.filter((x) => x < n)].sort((a, b) => a - b).concat(n)) {
          f.push(input.subarray(at, c), frames);
          at = Math.max(at, c);
        }
        f.flush(frames);
        expect(frames.map((x) => [x.startSample, Array.from(x.samples)])).toEqual(whole.map((x) => [x.startSample, Array.from(x.samples)]));
      }),
      { numRuns: 100 },
    );
  });
});

describe('Framer memory: frames cut from slabs', () => {
  it('frames share a few ArrayBuffers, never overlap, and keep their samples after later frames', () => {
    const f = new Framer({ sampleRate: 8000, channels: 1 }); // 160-sample frames
    const frames: PcmFrame[] = [];
    for (let i = 0; i < 100; i++) f.push(ramp(160, i * 160), frames);
    expect(frames).toHaveLength(100);
    expect(new Set(frames.map((x) => x.samples.buffer)).size).toBeLessThanOrEqual(Math.ceil(100 / FRAMES_PER_SLAB) + 1);
    const spans = frames.map((x) => [x.samples.buffer, x.samples.byteOffset, x.samples.byteOffset + x.samples.byteLength] as const);
    for (let i = 0; i < spans.length; i++) {
      for (let j = i + 1; j < spans.length; j++) {
        const [ba, a0, a1] = spans[i]!;
        const [bb, b0, b1] = spans[j]!;
        if (ba === bb) expect(a1 <= b0 || b1 <= a0).toBe(true);
      }
    }
    frames.forEach((x, i) => expect(Array.from(x.samples)).toEqual(Array.from(ramp(160, i * 160))));
  });

  it('the short last frame is a view of its own span; frames made after it do not overwrite it', () => {
    const f = new Framer({ sampleRate: 1000, channels: 1, frameMs: 4 });
    f.push(ramp(6));
    const [tail] = f.flush();
    f.push(ramp(8, 100));
    expect(Array.from(tail!.samples)).toEqual([4, 5]);
  });

  it('a copy of the samples (not .buffer) is what to transfer: the other frames stay intact', () => {
    const f = new Framer({ sampleRate: 8000, channels: 1 });
    const [a, b] = f.push(ramp(320));
    const copy = a!.samples.slice();
    structuredClone(copy, { transfer: [copy.buffer] });
    expect(copy.length).toBe(0); // detached
    expect(Array.from(a!.samples.subarray(0, 3))).toEqual([0, 1, 2]);
    expect(b!.samples[0]).toBe(160);
  });
});

describe('FrameSlab', () => {
  it('hands out aligned, never reused spans, FRAMES_PER_SLAB requests per slab', () => {
    const slab = new FrameSlab();
    const views = [slab.uint8(3), slab.float32(5), slab.int16(7), ...Array.from({ length: FRAMES_PER_SLAB }, () => slab.uint8(160))];
    for (const v of views) expect(v.byteOffset % 8).toBe(0);
    const sameSlab = views.filter((v) => v.buffer === views[0]!.buffer);
    const ends = sameSlab.map((v) => [v.byteOffset, v.byteOffset + v.byteLength]).sort((x, y) => x[0]! - y[0]!);
    for (let i = 1; i < ends.length; i++) expect(ends[i]![0]).toBeGreaterThanOrEqual(ends[i - 1]![1]!);
    views[3]!.fill(7);
    slab.uint8(160).fill(9);
    expect(views[3]!.every((x) => x === 7)).toBe(true);
  });

  it('a request too large to share a slab gets an ArrayBuffer of its own', () => {
    const slab = new FrameSlab();
    const big = slab.int16(MAX_SLAB_BYTES / 2);
    expect(big.byteOffset).toBe(0);
    expect(big.buffer.byteLength).toBe(MAX_SLAB_BYTES);
    const small = slab.int16(10);
    expect(small.buffer).not.toBe(big.buffer);
  });
});

describe("Framer with owned blocks (a native decoder's fresh output)", () => {
  /** `samples` in an ArrayBuffer of their own, seen through a view starting `skip` samples in. */
  const ownBlock = (samples: Int16Array, skip: number): Int16Array => {
    const whole = new Int16Array(samples.length + skip);
    whole.set(samples, skip);
    return whole.subarray(skip);
  };

  it('gives the same frames as copying, and no frame changes after it was handed out (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 }),
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.record({ length: fc.integer({ min: 0, max: 40 }), skip: fc.integer({ min: 0, max: 9 }) }), { maxLength: 30 }),
        (channels, frameMs, blocks) => {
          let next = 0;
          const inputs = blocks.map(({ length }) => ramp(length * channels, (next += length * channels) - length * channels));
          const copied = new Framer({ sampleRate: 1000, channels, frameMs });
          const expected: PcmFrame[] = [];
          for (const block of inputs) copied.push(block, expected);
          copied.flush(expected);
          const owned = new Framer({ sampleRate: 1000, channels, frameMs });
          const frames: PcmFrame[] = [];
          const atHandout: number[][] = [];
          const note = () => {
            while (atHandout.length < frames.length) atHandout.push(Array.from(frames[atHandout.length]!.samples));
          };
          inputs.forEach((block, i) => {
            owned.push(ownBlock(block, blocks[i]!.skip * channels), frames, true);
            note();
          });
          owned.flush(frames);
          note();
          const shape = (x: PcmFrame) => [x.startSample, x.sampleCount, Array.from(x.samples)];
          expect(frames.map(shape)).toEqual(expected.map(shape));
          expect(frames.map((x) => Array.from(x.samples))).toEqual(atHandout);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("20 ms packets behind a pre-skip: every frame is a decoded block's own memory, no slab", () => {
    const f = new Framer({ sampleRate: 48000, channels: 1 }); // 960-sample frames
    const frames: PcmFrame[] = [];
    const blocks: Int16Array[] = [];
    for (let p = 0; p < 10; p++) {
      const block = ramp(960, p * 960);
      blocks.push(block);
      f.push(p === 0 ? block.subarray(312) : block, frames, true); // pre-skip of 312 on the first
    }
    f.flush(frames);
    expect(frames.map((x) => x.sampleCount)).toEqual([...Array(9).fill(960), 648]);
    frames.forEach((x, i) => {
      expect(x.samples.buffer).toBe(blocks[i]!.buffer);
      expect(Array.from(x.samples)).toEqual(Array.from(ramp(x.sampleCount, 312 + i * 960)));
    });
  });

  it("a block in a shared buffer (Node's Buffer pool, the wasm backend) is copied, never reused", () => {
    const f = new Framer({ sampleRate: 1000, channels: 1, frameMs: 4 });
    const pool = new Int16Array(64).fill(7);
    const block = pool.subarray(8, 14); // 6 samples; the rest of the pool is someone else's
    block.set(ramp(6));
    const frames = [...f.push(block, [], false), ...f.flush()];
    expect(frames.map((x) => Array.from(x.samples))).toEqual([
      [0, 1, 2, 3],
      [4, 5],
    ]);
    expect(frames.every((x) => x.samples.buffer !== pool.buffer)).toBe(true);
    expect(Array.from(pool.subarray(0, 8))).toEqual(Array(8).fill(7));
  });
});
