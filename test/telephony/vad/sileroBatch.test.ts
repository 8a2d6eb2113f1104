/**
 * Silero windows of several streams in one run (`SileroBatch`, rows of `[B, …]`, each its own
 * state and context) against each stream run one window at a time: real model, corpus clips.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSilero, SileroBatch, SileroVad, SILERO_MAX_BATCH, SILERO_WINDOW_SAMPLES } from '../../../src/telephony/vad/silero.js';
import { mulawDecode } from '../../../src/dsp/mulaw.js';
import { clip, MIXED_CLIPS } from '../../fixtures/vad/corpus.js';

const W = SILERO_WINDOW_SAMPLES[8000];
const CLIPS = [...MIXED_CLIPS, 'doubletalk-en-gb-u3.ul'];
/**
 * Batched and single runs gave bit-identical probabilities on every corpus window on this machine
 * (native-notes/vad.md); another CPU's kernels may round differently by a few ulps. A row given
 * another stream's state or context moves probabilities by far more (this test's clips differ).
 */
const SAME_PROBABILITY = 1e-6;

let shared: Awaited<ReturnType<typeof loadSilero>>;
const pcm = new Map<string, Int16Array>();
beforeAll(async () => {
  shared = await loadSilero();
  for (const f of CLIPS) pcm.set(f, mulawDecode(clip(f).mulaw, new Int16Array(clip(f).mulaw.length)));
});

/** A stream: a clip from a window offset; `fresh` windows start it again (a gate reopening). */
interface Stream {
  file: string;
  from: number;
  windows: number;
  fresh: number[];
}

function alone(s: Stream): number[] {
  const v = new SileroVad(shared, 8000);
  const x = pcm.get(s.file)!;
  const out: number[] = [];
  for (let k = 0; k < s.windows; k++) {
    if (s.fresh.includes(k)) v.reset();
    out.push(v.process(x.subarray((s.from + k) * W, (s.from + k + 1) * W)));
  }
  return out;
}

describe('SileroBatch', () => {
  it('gives each stream the probabilities it gets alone, whatever streams share its runs (property)', () => {
    const stream = fc.record({
      file: fc.constantFrom(...CLIPS),
      from: fc.nat({ max: 10 }), // + 40 windows: within the shortest clip (50 windows)
      windows: fc.integer({ min: 1, max: 40 }),
      fresh: fc.array(fc.nat({ max: 40 }), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(
        fc.array(stream, { minLength: 2, maxLength: 6 }),
        fc.array(fc.nat({ max: 3 }), { minLength: 1, maxLength: 50 }),
        (streams, queue) => {
          const batch = new SileroBatch();
          const vads = streams.map(() => new SileroVad(shared, 8000));
          const got: number[][] = streams.map(() => []);
          const next = streams.map(() => 0);
          // Each step queues 0–3 windows of each stream (its windows stay in order), then runs the batch.
          let overlapped = false;
          for (let step = 0; next.some((n, i) => n < streams[i]!.windows); step++) {
            let queued = 0;
            streams.forEach((s, i) => {
              const x = pcm.get(s.file)!;
              if (next[i]! < s.windows && queue[(step + i) % queue.length]! + (step > 60 ? 1 : 0) > 0) queued++;
              for (let q = queue[(step + i) % queue.length]! + (step > 60 ? 1 : 0); q > 0 && next[i]! < s.windows; q--) {
                const k = next[i]!++;
                batch.defer(vads[i]!, x.subarray((s.from + k) * W, (s.from + k + 1) * W), (p) => got[i]!.push(p), s.fresh.includes(k));
              }
            });
            overlapped ||= queued > 1;
            batch.run();
          }
          streams.forEach((s, i) => {
            const expected = alone(s);
            expect(got[i]!.length).toBe(expected.length);
            const worst = Math.max(...expected.map((p, k) => Math.abs(p - got[i]![k]!)));
            expect(worst).toBeLessThanOrEqual(SAME_PROBABILITY);
          });
          // Whenever two streams had windows waiting at once, they shared runs.
          if (overlapped) expect(batch.stats.rows).toBeGreaterThan(batch.stats.runs);
        },
      ),
      { numRuns: 15 },
    );
  });

  it(`splits more than ${SILERO_MAX_BATCH} waiting streams over runs of at most ${SILERO_MAX_BATCH} rows`, () => {
    const batch = new SileroBatch();
    const x = pcm.get(CLIPS[0]!)!;
    const n = SILERO_MAX_BATCH + 5;
    const got: number[] = [];
    for (let i = 0; i < n; i++) batch.defer(new SileroVad(shared, 8000), x.subarray(i * W, (i + 1) * W), (p) => got.push(p));
    batch.run();
    expect(batch.stats).toEqual({ runs: 2, rows: n });
    expect(got.length).toBe(n);
    const single = new SileroVad(shared, 8000);
    single.reset();
    expect(Math.abs(got[3]! - new SileroVad(shared, 8000).process(x.subarray(3 * W, 4 * W)))).toBeLessThanOrEqual(SAME_PROBABILITY);
  });
});

describe('SileroVad.hold (the network skips a window)', () => {
  const speech = (): Int16Array => pcm.get(CLIPS[0]!)!;
  const win = (k: number): Int16Array => speech().subarray(k * W, (k + 1) * W);

  it('with a window of the stream still queued, does nothing and says so: the queued window and the next run as without it', () => {
    const batch = new SileroBatch();
    const held = new SileroVad(shared, 8000);
    const plain = new SileroVad(shared, 8000);
    const got: number[] = [];
    const want: number[] = [];
    batch.defer(held, win(10), (p) => got.push(p));
    batch.defer(plain, win(10), (p) => want.push(p));
    expect(held.hold(win(11))).toBe(false);
    batch.run();
    expect(held.process(win(12))).toBe(plain.process(win(12)));
    expect(got).toEqual(want);
  });

  it('with nothing queued, skips the window: the score stays and the context moves on to the window', () => {
    const held = new SileroVad(shared, 8000);
    const ran = new SileroVad(shared, 8000);
    const first = held.process(win(10));
    ran.process(win(10));
    expect(held.hold(win(11))).toBe(true);
    expect(held.lastProbability).toBe(first);
    // The next window sees the held window's tail as context, and the state from before it:
    // not what a stream that ran the window gets, nor one that never saw it.
    const never = new SileroVad(shared, 8000);
    never.process(win(10));
    ran.process(win(11));
    const next = held.process(win(12));
    expect(next).not.toBe(ran.process(win(12)));
    expect(next).not.toBe(never.process(win(12)));
  });
});
