/**
 * SpeechPipeline.readFrame(): frames taken directly, on the consumer's own clock, with read()'s
 * stream contract ('readable' after null, 'end' / 'error' once nothing is left).
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DECODE_STEP_MS, type AudioFrame } from '../../src/codec/types.js';
import { loadResampler } from '../../src/dsp/Resampler.js';
import { createSpeechPipeline, PULL_AHEAD_MS, type SpeechPipeline, type WordEvent } from '../../src/engine/SpeechPipeline.js';
import { CAPTURES, capture, concatFrames, expected, runPipeline, splitRandom } from './helpers.js';

/** libopus calls so far: the real backend, counted (one packet per call). */
const opusCalls = vi.hoisted(() => ({ n: 0 }));
vi.mock('../../src/codec/opus/backend.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/codec/opus/backend.js')>();
  return {
    ...real,
    createOpusPacketDecoder: (...args: Parameters<typeof real.createOpusPacketDecoder>) => {
      const dec = real.createOpusPacketDecoder(...args);
      return {
        ...dec,
        decode: (packet: Uint8Array) => {
          opusCalls.n++;
          return dec.decode(packet);
        },
      };
    },
  };
});

const mulaw = { sampleRate: 8000, encoding: 'mulaw', channels: 1 } as const;
/**
 * A real Ogg Opus capture recorded from the local service (test/fixtures/captures/real): its first
 * ~40 % (about 16 s of speech), cut at an event's end.
 */
const opusCapture = (): Buffer => {
  const body = readFileSync(join(CAPTURES, 'real', 'opus-low-long.sse'));
  return body.subarray(0, body.indexOf('\n\n', Math.floor(body.length * 0.4)) + 2);
};

interface Taken {
  frames: AudioFrame[];
  words: WordEvent[];
  order: string[];
  error: Error | null;
}

/**
 * Writes `parts` one per turn of the event loop and takes frames with `take` (readFrame or read)
 * on every turn until it returns null, then waits for 'readable' / the next write: a paced
 * consumer. Bounded: stops at 'end' or 'error'.
 */
async function consume(p: SpeechPipeline, parts: Uint8Array[], take: (p: SpeechPipeline, k: number) => AudioFrame | null): Promise<Taken> {
  const got: Taken = { frames: [], words: [], order: [], error: null };
  p.on('word', (w) => got.words.push(w));
  p.on('summary', () => got.order.push('summary'));
  let done = false;
  const finished = new Promise<void>((resolve) => {
    p.once('end', () => {
      got.order.push('end');
      done = true;
      resolve();
    });
    p.once('error', (e) => {
      got.error = e;
      got.order.push('error');
      done = true;
      resolve();
    });
  });
  const drain = (): void => {
    for (let f = take(p, got.frames.length); f !== null; f = take(p, got.frames.length)) got.frames.push(f);
  };
  p.on('readable', drain);
  for (const part of parts) {
    if (done) break;
    p.write(part);
    drain();
    await new Promise((r) => setImmediate(r));
  }
  if (!done) p.end();
  drain();
  await finished;
  return got;
}

/** 20 ms at 22.05 kHz: each frame of the pcm capture starts this many samples after the one before. */
const FRAME_22050 = 441;

/**
 * The first sample where two PCM streams differ (a length difference counts at the shorter's end),
 * or -1 when they are identical. A deep `toEqual` on two 100 000-sample arrays walks them element
 * by element through the matcher's generic equality (about a second each on this machine); with six
 * property runs that took the test past its 30 s timeout under a load of 10+. This compares the
 * bytes in one call and still names where they differ.
 */
function firstDifference(a: Int16Array, b: Int16Array): number {
  const x = Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const y = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (x.equals(y)) return -1;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

const byReadFrame = (p: SpeechPipeline): AudioFrame | null => p.readFrame();
const byRead = (p: SpeechPipeline): AudioFrame | null => p.read() as AudioFrame | null;

describe('SpeechPipeline.readFrame', () => {
  it('a real opus capture to 8 kHz μ-law: the same frames and words as read(), then summary and end', async () => {
    const body = opusCapture();
    const parts = splitRandom(body, 3, 1460);
    // Both pipelines start with the conversion stage's wasm loaded, so both see the same writes.
    await loadResampler();
    const a = await consume(createSpeechPipeline({ format: 'opus', output: mulaw }), parts, byReadFrame);
    const b = await consume(createSpeechPipeline({ format: 'opus', output: mulaw }), parts, byRead);
    expect(a.error).toBeNull();
    expect(a.order).toEqual(['summary', 'end']);
    expect(a.frames.length).toBeGreaterThan(500);
    expect(a.frames.map((f) => f.startSample)).toEqual(b.frames.map((f) => f.startSample));
    expect(Buffer.concat(a.frames.map((f) => f.samples as Uint8Array))).toEqual(
      Buffer.concat(b.frames.map((f) => f.samples as Uint8Array)),
    );
    expect(a.words.map((w) => [w.text, w.start, w.late])).toEqual(b.words.map((w) => [w.text, w.start, w.late]));
    expect(a.words.length).toBeGreaterThan(20);
  });

  it('frames handed out keep their bytes to the end of the stream while the frame queue is reused visit after visit', async () => {
    const body = opusCapture();
    await loadResampler();
    const onReceipt: Buffer[] = [];
    const got = await consume(createSpeechPipeline({ format: 'opus', output: mulaw }), splitRandom(body, 7, 1460), (p) => {
      const frame = p.readFrame();
      if (frame !== null) onReceipt.push(Buffer.from(frame.samples.slice().buffer));
      return frame;
    });
    expect(got.error).toBeNull();
    expect(got.frames.length).toBeGreaterThan(500);
    // Every frame is a real one (never the queue's spent slot), each starting where the last ended.
    let next = 0;
    for (const f of got.frames) {
      expect([f.sampleRate, f.encoding, f.startSample]).toEqual([8000, 'mulaw', next]);
      expect(f.sampleCount).toBeGreaterThan(0);
      next += f.sampleCount;
    }
    // Held to the end, their bytes are still those they had when they were taken.
    expect(Buffer.concat(got.frames.map((f) => f.samples as Uint8Array)).equals(Buffer.concat(onReceipt))).toBe(true);
  });

  it('pcm capture: exactly the reference audio, whatever the splits and however read() and readFrame() alternate', async () => {
    const body = capture('speech.pcm.sse');
    const reference = await runPipeline(createSpeechPipeline({ format: 'pcm', sampleRate: 22050 }), [body]);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1 << 30 }),
        fc.integer({ min: 400, max: 8000 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }),
        async (seed, max, pattern) => {
          const p = createSpeechPipeline({ format: 'pcm', sampleRate: 22050 });
          const got = await consume(p, splitRandom(body, seed, max), (q, k) =>
            pattern[k % pattern.length] ? q.readFrame() : (q.read() as AudioFrame | null),
          );
          expect(got.error).toBeNull();
          expect(got.order).toEqual(['summary', 'end']);
          const pcm = concatFrames(got.frames);
          expect(pcm.length).toBe(expected.samples);
          expect(got.frames.findIndex((f, i) => f.startSample !== i * FRAME_22050)).toBe(-1); // every frame where it belongs
          expect(firstDifference(pcm, reference.pcm)).toBe(-1); // sample-exact
        },
      ),
      { numRuns: 6 },
    );
  });

  it('returns null before any audio, then emits readable once an event is complete', async () => {
    const body = capture('speech.pcm.sse');
    const p = createSpeechPipeline({ format: 'pcm', sampleRate: 22050 });
    expect(p.readFrame()).toBeNull();
    const readable = new Promise((r) => p.once('readable', r));
    p.write(body.subarray(0, Math.floor(body.length / 2)));
    await readable;
    const first = p.readFrame();
    expect(first).not.toBeNull();
    expect(first!.startSample).toBe(0);
    expect(p.playhead.position).toBe(441);
    p.destroy();
  });

  it('takes frames without pushing them through the readable buffer', async () => {
    const p = createSpeechPipeline({ format: 'pcm', sampleRate: 22050 });
    p.write(capture('speech.pcm.sse'));
    await new Promise((r) => setImmediate(r));
    let frames = 0;
    let mostBuffered = 0;
    for (let f = p.readFrame(); f !== null && frames < 100; f = p.readFrame()) {
      frames++;
      mostBuffered = Math.max(mostBuffered, p.readableLength);
    }
    expect(frames).toBe(100);
    expect(mostBuffered).toBe(0);
    p.destroy();
  });

  it('a consumer that switches from readFrame() to flowing mode gets every remaining frame and the end', async () => {
    const body = capture('speech.pcm.sse');
    const p = createSpeechPipeline({ format: 'pcm', sampleRate: 22050 });
    const frames: AudioFrame[] = [];
    p.write(body);
    await new Promise((r) => p.once('readable', r));
    // Through read() once (a buffered frame), then readFrame(): the refill skipped there is owed.
    frames.push(p.read() as AudioFrame);
    for (let k = 0; k < 10; k++) frames.push(p.readFrame()!);
    const ended = new Promise((r) => p.once('end', r));
    p.on('data', (f: AudioFrame) => frames.push(f));
    p.end();
    await ended;
    expect(concatFrames(frames).length).toBe(expected.samples);
    frames.forEach((f, i) => expect(f.startSample).toBe(i * 441));
  });

  /**
   * Takes 300 frames with readFrame() from a pipeline holding ~16 s of a real capture: how many
   * frames it took, how many of those readFrame() calls reached libopus (visits), and how many
   * packets libopus was ever ahead of the frames taken.
   */
  const visitsOf = async (pullAheadMs: number | undefined): Promise<{ frames: number; visits: number; mostAhead: number }> => {
    await loadResampler();
    const p = createSpeechPipeline({ format: 'opus', output: mulaw, ...(pullAheadMs === undefined ? {} : { pullAheadMs }) });
    p.write(opusCapture());
    await new Promise((r) => setImmediate(r));
    let frames = 0;
    let visits = 0;
    let mostAhead = 0;
    const before = opusCalls.n;
    for (let k = 0; k < 300; k++) {
      const calls = opusCalls.n;
      const f = p.readFrame();
      expect(f).not.toBeNull();
      frames++;
      if (opusCalls.n > calls) visits++;
      // The capture's packets are 20 ms: one frame each (pre-skip takes part of the first).
      mostAhead = Math.max(mostAhead, opusCalls.n - before - frames);
    }
    p.destroy();
    return { frames, visits, mostAhead };
  };
  /** Packets (20 ms frames) one decode step decodes: DECODE_STEP_MS. */
  const STEP_FRAMES = DECODE_STEP_MS / 20;

  it.each([
    ['its default', undefined, PULL_AHEAD_MS],
    ['a 60 ms bound', 60, 60],
  ])(
    'a readFrame() that finds no frame decodes ahead by %s, so the next ones take queued frames without a libopus call',
    async (_label, option, aheadMs) => {
      const ahead = Math.ceil(aheadMs / 20); // frames
      const { frames, visits, mostAhead } = await visitsOf(option);
      // One visit per `ahead` frames at most, plus the first; not one per decode step (a visit
      // every STEP_FRAMES frames, what readFrame() did before the decode-ahead).
      expect(visits).toBeLessThanOrEqual(frames / ahead + 1);
      expect(visits).toBeGreaterThanOrEqual(frames / (ahead + 2 * STEP_FRAMES));
      expect(frames / ahead + 1).toBeLessThan(frames / STEP_FRAMES); // the bound above excludes the old pace
      // Never more than the bound plus one decode step ahead of the consumer.
      expect(mostAhead).toBeLessThanOrEqual(ahead + STEP_FRAMES);
    },
  );

  it('with a spread, readFrame() decodes at most the spread per call yet stays up to the bound ahead, frames unchanged', async () => {
    await loadResampler();
    const take = async (options: {
      pullSpreadMs?: number;
    }): Promise<{ samples: Uint8Array[]; mostPerCall: number; leastAheadLate: number; visits: number }> => {
      const p = createSpeechPipeline({ format: 'opus', output: mulaw, pullAheadMs: 200, ...options });
      p.write(opusCapture());
      await new Promise((r) => setImmediate(r));
      const samples: Uint8Array[] = [];
      let mostPerCall = 0;
      let leastAheadLate = Infinity;
      let visits = 0;
      const before = opusCalls.n;
      for (let k = 0; k < 300; k++) {
        const calls = opusCalls.n;
        const f = p.readFrame();
        expect(f).not.toBeNull();
        samples.push(Uint8Array.from(f!.samples as Uint8Array));
        // After the first call (whose first decode step gives less than a frame's worth: Opus pre-skip).
        if (k > 0) mostPerCall = Math.max(mostPerCall, opusCalls.n - calls);
        if (opusCalls.n > calls) visits++;
        // Once filled (after the first 50 frames), packets decoded but not yet taken.
        if (k >= 50) leastAheadLate = Math.min(leastAheadLate, opusCalls.n - before - (k + 1));
      }
      p.destroy();
      return { samples, mostPerCall, leastAheadLate, visits };
    };
    const plain = await take({});
    const spreadFrames = 2 * STEP_FRAMES; // two decode steps per visit
    const spread = await take({ pullSpreadMs: spreadFrames * 20 });
    // The same audio, frame by frame.
    expect(spread.samples).toEqual(plain.samples);
    // The default decodes 200 ms (10 packets) in one call; spread, its frames per call at most (plus
    // one decode step where the pre-skip leaves a step one frame short), well under the default's,
    expect(plain.mostPerCall).toBeGreaterThanOrEqual(200 / 20);
    expect(spread.mostPerCall).toBeLessThanOrEqual(spreadFrames + STEP_FRAMES);
    expect(spread.mostPerCall).toBeLessThan(plain.mostPerCall);
    // and a whole spread per decoding call, not one step every other call (300 frames: ~75 visits, not ~150).
    expect(spread.visits).toBeLessThanOrEqual(300 / spreadFrames + 2);
    // Yet it keeps most of the bound decoded ahead (the default drains to zero before each visit).
    expect(spread.leastAheadLate).toBeGreaterThanOrEqual(200 / 20 - spreadFrames - 1);
    expect(plain.leastAheadLate).toBeLessThanOrEqual(1);
  });

  it('bad input mid-stream: every frame before the fault, then the typed error', async () => {
    const body = capture('speech.pcm.sse');
    const cut = body.indexOf('data:', Math.floor(body.length / 2));
    const bad = Buffer.concat([body.subarray(0, cut), Buffer.from('data: {"audio_base64": 12}\n\n')]);
    const a = await consume(createSpeechPipeline({ format: 'pcm', sampleRate: 22050 }), splitRandom(bad, 5, 1460), byReadFrame);
    const b = await runPipeline(createSpeechPipeline({ format: 'pcm', sampleRate: 22050 }), [bad]);
    expect(b.error).not.toBeNull();
    expect(a.error).toMatchObject({ code: b.error!.code });
    expect(a.order).toEqual(['error']);
    expect(concatFrames(a.frames)).toEqual(b.pcm);
    expect(a.frames.length).toBeGreaterThan(10);
  });
});
