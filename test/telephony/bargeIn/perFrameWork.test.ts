/**
 * The detector's per-frame work without per-frame allocations (native-notes/vad.md, "The
 * detector thread's cost inside the bridge"): the echo gate sums played μ-law blocks from the
 * codes, and caller turns reuse their chunks from one turn to the next. Both must give exactly
 * what the plain path gives.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CallerTurns, EchoGate, ECHO_BLOCK_SAMPLES, LINE_RATE } from '../../../src/telephony/bargeIn/index.js';
import { mulawDecode } from '../../../src/dsp/mulaw.js';

const MS_PER_SECOND = 1000;

describe('EchoGate fed μ-law codes', () => {
  it('bounds the echo exactly as when fed the decoded samples, whatever the frames and their start', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 400 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 0, max: 40_000 }),
        fc.double({ min: 0, max: 0.99, noNaN: true }),
        (frames, first, fraction) => {
          const decoded = new EchoGate();
          const codes = new EchoGate();
          let at = first + fraction; // a frame's start can fall between samples (atMs × 8)
          for (const f of frames) {
            decoded.notePlayed(mulawDecode(f), at);
            codes.notePlayedMulaw(f, at);
            at += f.length;
          }
          for (let start = first - 2 * ECHO_BLOCK_SAMPLES; start < at + 4 * ECHO_BLOCK_SAMPLES; start += 37) {
            expect(codes.echoBound(start, 256)).toBe(decoded.echoBound(start, 256));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('holds back an echo of played μ-law below its bound and lets a louder caller through', () => {
    const gate = new EchoGate();
    // Alternating codes 0x80 / 0x00: ±32124, the loudest μ-law samples.
    gate.notePlayedMulaw(
      Uint8Array.from({ length: 1600 }, (_, i) => (i % 2 === 0 ? 0x80 : 0x00)),
      0,
    );
    const tone = (amp: number): Int16Array => Int16Array.from({ length: 256 }, (_, i) => (i % 2 === 0 ? amp : -amp));
    expect(gate.possiblyCaller(tone(Math.round(32124 * 10 ** (-20 / 20))), 800)).toBe(false);
    expect(gate.possiblyCaller(tone(Math.round(32124 * 10 ** (-3 / 20))), 800)).toBe(true);
  });
});

describe('CallerTurns across many turns', () => {
  /** One step of a call's audio: samples appended, a turn started at an onset back in the recent audio, or the open turn ended. */
  type Op = { t: 'append'; n: number; seed: number } | { t: 'start'; back: number } | { t: 'end'; back: number };
  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 6, arbitrary: fc.record({ t: fc.constant('append' as const), n: fc.integer({ min: 1, max: 1024 }), seed: fc.integer() }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('start' as const), back: fc.integer({ min: 0, max: 6000 }) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('end' as const), back: fc.integer({ min: 0, max: 3000 }) }) },
  );

  it('gives each turn exactly the samples appended over its span, turn after turn, long turns too (chunks reused)', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 300 }), fc.integer({ min: 1, max: 9 }), (ops, maxTurnS) => {
        const turns = new CallerTurns({ maxTurnMs: maxTurnS * MS_PER_SECOND });
        const maxTurn = maxTurnS * LINE_RATE;
        const all: number[] = [];
        let open = false;
        for (const o of ops) {
          if (o.t === 'append') {
            const pcm = Int16Array.from({ length: o.n }, (_, i) => ((o.seed + i * 7919) % 65_536) - 32_768);
            turns.append(pcm);
            for (const x of pcm) all.push(x);
          } else if (o.t === 'start') {
            turns.start(Math.max(0, all.length - o.back), all.length);
            open = true;
          } else {
            const turn = turns.end(Math.max(0, all.length - o.back));
            if (!open) {
              expect(turn).toBeNull();
              continue;
            }
            open = false;
            expect(turn).not.toBeNull();
            const { startSample, endSample, audio, truncated } = turn!;
            expect(audio.length).toBe(endSample - startSample);
            expect(audio.length).toBeLessThanOrEqual(maxTurn);
            expect(Array.from(audio)).toEqual(all.slice(startSample, endSample));
            if (!truncated) expect(endSample).toBe(Math.max(startSample, all.length - o.back));
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('keeps a turn longer than the chunks it keeps between turns whole, then a short turn after it', () => {
    const turns = new CallerTurns({ maxTurnMs: 10_000, preRollMs: 0 });
    const frame = (k: number): Int16Array => Int16Array.from({ length: 160 }, (_, i) => ((k * 160 + i) % 30_000) - 15_000);
    let k = 0;
    turns.start(0, 0);
    for (; k < 400; k++) turns.append(frame(k)); // 8 s: 8 chunks of 1 s
    const long = turns.end(400 * 160)!;
    expect(long.audio.length).toBe(64_000);
    expect(long.audio[63_999]).toBe(frame(399)[159]);
    expect(long.truncated).toBe(false);
    turns.start(k * 160, k * 160);
    for (const end = k + 50; k < end; k++) turns.append(frame(k)); // 1 s, into a reused chunk
    const short = turns.end(k * 160)!;
    expect(short.audio.length).toBe(8000);
    expect(Array.from(short.audio.subarray(0, 160))).toEqual(Array.from(frame(400)));
    expect(short.audio[7999]).toBe(frame(449)[159]);
  });
});
