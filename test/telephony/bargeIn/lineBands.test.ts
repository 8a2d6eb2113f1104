/**
 * The per-band judge of line noise (src/telephony/bargeIn/LineBands.ts) on the committed corpus:
 * phone-band pink and white noise, espeak-ng callers over pink noise at 20, 10 and 5 dB SNR. The
 * pure core (band floors, rises, the catch-up after a step in the noise) and, through
 * createBargeInDetector, the idle hold it judges (`lineJudge: 'bands'`) breaking at an onset.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  BAND_RECENT_WINDOWS,
  BAND_STATIONARY_WINDOWS,
  LINE_BANDS_WINDOW,
  LineBands,
  spectrum,
} from '../../../src/telephony/bargeIn/LineBands.js';
import {
  createBargeInDetector,
  DEFAULT_BAND_HOLD_BELOW_DB,
  type BargeInDetector,
} from '../../../src/telephony/bargeIn/createBargeInDetector.js';
import type { BargeInDecision } from '../../../src/telephony/bargeIn/types.js';
import { InvalidOptionError } from '../../../src/errors.js';
import { mulawDecode } from '../../../src/dsp/mulaw.js';
import { clip, CORPUS_RATE, loadCorpus } from '../../fixtures/vad/corpus.js';

const W = LINE_BANDS_WINDOW;
const FRAME = (20 * CORPUS_RATE) / 1000;
const NOISE = ['pink-25.ul', 'pink-40.ul', 'white-25.ul', 'white-40.ul', 'silence.ul'];

/** Each whole window's rise over the band floors, from a fresh judge. */
function rises(pcm: Int16Array, judge = new LineBands()): number[] {
  const out: number[] = [];
  for (let s = 0; s + W <= pcm.length; s += W) out.push(judge.window(pcm.subarray(s, s + W)));
  return out;
}

function concat(...parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

const pcm = (file: string): Int16Array => mulawDecode(clip(file).mulaw);

describe('LineBands: a per-band judge of line noise', () => {
  it('computes the band powers of a Hann-windowed window as a direct DFT does', () => {
    const re = new Float64Array(W / 2);
    const im = new Float64Array(W / 2);
    const power = new Float64Array(W / 2);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -32768, max: 32767 }), { minLength: W, maxLength: W }), (xs) => {
        const x = Int16Array.from(xs);
        spectrum(x, re, im, power);
        for (const k of [0, 1, 8, 40, 77, 112, W / 2 - 1]) {
          let r = 0;
          let i = 0;
          for (let n = 0; n < W; n++) {
            const v = x[n]! * (0.5 - 0.5 * Math.cos((2 * Math.PI * n) / W));
            r += v * Math.cos((2 * Math.PI * k * n) / W);
            i -= v * Math.sin((2 * Math.PI * k * n) / W);
          }
          const direct = r * r + i * i;
          expect(Math.abs(power[k]! - direct)).toBeLessThanOrEqual(1e-6 * (direct + 1));
        }
      }),
      { numRuns: 30 },
    );
  });

  it('keeps every band of stationary noise within the hold threshold of its floor on nearly every window once the floors settled', () => {
    let windows = 0;
    let risen = 0;
    for (const file of NOISE) {
      const r = rises(pcm(file)).slice(BAND_RECENT_WINDOWS);
      expect(r.length, file).toBeGreaterThan(30);
      windows += r.length;
      risen += r.filter((x) => x >= DEFAULT_BAND_HOLD_BELOW_DB).length;
      // A rare window over the threshold is the noise's own spread, never a jump.
      expect(Math.max(...r), file).toBeLessThan(DEFAULT_BAND_HOLD_BELOW_DB + 1);
    }
    expect(risen).toBeLessThanOrEqual(Math.ceil(windows * 0.01));
  });

  it('sees an utterance at 20 and 10 dB SNR lift a band over its floor within two windows of the labelled onset', () => {
    for (const snr of [20, 10]) {
      const clips = loadCorpus().filter((c) => c.kind === 'speech' && c.snrDb === snr);
      let early = 0;
      for (const c of clips) {
        const r = rises(mulawDecode(c.mulaw));
        const first = Math.floor(c.onset! / W);
        // The lead-in noise never reads as a rise after the floors settled.
        expect(Math.max(...r.slice(BAND_RECENT_WINDOWS, first)), c.file).toBeLessThan(DEFAULT_BAND_HOLD_BELOW_DB);
        if (r.slice(first, first + 3).some((x) => x >= DEFAULT_BAND_HOLD_BELOW_DB)) early++;
      }
      // 20 dB: every clip; 10 dB: all but one (its onset is a weak consonant; the next window rises).
      expect(early, `${snr} dB`).toBeGreaterThanOrEqual(clips.length - (snr === 20 ? 0 : 1));
    }
  });

  it('takes a step from near-silence to pink noise as the new floor after a stationary stretch, not a second', () => {
    for (const noise of ['pink-25.ul', 'pink-40.ul', 'white-25.ul']) {
      const before = pcm('silence.ul').subarray(0, 40 * W);
      const r = rises(concat(before, pcm(noise)));
      const after = r.slice(40);
      // The first windows of the louder noise stand far over the floors (a sound, until shown steady)…
      expect(after[0]!, noise).toBeGreaterThan(20);
      expect(Math.min(...after.slice(0, BAND_STATIONARY_WINDOWS - 1)), noise).toBeGreaterThan(DEFAULT_BAND_HOLD_BELOW_DB);
      // …and once a stretch of them is steady, the floors are the noise's level.
      expect(
        after.findIndex((x) => x < DEFAULT_BAND_HOLD_BELOW_DB),
        noise,
      ).toBe(BAND_STATIONARY_WINDOWS);
      expect(Math.max(...after.slice(BAND_STATIONARY_WINDOWS + 1)), noise).toBeLessThan(DEFAULT_BAND_HOLD_BELOW_DB);
    }
  });

  it('follows a step down to quieter noise at once', () => {
    const r = rises(concat(pcm('pink-25.ul').subarray(0, 40 * W), pcm('pink-40.ul')));
    expect(Math.max(...r.slice(40))).toBeLessThan(DEFAULT_BAND_HOLD_BELOW_DB);
  });

  it('starts again from nothing after reset: the same audio gives the same rises', () => {
    const audio = mulawDecode(loadCorpus().find((c) => c.kind === 'speech' && c.snrDb === 10)!.mulaw);
    const judge = new LineBands();
    const first = rises(audio, judge);
    rises(pcm('pink-25.ul'), judge);
    judge.reset();
    expect(rises(audio, judge)).toEqual(first);
  });
});

describe("the idle hold judged by bands (lineJudge: 'bands')", () => {
  const quiet = { vad: { onNotice: (): void => undefined } };

  function feed(d: BargeInDetector, audio: Uint8Array): BargeInDecision[] {
    const out: BargeInDecision[] = [];
    for (let i = 0; i < audio.length; i += FRAME) out.push(...d.push(audio.subarray(i, i + FRAME)));
    return out;
  }

  it('holds Silero through steady pink noise, and a band rise at an onset wakes it: every utterance still starts a turn', async () => {
    // An unbounded band hold: Silero wakes only where a band rises (or its last score is not low).
    const d = await createBargeInDetector({ lineJudge: 'bands', bandModelHold: 1_000_000, ...quiet });
    const level = await createBargeInDetector({ lineJudge: 'level', idleModelHold: 1_000_000, ...quiet });
    const noise = clip('pink-25.ul').mulaw;
    const callers = loadCorpus().filter((c) => c.kind === 'speech' && c.snrDb === 20 && !c.heldOut);
    for (const c of callers.slice(0, 4)) {
      for (const det of [d, level]) {
        det.reset();
        det.setBotSpeaking(false);
      }
      feed(d, noise);
      const onNoise = d.stats.modelWindows;
      const noiseWindows = d.stats.windows;
      // The line's own noise: the network runs while it settles, then holds.
      expect(onNoise, c.file).toBeLessThan(noiseWindows / 4);
      const turns = feed(d, c.mulaw).filter((x) => x.type === 'callerSpeechStarted');
      expect(turns.length, c.file).toBe(1);
      expect(d.stats.modelWindows - onNoise, c.file).toBeGreaterThan(0);
      const start = (turns[0] as { sample: number }).sample - noise.length;
      expect(start, c.file).toBeGreaterThanOrEqual(c.onset! - 3 * W);
      expect(start, c.file).toBeLessThanOrEqual(c.onset! + 5 * W);
    }
    d.close();
    level.close();
  });

  it('runs Silero on fewer windows than the level judge over line noise that steps in level, with the same turns', async () => {
    const bands = await createBargeInDetector({ lineJudge: 'bands', ...quiet });
    const level = await createBargeInDetector({ lineJudge: 'level', ...quiet });
    const callers = loadCorpus().filter((c) => c.kind === 'speech' && c.snrDb === 10 && !c.heldOut);
    // A line whose noise steps up and down between callers: near-silence, quiet then loud pink noise.
    const parts = callers
      .slice(0, 4)
      .flatMap((c) => [clip('silence.ul').mulaw, clip('pink-40.ul').mulaw, clip('pink-25.ul').mulaw, c.mulaw]);
    const audio = new Uint8Array(parts.reduce((n, x) => n + x.length, 0));
    parts.reduce((at, x) => (audio.set(x, at), at + x.length), 0);
    const starts = (d: BargeInDetector): number[] => {
      d.setBotSpeaking(false);
      const ds = [...feed(d, audio), ...d.flush()];
      return ds.filter((x) => x.type === 'callerSpeechStarted').map((x) => (x as { sample: number }).sample);
    };
    const a = starts(bands);
    const b = starts(level);
    expect(a.length).toBe(4);
    expect(a.length).toBe(b.length);
    a.forEach((t, i) => expect(Math.abs(t - b[i]!)).toBeLessThanOrEqual(W));
    expect(bands.stats.modelWindows).toBeLessThan(level.stats.modelWindows * 0.85);
    bands.close();
    level.close();
  });

  it('rejects a bad judge, hold or threshold with a typed error naming the option', async () => {
    for (const [options, field] of [
      [{ lineJudge: 'fft' }, 'lineJudge'],
      [{ bandModelHold: -1 }, 'bandModelHold'],
      [{ bandModelHold: 1.5 }, 'bandModelHold'],
      [{ bandHoldBelowDb: Number.NaN }, 'bandHoldBelowDb'],
    ] as const) {
      const made = createBargeInDetector({ ...(options as object), ...quiet });
      await expect(made, field).rejects.toThrow(InvalidOptionError);
      await expect(made, field).rejects.toThrow(field);
    }
  });
});
