/**
 * The shared-memory ring a call hands its audio over in (src/telephony/bargeIn/frameRing.ts), its
 * pure core on one thread: the writer's and the reader's `FrameRing` on the same buffer, as the
 * call and its detector thread hold them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BOT_RESERVE_BYTES,
  FrameRing,
  HEADER_BYTES,
  MAX_RING_FRAME_SAMPLES,
  MIN_RING_FRAME_SAMPLES,
  RING_AUDIO_SAMPLES,
  RING_BYTES,
  RecordKind,
  ringBytesFor,
} from '../../../src/telephony/bargeIn/frameRing.js';
import { MAX_IN_FLIGHT_MS } from '../../../src/telephony/VoiceBargeIn.js';

/** The detector's rate: every line reaches the ring at 8 kHz. */
const DETECTOR_RATE = 8000;

type Rec = { kind: 'in' | 'played'; s16: boolean; samples: number[]; atMs: number } | { kind: 'bot'; speaking: boolean };

/** A record the writer may get: audio of 1–3000 samples (a 20 ms frame is 160; bursts are longer) or a bot change. */
const recArb: fc.Arbitrary<Rec> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constantFrom('in' as const, 'played' as const),
      s16: fc.boolean(),
      // 1–200 samples (frames) or up to 3000 (bursts), filled from a seed (cheaper to draw than arrays).
      samples: fc
        .tuple(fc.oneof(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 3000 })), fc.integer({ min: 0, max: 255 }))
        .map(([n, seed]) => Array.from({ length: n }, (_, i) => (seed + i * 37) & 0xff)),
      atMs: fc.double({ min: -1e6, max: 1e9, noNaN: true }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bot' as const), speaking: fc.boolean() }) },
);

/** Audio of 400–3000 samples (bursts; fast-check's bias toward small sizes would rarely fill the ring) or a bot change. */
const burstArb: fc.Arbitrary<Rec> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constantFrom('in' as const, 'played' as const),
      s16: fc.boolean(),
      samples: fc.integer({ min: 400, max: 3000 }).map((n) => Array.from({ length: n }, (_, i) => i & 0xff)),
      atMs: fc.constant(0),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bot' as const), speaking: fc.boolean() }) },
);

function write(w: FrameRing, r: Rec): boolean {
  if (r.kind === 'bot') return w.writeBot(r.speaking);
  // s16 records get values over the whole s16 range (a sample times 257 minus an offset).
  const pcm = r.s16 ? Int16Array.from(r.samples, (x) => x * 257 - 32768) : Uint8Array.from(r.samples);
  return w.writeAudio(r.kind === 'in', pcm, r.atMs);
}

/** Reads the record the reader has loaded, as the writer wrote it; releases it. */
function read(rd: FrameRing): Rec {
  const kind = rd.kind;
  if (kind === RecordKind.BotSpeaking || kind === RecordKind.BotStopped) {
    rd.release();
    return { kind: 'bot', speaking: kind === RecordKind.BotSpeaking };
  }
  const s16 = rd.isS16;
  const samples: number[] = [];
  if (s16) {
    const into = new Int16Array(rd.samples);
    rd.copyS16(into);
    for (const x of into) samples.push((x + 32768) / 257);
  } else {
    const into = new Uint8Array(rd.samples);
    rd.copyMulaw(into);
    samples.push(...into);
  }
  const inbound = kind === RecordKind.InMulaw || kind === RecordKind.InS16;
  const r: Rec = { kind: inbound ? 'in' : 'played', s16, samples, atMs: rd.atMs };
  rd.release();
  return r;
}

const samplesOf = (r: Rec): number => (r.kind === 'bot' ? 0 : r.samples.length);

describe('the frame ring between a call and its detector thread', () => {
  it('gives back every record it accepted, identical and in order, across many wrap-arounds; a full ring refuses and counts, never overwriting unread records (property)', () => {
    fc.assert(
      fc.property(
        // Steps: write a record, or read up to n records.
        fc.array(fc.oneof({ weight: 3, arbitrary: recArb }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }) }), {
          minLength: 1,
          maxLength: 400,
        }),
        (steps) => {
          const w = new FrameRing();
          const rd = new FrameRing(w.buffer);
          const expected: Rec[] = [];
          const got: Rec[] = [];
          let refused = 0;
          let refusedSamples = 0;
          let consumed = 0;
          let accepted = 0;
          for (const s of steps) {
            if (typeof s === 'number') {
              for (let i = 0; i < s && rd.next(); i++) {
                const r = read(rd);
                consumed += samplesOf(r);
                got.push(r);
              }
            } else if (write(w, s)) {
              expected.push(s);
              accepted += samplesOf(s);
            } else {
              refused++;
              refusedSamples += samplesOf(s);
            }
            expect(w.inFlight).toBe(accepted - consumed);
          }
          while (rd.next()) got.push(read(rd));
          expect(rd.empty).toBe(true);
          // Compared as text: a deep equality over ~10⁵ samples a run is the slow part of this test.
          expect(got.length).toBe(expected.length);
          expect(JSON.stringify(got)).toBe(JSON.stringify(expected));
          expect(w.refused).toBe(refused);
          expect(w.refusedSamples).toBe(refusedSamples);
          expect(w.inFlight).toBe(0);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("takes or refuses each record exactly as the ring's free bytes and the in-flight count say at that moment, though the writer loads the reader's positions only when they would refuse (differential, property)", () => {
    const align = (bytes: number): number => Math.ceil(bytes / 8) * 8;
    fc.assert(
      fc.property(
        // Reads rare and short: the ring fills, and a read then makes room the writer has not seen yet.
        fc.array(fc.oneof({ weight: 8, arbitrary: burstArb }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 8 }) }), {
          minLength: 150,
          maxLength: 600,
        }),
        fc.integer({ min: 1, max: 3 * RING_AUDIO_SAMPLES }),
        (steps, maxInFlight) => {
          const w = new FrameRing();
          const rd = new FrameRing(w.buffer);
          // The model: byte positions (never wrapped: a run writes far less than 2³¹), and each
          // accepted record's end and samples, in order.
          let writeAt = 0;
          let readAt = 0;
          let inFlight = 0;
          const ends: { end: number; samples: number }[] = [];
          for (const s of steps) {
            if (typeof s === 'number') {
              for (let i = 0; i < s && rd.next(); i++) {
                const r = read(rd);
                const rec = ends.shift()!;
                readAt = rec.end;
                inFlight -= samplesOf(r);
              }
              continue;
            }
            const samples = samplesOf(s);
            expect(w.fits(samples, maxInFlight)).toBe(inFlight + samples <= maxInFlight);
            const bytes = s.kind === 'bot' ? 0 : s.s16 ? samples * 2 : samples;
            const size = HEADER_BYTES + align(bytes);
            const keep = s.kind === 'bot' ? 0 : BOT_RESERVE_BYTES;
            const toEnd = RING_BYTES - (writeAt % RING_BYTES);
            const pad = toEnd < size ? toEnd : 0;
            const room = writeAt - readAt + pad + size + keep <= RING_BYTES;
            expect(write(w, s)).toBe(room);
            if (room) {
              writeAt += pad + size;
              ends.push({ end: writeAt, samples });
              inFlight += samples;
            }
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('refuses audio once full and keeps the unread records intact; after a read makes room it takes audio again', () => {
    const w = new FrameRing();
    const rd = new FrameRing(w.buffer);
    const frame = (k: number): Uint8Array => new Uint8Array(160).fill(k % 256);
    let n = 0;
    while (w.writeAudio(true, frame(n), n * 20)) n++;
    // 160 bytes + 16 of header per record, audio may not use the bot's reserve.
    expect(n).toBe(Math.floor((RING_BYTES - BOT_RESERVE_BYTES) / (160 + HEADER_BYTES)));
    expect(w.refused).toBe(1);
    expect(w.refusedSamples).toBe(160);
    expect(w.writeAudio(false, frame(0), 0)).toBe(false);
    // The bot's changes still go, in order, into the reserve.
    expect(w.writeBot(true)).toBe(true);
    expect(w.inFlight).toBe(n * 160);
    const into = new Uint8Array(160);
    expect(rd.next()).toBe(true);
    rd.copyMulaw(into);
    expect([...into]).toEqual([...frame(0)]);
    rd.release();
    expect(w.inFlight).toBe((n - 1) * 160);
    // One record freed is room for one more (after the bot's record: it went in first).
    expect(w.writeAudio(true, frame(n), n * 20)).toBe(true);
    for (let k = 1; k < n; k++) {
      expect(rd.next()).toBe(true);
      expect(rd.atMs).toBe(k * 20);
      rd.copyMulaw(into);
      expect(into[0]).toBe(k % 256);
      rd.release();
    }
    expect(rd.next()).toBe(true);
    expect(rd.kind).toBe(RecordKind.BotSpeaking);
    rd.release();
    expect(rd.next()).toBe(true);
    expect(rd.atMs).toBe(n * 20);
    rd.release();
    expect(rd.next()).toBe(false);
  });

  it('keeps its positions right past 2³² bytes written (the counters wrap)', () => {
    const w = new FrameRing();
    const rd = new FrameRing(w.buffer);
    // Start both sides just below the int32 wrap, as after ~2 GiB through one call's ring.
    const control = new Int32Array(w.buffer, 0, 4);
    control[0] = control[1] = 0x7fff_ff00 - RING_BYTES * 3;
    const frame = new Uint8Array(3000).map((_, i) => i & 0xff);
    const into = new Uint8Array(3000);
    for (let k = 0; k < 1000; k++) {
      expect(w.writeAudio(k % 2 === 0, frame, k)).toBe(true);
      expect(rd.next()).toBe(true);
      expect(rd.atMs).toBe(k);
      rd.copyMulaw(into);
      expect(Buffer.compare(into, frame)).toBe(0);
      rd.release();
    }
    expect(control[0]! < 0).toBe(true); // it did wrap
    expect(w.inFlight).toBe(0);
  });

  it('takes only a buffer of its own size', () => {
    expect(() => new FrameRing(new SharedArrayBuffer(1024))).toThrow(RangeError);
  });

  it('asks for an answer only while something is unread', () => {
    const w = new FrameRing();
    const rd = new FrameRing(w.buffer);
    expect(w.wantAnswer()).toBe(true);
    expect(rd.takeAnswerRequest()).toBe(true);
    expect(rd.takeAnswerRequest()).toBe(false);
    w.writeAudio(true, new Uint8Array(160), 0);
    expect(w.wantAnswer()).toBe(false);
    expect(rd.next()).toBe(true);
    rd.release();
    expect(rd.empty).toBe(true);
    expect(rd.takeAnswerRequest()).toBe(true);
  });
});

describe("the ring's size against the call's in-flight bound (MAX_IN_FLIGHT_MS)", () => {
  it("is sized for the call's bound: MAX_IN_FLIGHT_MS at 8 kHz", () => {
    expect(RING_AUDIO_SAMPLES).toBe((MAX_IN_FLIGHT_MS * DETECTOR_RATE) / 1000);
    expect(RING_BYTES).toBe(ringBytesFor(RING_AUDIO_SAMPLES));
    expect(Number.isInteger(Math.log2(RING_BYTES))).toBe(true);
  });

  it('refuses audio only by the in-flight bound, never by running out of room, on μ-law and L16 lines alike (property)', () => {
    // Frames of one size (2.5–100 ms), μ-law bytes or s16, the caller alone or both ways, the bot
    // starting or stopping at most every 100 ms (its utterances); the writer checks the bound
    // first, as the call does.
    fc.assert(
      fc.property(
        fc.integer({ min: MIN_RING_FRAME_SAMPLES, max: MAX_RING_FRAME_SAMPLES }),
        fc.boolean(),
        fc.boolean(),
        fc.option(fc.integer({ min: 100, max: 2000 }), { nil: null }),
        (frame, s16, bothWays, botMs) => {
          const w = new FrameRing();
          const botEvery = botMs === null ? 0 : Math.ceil((botMs * DETECTOR_RATE) / 1000 / frame);
          const pcm = s16 ? new Int16Array(frame) : new Uint8Array(frame);
          let n = 0;
          for (;;) {
            const inbound = !bothWays || n % 2 === 0;
            if (w.inFlight + frame > RING_AUDIO_SAMPLES) break; // the call's bound: it stops here
            expect(w.writeAudio(inbound, pcm, n * 20)).toBe(true);
            if (botEvery > 0 && n % botEvery === 0) expect(w.writeBot(n % 2 === 0)).toBe(true);
            n++;
          }
          expect(w.refused).toBe(0);
          expect(w.inFlight).toBeGreaterThan(RING_AUDIO_SAMPLES - frame);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('holds 5 s of an L16 caller burst in 20 ms frames (250 s16 records) before the bound, with room to spare', () => {
    const w = new FrameRing();
    const frame = new Int16Array(160);
    let kept = 0;
    while (w.inFlight + frame.length <= RING_AUDIO_SAMPLES && w.writeAudio(true, frame, kept * 20)) kept++;
    expect(kept).toBe(250);
    expect(w.refused).toBe(0);
    expect(kept * (HEADER_BYTES + 2 * frame.length)).toBeLessThan(RING_BYTES - BOT_RESERVE_BYTES);
  });
});
