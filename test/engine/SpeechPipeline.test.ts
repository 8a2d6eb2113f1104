import fc from 'fast-check';
import { Writable } from 'node:stream';
import { pipeline as streamPipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import type { AudioFrame } from '../../src/codec/types.js';
import { createSpeechPipeline, SpeechPipeline } from '../../src/engine/SpeechPipeline.js';
import { MAX_FRAME_MS } from '../../src/dsp/ConversionStage.js';
import { AbortError, CodecError, InvalidOptionError } from '../../src/errors.js';
import { capture, concatFrames, events, expected, round3, runPipeline, splitRandom, sse } from './helpers.js';

const CAPTURES = [
  ['speech.pcm.sse', 'pcm'],
  ['speech.wav.sse', 'wav'],
  ['speech.wav-per-chunk.sse', 'wav'],
  ['speech.wav-per-chunk-unknown.sse', 'wav'],
] as const;

const timeline = (p: SpeechPipeline) =>
  p.alignment.timeline().map((w) => ({ text: w.text, start: round3(w.start), end: round3(w.end), chunk_seq: w.chunkSeq }));

describe('createSpeechPipeline: SSE bytes in, frames and words out', () => {
  for (const [name, format] of CAPTURES) {
    it(`${name}: the real speech audio and the final word timeline come out exactly`, async () => {
      const p = createSpeechPipeline({ format, sampleRate: 22050 });
      const formats: unknown[] = [];
      p.on('format', (f) => formats.push(f));
      const r = await runPipeline(p, splitRandom(capture(name), 7));
      expect(r.error).toBeNull();
      expect(r.pcm.length).toBe(expected.samples);
      expect(r.sha256).toBe(expected.sha256);
      expect(formats).toEqual([{ sampleRate: 22050, channels: 1, encoding: 's16le' }]);
      expect(timeline(p)).toEqual(expected.words);
      expect(r.words.map((w) => w.text)).toEqual(expected.words.map((w) => w.text));
      expect(r.order).toEqual(['summary', 'end']);
      expect(r.summary).toMatchObject({ words: expected.words.length, frames: r.frames.length, bytes: capture(name).length });
      expect(r.summary!.durationSec).toBeCloseTo(expected.samples / 22050, 9);
      expect(r.warnings).toEqual([]);
    });
  }

  it('frames are 20 ms by default (441 samples at 22050 Hz) with running startSample; the last may be short', async () => {
    const r = await runPipeline(createSpeechPipeline({ format: 'pcm', sampleRate: 22050 }), [capture('speech.pcm.sse')]);
    const frames = r.frames;
    expect(frames.slice(0, -1).every((f) => f.sampleCount === 441 && f.samples.length === 441)).toBe(true);
    expect(frames.at(-1)!.sampleCount).toBe(expected.samples % 441 || 441);
    frames.forEach((f, i) => expect(f.startSample).toBe(i * 441));
  });

  it('frameMs sets the frame size', async () => {
    const r = await runPipeline(createSpeechPipeline({ format: 'wav', frameMs: 10 }), [capture('speech.wav.sse')]);
    expect(r.frames[0]!.sampleCount).toBe(221);
  });

  it('output: { frameMs: undefined } keeps the pipeline frameMs for the output frames', async () => {
    // 10 ms at 22050 Hz is 221 samples; output.frameMs given as undefined must not mean 20 ms (441).
    const r = await runPipeline(createSpeechPipeline({ format: 'wav', frameMs: 10, output: { encoding: 'f32le', frameMs: undefined } }), [
      capture('speech.wav.sse'),
    ]);
    expect(r.error).toBeNull();
    expect(r.frames[0]!.encoding).toBe('f32le');
    expect(r.frames.slice(0, -1).every((f) => f.sampleCount === 221)).toBe(true);
    const resampled = await runPipeline(
      createSpeechPipeline({ format: 'wav', frameMs: 10, output: { sampleRate: 8000, frameMs: undefined } }),
      [capture('speech.wav.sse')],
    );
    expect(resampled.frames.slice(0, -1).every((f) => f.sampleCount === 80)).toBe(true);
  });

  it('output.frameMs, when given, sets the output frame size over the pipeline frameMs', async () => {
    const r = await runPipeline(createSpeechPipeline({ format: 'wav', frameMs: 10, output: { encoding: 'mulaw', frameMs: 40 } }), [
      capture('speech.wav.sse'),
    ]);
    expect(r.frames[0]!.sampleCount).toBe(882);
  });

  for (const [name, value] of [
    ['Infinity', Infinity],
    ['NaN', NaN],
    ['0', 0],
    ['a negative size', -20],
    ['a string', '20'],
    ['null', null],
    ['more than MAX_FRAME_MS', MAX_FRAME_MS + 1],
  ] as const) {
    it(`frameMs or output.frameMs set to ${name} throws InvalidOptionError at construction, naming the option`, () => {
      const thrown = (make: () => unknown): InvalidOptionError => {
        try {
          make();
        } catch (err) {
          expect(err).toBeInstanceOf(InvalidOptionError);
          return err as InvalidOptionError;
        }
        throw new Error('no error thrown');
      };
      const top = thrown(() => createSpeechPipeline({ format: 'wav', frameMs: value as number }));
      expect(top.field).toBe('frameMs');
      expect(top.message).toMatch(/^frameMs /);
      const out = thrown(() => createSpeechPipeline({ format: 'wav', output: { encoding: 'mulaw', frameMs: value as number } }));
      expect(out.field).toBe('output.frameMs');
      expect(out.message).toMatch(/^output\.frameMs /);
    });
  }

  it('output given as something other than an object throws InvalidOptionError naming output', () => {
    for (const output of [null, 20, 'mulaw']) {
      expect(() => createSpeechPipeline({ format: 'wav', output: output as never })).toThrow(
        expect.objectContaining({ code: 'INVALID_OPTION', field: 'output' }),
      );
    }
  });

  it('a frameMs of MAX_FRAME_MS is accepted', async () => {
    const r = await runPipeline(createSpeechPipeline({ format: 'wav', frameMs: MAX_FRAME_MS }), [capture('speech.wav.sse')]);
    expect(r.error).toBeNull();
    expect(r.frames[0]!.sampleCount).toBe(22050);
  });

  it('any transport split gives the same audio, events and words', async () => {
    const body = capture('speech.wav-per-chunk-unknown.sse');
    for (const [seed, max] of [
      [1, 1],
      [2, 7],
      [3, 333],
      [4, 65536],
    ] as const) {
      const parts = max === 1 ? splitRandom(body.subarray(0, 30000), seed, 1).concat([body.subarray(30000)]) : splitRandom(body, seed, max);
      const p = createSpeechPipeline({ format: 'wav' });
      const r = await runPipeline(p, parts);
      expect(r.sha256).toBe(expected.sha256);
      expect(timeline(p)).toEqual(expected.words);
      expect(r.summary!.events).toBe(35);
    }
  });

  it('property: any split of a capture gives the same audio and timeline (fast-check)', async () => {
    const body = capture('speech.wav-per-chunk.sse');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(body.length), { maxLength: 40 }), async (cuts) => {
        const sorted = [...new Set(cuts)].sort((a, b) => a - b);
        const parts: Uint8Array[] = [];
        let at = 0;
        for (const c of [...sorted, body.length]) {
          parts.push(body.subarray(at, c));
          at = c;
        }
        const p = createSpeechPipeline({ format: 'wav' });
        const r = await runPipeline(p, parts);
        expect(r.sha256).toBe(expected.sha256);
        expect(timeline(p)).toEqual(expected.words);
      }),
      { numRuns: 15 },
    );
  });

  it('every way of consuming counts as reading: async iteration, pipe and read()', async () => {
    const body = capture('speech.pcm.sse');
    // async iteration
    const a = createSpeechPipeline({ format: 'pcm', sampleRate: 22050 });
    const aWords: string[] = [];
    a.on('word', (w) => aWords.push(w.text));
    a.end(body);
    let n = 0;
    for await (const frame of a as AsyncIterable<AudioFrame>) n += frame.sampleCount;
    expect(n).toBe(expected.samples);
    expect(a.playhead.position).toBe(expected.samples);
    expect(aWords).toHaveLength(expected.words.length);
    // pipe into a Writable
    const b = createSpeechPipeline({ format: 'pcm', sampleRate: 22050 });
    let m = 0;
    const sink = new Writable({
      objectMode: true,
      write(f: AudioFrame, _e, cb) {
        m += f.sampleCount;
        cb();
      },
    });
    b.end(body);
    await streamPipeline(b, sink);
    expect(m).toBe(expected.samples);
    expect(b.playhead.position).toBe(expected.samples);
    // paused read()
    const c = createSpeechPipeline({ format: 'pcm', sampleRate: 22050 });
    c.end(body);
    await new Promise((r) => c.once('readable', r));
    const first = c.read() as AudioFrame;
    expect(first.startSample).toBe(0);
    expect(c.playhead.position).toBe(441);
    c.destroy();
  });

  it('backpressure: with a full ring the write callback waits until the consumer reads', async () => {
    const body = capture('speech.pcm.sse');
    const p = createSpeechPipeline({ format: 'pcm', sampleRate: 22050, ringCapacity: 8192 });
    let called = false;
    p.write(body, () => (called = true));
    await new Promise((r) => setImmediate(r));
    expect(called).toBe(false); // nothing read yet: the ring holds 8 KiB and the rest waits
    expect(p.readableLength).toBe(0); // and nothing was decoded ahead of the consumer
    let samples = 0;
    let reads = 0;
    const reader = (async () => {
      for await (const frame of p as AsyncIterable<AudioFrame>) {
        samples += frame.sampleCount;
        if (++reads === 1) p.end();
      }
    })();
    await reader;
    expect(called).toBe(true);
    expect(samples).toBe(expected.samples);
  });

  it('a paced reader: read() decodes on demand, and the readable buffer holds one decode step at most', async () => {
    const p = createSpeechPipeline({ format: 'pcm', sampleRate: 22050 });
    p.end(capture('speech.pcm.sse'));
    await new Promise((r) => p.once('readable', r));
    let samples = 0;
    let frames = 0;
    let mostBuffered = 0;
    for (let frame = p.read() as AudioFrame | null; frame !== null; frame = p.read() as AudioFrame | null) {
      samples += frame.sampleCount;
      frames++;
      mostBuffered = Math.max(mostBuffered, p.readableLength);
    }
    expect(samples).toBe(expected.samples); // every frame came from synchronous read() calls
    // One decode step (16 KiB of ring: 18 frames of 441 samples) plus the frame kept back, not the stream.
    expect(mostBuffered).toBeLessThanOrEqual(Math.ceil(16384 / 2 / 441) + 1);
    expect(frames).toBeGreaterThan(4 * mostBuffered);
    p.destroy();
  });

  it('a whole body in one write to a flowing pipeline is decoded slice by slice: the ring keeps its first 64 KiB', async () => {
    const body = capture('speech.pcm.sse'); // ~155 KiB: three 64 KiB slices
    const p = createSpeechPipeline({ format: 'pcm', sampleRate: 22050 });
    const ringBytes = () => (p as unknown as { ring: { buffer: Buffer } }).ring.buffer.length;
    const frames: AudioFrame[] = [];
    p.on('data', (f: AudioFrame) => frames.push(f));
    await new Promise((r) => setImmediate(r)); // flowing: the consumer wants frames
    const ended = new Promise((r) => p.on('end', r));
    p.write(body);
    expect(frames.length).toBeGreaterThan(0); // decoded inside the write, not after it
    expect(ringBytes()).toBe(64 * 1024); // unsliced, the whole write went in first and the ring doubled to 128 KiB
    p.end();
    await ended;
    const r = await runPipeline(createSpeechPipeline({ format: 'pcm', sampleRate: 22050 }), splitRandom(body, 5, 997));
    expect(frames.map((f) => f.startSample)).toEqual(r.frames.map((f) => f.startSample));
    expect(concatFrames(frames)).toEqual(r.pcm);
    expect(r.sha256).toBe(expected.sha256);
  });

  it("a whole body written right after on('data') waits the tick to the first read, then is decoded slice by slice", async () => {
    const body = capture('speech.pcm.sse'); // ~155 KiB
    const p = createSpeechPipeline({ format: 'pcm', sampleRate: 22050 });
    const ring = (p as unknown as { ring: { buffer: Buffer; totalWritten: number } }).ring;
    const frames: AudioFrame[] = [];
    p.on('data', (f: AudioFrame) => frames.push(f)); // flowing from the next tick
    const ended = new Promise((r) => p.on('end', r));
    let calledBack = false;
    p.write(body, () => (calledBack = true));
    // Fed at once, the scanner would have put all its audio in the ring (grown to 128 KiB) before
    // any of it was decoded.
    expect(ring.totalWritten).toBe(0);
    expect(calledBack).toBe(false);
    await new Promise((r) => setImmediate(r));
    expect(calledBack).toBe(true);
    expect(frames.length).toBeGreaterThan(0);
    expect(ring.buffer.length).toBe(64 * 1024);
    p.end();
    await ended;
    const r = await runPipeline(createSpeechPipeline({ format: 'pcm', sampleRate: 22050 }), splitRandom(body, 5, 997));
    expect(frames.map((f) => f.startSample)).toEqual(r.frames.map((f) => f.startSample));
    expect(concatFrames(frames)).toEqual(r.pcm);
    expect(timeline(p)).toEqual(expected.words);
  });

  it('a source failure while a write waits for the first read: the waiting bytes are still decoded, then the error', async () => {
    const body = capture('speech.pcm.sse');
    const p = createSpeechPipeline({ format: 'pcm', sampleRate: 22050 });
    let samples = 0;
    p.on('data', (f: AudioFrame) => (samples += f.sampleCount));
    const failure = new Error('connection reset');
    const outcome = new Promise<unknown>((resolve) => {
      p.on('error', resolve);
      p.on('end', () => resolve('end'));
    });
    p.write(body);
    p.failSource(failure); // in the same tick: the write has not been fed yet
    expect(await outcome).toBe(failure);
    expect(samples).toBe(expected.samples);
    expect(timeline(p)).toEqual(expected.words);
  });

  it('a paused reader whose word listener writes the next event gets every word once, and no error out of read()', async () => {
    const evs = events('speech.pcm.sse');
    const p = createSpeechPipeline({ format: 'pcm', sampleRate: 22050 });
    const words: string[] = [];
    let next = 0;
    const writeNext = () => {
      if (next < evs.length) p.write(sse([evs[next++]!]));
      else if (next++ === evs.length) p.end();
    };
    p.on('word', (w) => {
      words.push(w.text);
      writeNext(); // synchronously, inside read()
    });
    const ended = new Promise((r) => p.on('end', r));
    for (let i = 0; i < 3; i++) writeNext();
    while (!p.readableEnded) {
      while (p.read() !== null) writeNext();
      writeNext();
      await new Promise((r) => setImmediate(r));
    }
    await ended;
    expect(words).toEqual(expected.words.map((w) => w.text));
  });

  it('a custom stage that returns its frames in arrays of its own (not appending to into) loses none', async () => {
    const p = createSpeechPipeline({
      format: 'pcm',
      sampleRate: 22050,
      // A pass-through stage in the contract's other shape, holding the last frame back until flush.
      stageFactory: () => {
        let held: AudioFrame | null = null;
        return {
          push: (f) => {
            const out = held === null ? [] : [held];
            held = f;
            return out;
          },
          flush: () => (held === null ? [] : [held]),
        };
      },
      output: { sampleRate: 22050 },
    });
    const r = await runPipeline(p, [capture('speech.pcm.sse')]);
    expect(r.error).toBeNull();
    expect(r.sha256).toBe(expected.sha256);
  });

  it('an event larger than the ring still gets through (decoded while it arrives)', async () => {
    const r = await runPipeline(createSpeechPipeline({ format: 'pcm', sampleRate: 22050, ringCapacity: 1024 }), [
      capture('speech.pcm.sse'),
    ]);
    expect(r.error).toBeNull();
    expect(r.sha256).toBe(expected.sha256);
  });

  it('a decoder whose backend fails to load ends the stream with that typed error (no hang)', async () => {
    const p = createSpeechPipeline({
      format: 'pcm',
      sampleRate: 22050,
      stageFactory: () => ({
        ready: Promise.reject(new CodecError('CODEC_UNAVAILABLE', 'no wasm here')),
        push: (f) => [f],
        flush: () => [],
      }),
      output: { sampleRate: 22050 },
    });
    const r = await runPipeline(p, [capture('speech.pcm.sse')]);
    expect(r.error).toMatchObject({ code: 'CODEC_UNAVAILABLE' });
    expect(r.frames).toEqual([]);
  });

  it('an AbortSignal destroys the pipeline with an AbortError', async () => {
    const controller = new AbortController();
    const p = createSpeechPipeline({ format: 'pcm', sampleRate: 22050, signal: controller.signal });
    const r = runPipeline(p, [capture('speech.pcm.sse').subarray(0, 20000)]);
    controller.abort();
    const result = await r;
    expect(result.error).toBeInstanceOf(AbortError);
  });

  it('options are checked: pcm needs sampleRate, frameMs > 0, a known playhead mode', () => {
    expect(() => createSpeechPipeline({ format: 'pcm' })).toThrow(InvalidOptionError);
    expect(() => createSpeechPipeline({ format: 'wav', frameMs: -1 })).toThrow(InvalidOptionError);
    expect(() => createSpeechPipeline({ format: 'wav', playhead: 'bogus' as never })).toThrow(InvalidOptionError);
  });

  it('output conversion: 8 kHz μ-law frames, and the playhead counts OUTPUT samples', async () => {
    const p = createSpeechPipeline({ format: 'pcm', sampleRate: 22050, output: { sampleRate: 8000, encoding: 'mulaw' } });
    const formats: unknown[] = [];
    p.on('format', (f) => formats.push(f));
    const positions: number[] = [];
    p.on('word', (w) => positions.push(p.playhead.position / 8000 - w.start));
    const r = await runPipeline(p, [capture('speech.pcm.sse')]);
    expect(r.error).toBeNull();
    expect(formats).toEqual([{ sampleRate: 8000, channels: 1, encoding: 'mulaw' }]);
    expect(r.frames[0]).toMatchObject({ encoding: 'mulaw', sampleRate: 8000, sampleCount: 160 });
    expect(r.frames[0]!.samples).toBeInstanceOf(Uint8Array);
    const total = r.frames.reduce((n, f) => n + f.sampleCount, 0);
    expect(Math.abs(total - Math.round((expected.samples * 8000) / 22050))).toBeLessThanOrEqual(1);
    expect(p.playhead.position).toBe(total);
    expect(positions).toHaveLength(expected.words.length);
    for (const lead of positions) {
      // emitted when the frame holding the start is read: at most one 20 ms frame (+ one) past it
      expect(lead).toBeGreaterThan(0);
      expect(lead).toBeLessThanOrEqual(0.04 + 1e-9);
    }
  });

  it('a disagreeing sampleRate for wav is a warning and the stream rate wins', async () => {
    const r = await runPipeline(createSpeechPipeline({ format: 'wav', sampleRate: 44100 }), [capture('speech.wav.sse')]);
    expect(r.warnings.map((w) => w.code)).toEqual(['FORMAT_MISMATCH']);
    expect(r.frames[0]!.sampleRate).toBe(22050);
  });

  it('an empty body ends with no frames, no words and a summary', async () => {
    const r = await runPipeline(createSpeechPipeline({ format: 'wav' }), []);
    expect(r.error).toBeNull();
    expect(r.frames).toEqual([]);
    expect(r.order).toEqual(['summary', 'end']);
  });
});
