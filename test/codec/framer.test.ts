import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Framer, samplesPerFrame } from '../../src/codec/Framer.js';
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
        const whole = (() => { const f = new Framer({ sampleRate: 8000, channels: 1 }); return [...f.push(input), ...f.flush()]; })();
        const f = new Framer({ sampleRate: 8000, channels: 1 });
        const frames: PcmFrame[] = [];
        let at = 0;
        for (const c of [...cuts.filter((x) => x < n)].sort((a, b) => a - b).concat(n)) { f.push(input.subarray(at, c), frames); at = Math.max(at, c); }
        f.flush(frames);
        expect(frames.map((x) => [x.startSample, Array.from(x.samples)])).toEqual(whole.map((x) => [x.startSample, Array.from(x.samples)]));
      }),
      { numRuns: 100 },
    );
  });
});
