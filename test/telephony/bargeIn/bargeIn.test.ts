/**
 * Barge-in by voice through createBargeInDetector on the committed corpus (test/fixtures/vad):
 * real espeak-ng callers over phone-band noise, the bot's echo with the reference it came from,
 * real Silero (onnxruntime-node) and WebRTC (wasm). Audio goes in as 20 ms μ-law frames, with the
 * bot's frames noted just before, as the bridge will do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  BargeInPolicy,
  EchoGate,
  createBargeInDetector,
  DEFAULT_MIN_INTERRUPTION_MS,
  DEFAULT_PRE_ROLL_MS,
  type BargeInDecision,
  type BargeInDetector,
  type CallerTurn,
} from '../../../src/telephony/bargeIn/index.js';
import { InvalidOptionError } from '../../../src/errors.js';
import { mulawDecode } from '../../../src/dsp/mulaw.js';
import { clip, CORPUS_RATE, loadCorpus, speechBurst } from '../../fixtures/vad/corpus.js';

const MS = CORPUS_RATE / 1000;
const FRAME = 20 * MS;
/** Silero's window at 8 kHz (32 ms). */
const SILERO_WINDOW = 256;
/** What the bot plays while the caller speaks in the speech clips (a bot line, looped). */
const BOT = clip('echo-20-120ms.ul').referenceMulaw!;
const SPEECH_300 = ['speech-en-us-male-u3-snr20.ul', 'speech-en-gb-female-u2-snr10.ul', 'speech-espeak-en-us+f4-u4-snr5.ul'];

function loop(x: Uint8Array, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += x.length) out.set(x.subarray(0, Math.min(x.length, n - i)), i);
  return out;
}

/** The clip in 20 ms frames with the bot speaking; `played` (if any) noted frame by frame first. */
function play(d: BargeInDetector, audio: Uint8Array, played?: Uint8Array, botSpeaking = true): BargeInDecision[] {
  d.reset();
  d.setBotSpeaking(botSpeaking);
  const out: BargeInDecision[] = [];
  for (let i = 0; i < audio.length; i += FRAME) {
    if (played && i < played.length) d.notePlayed(played.subarray(i, i + FRAME), i / MS);
    out.push(...d.push(audio.subarray(i, i + FRAME)));
  }
  return [...out, ...d.flush()];
}

const types = (ds: BargeInDecision[]): string[] => ds.map((d) => d.type);
const turns = (ds: BargeInDecision[]): CallerTurn[] => ds.flatMap((d) => (d.type === 'callerTurn' ? [d.turn] : []));

let detector: BargeInDetector;
beforeAll(async () => {
  detector = await createBargeInDetector({ vad: { onNotice: () => undefined } });
});
afterAll(() => detector.close());

describe('createBargeInDetector on the corpus', () => {
  it.each(SPEECH_300)('pauses then interrupts when the caller speaks 300 ms or more while the bot speaks (%s)', (file) => {
    const c = clip(file);
    const ds = play(detector, c.mulaw, loop(BOT, c.mulaw.length));
    const t = types(ds).filter((x) => x !== 'callerTurn' && x !== 'callerSpeechEnded');
    expect(t).toEqual(['callerSpeechStarted', 'pause', 'interrupt']);
    const pause = ds.find((d) => d.type === 'pause')!;
    const interrupt = ds.find((d) => d.type === 'interrupt')!;
    expect(pause.detectedAt).toBeGreaterThanOrEqual(c.onset!);
    expect(interrupt.detectedAt - pause.detectedAt).toBeGreaterThan(0);
    // The interruption is not decided before minInterruptionMs of speech could have passed.
    expect(interrupt.detectedAt - c.onset!).toBeGreaterThanOrEqual(DEFAULT_MIN_INTERRUPTION_MS * MS);
  });

  it('clears "no thanks" at the first loud block of "thanks", earlier than at its first confirmed window', async () => {
    const c = clip('speech-en-gb-female-u2-snr10.ul');
    const windowOnly = await createBargeInDetector({ spanBridgeMs: 0, vad: { onNotice: () => undefined } });
    try {
      const bot = loop(BOT, c.mulaw.length);
      const bridged = play(detector, c.mulaw, bot).find((d) => d.type === 'interrupt')!;
      const before = play(windowOnly, c.mulaw, bot).find((d) => d.type === 'interrupt')!;
      expect(bridged.detectedAt).toBeLessThan(before.detectedAt);
      expect(bridged.detectedAt % SILERO_WINDOW).not.toBe(0); // decided at a block between windows
      expect(bridged.detectedAt - c.onset!).toBeGreaterThanOrEqual(DEFAULT_MIN_INTERRUPTION_MS * MS);
    } finally {
      windowOnly.close();
    }
  });

  it('pauses on a 150 ms burst of speech, then resumes and reports a false interruption', () => {
    const c = clip('speech-en-us-male-u1-snr10.ul');
    const ds = play(detector, speechBurst(c, 150), loop(BOT, c.mulaw.length));
    expect(types(ds)).toEqual(['callerSpeechStarted', 'pause', 'resume', 'falseInterruption', 'callerSpeechEnded', 'callerTurn']);
    expect(ds.find((d) => d.type === 'pause')!.detectedAt).toBeGreaterThanOrEqual(c.onset!);
  });

  it('with counted speech (128 ms), pauses on a 150 ms "mm-hm" from the corpus, then resumes and reports a false interruption', async () => {
    const c = clip('hum-en-us-male-snr10.ul');
    expect(c.kind).toBe('hum');
    expect((c.offset! - c.onset!) / MS).toBeLessThanOrEqual(150);
    const counted = await createBargeInDetector({
      vad: { onNotice: () => undefined },
      interruptAfter: 'speech',
      minInterruptionMs: 128,
      presentAboveFloorDb: 3,
    });
    const ds = play(counted, c.mulaw, loop(BOT, c.mulaw.length));
    counted.close();
    expect(types(ds)).toEqual(['callerSpeechStarted', 'pause', 'resume', 'falseInterruption', 'callerSpeechEnded', 'callerTurn']);
    const pause = ds.find((d) => d.type === 'pause')!;
    const resume = ds.find((d) => d.type === 'resume')!;
    expect(pause.detectedAt).toBeGreaterThanOrEqual(c.onset!);
    expect(resume.detectedAt).toBeGreaterThan(pause.detectedAt);
  });

  it('with the defaults (speech span), pauses on every 150 ms "mm-hm" of the corpus and lets at most one in eight interrupt', () => {
    const hums = loadCorpus().filter((c) => c.kind === 'hum');
    expect(hums.length).toBeGreaterThanOrEqual(16);
    let interrupted = 0;
    for (const c of hums) {
      const t = types(play(detector, c.mulaw, loop(BOT, c.mulaw.length)));
      expect(t, c.file).toContain('pause');
      if (t.includes('interrupt')) interrupted++;
      else expect(t, c.file).toContain('falseInterruption');
    }
    // The first rule (time since the onset, 220 ms) interrupted on 15 of these 16.
    expect(interrupted).toBeLessThanOrEqual(hums.length / 8);
  });

  it('follows a decided turn by its level: Silero sleeps through it, and the turn starts and ends as with the model', async () => {
    const byModel = await createBargeInDetector({ turnTracking: 'model', vad: { onNotice: () => undefined } });
    const c = clip('speech-en-gb-u4-snr20.ul');
    const run = (d: BargeInDetector): [BargeInDecision[], number] => {
      const m0 = d.stats.modelWindows;
      const ds = play(d, c.mulaw, undefined, false);
      return [ds, d.stats.modelWindows - m0];
    };
    const [expected, modelWoken] = run(byModel);
    byModel.close();
    const [ds, woken] = run(detector);
    expect(types(ds)).toEqual(types(expected));
    const started = (x: BargeInDecision[]): number => x.find((d) => d.type === 'callerSpeechStarted')!.detectedAt;
    expect(started(ds)).toBe(started(expected));
    const ended = (x: BargeInDecision[]): number => (x.find((d) => d.type === 'callerSpeechEnded') as { sample: number }).sample;
    // The turn's end (first sample of its silence) within 100 ms of the model's.
    expect(Math.abs(ended(ds) - ended(expected))).toBeLessThanOrEqual(100 * MS);
    expect(woken).toBeLessThan(modelWoken / 2);
  });

  it('never interrupts on the corpus coughs (120–200 ms, voiced or not) while the bot speaks', () => {
    const coughs = loadCorpus().filter((c) => c.kind === 'cough');
    expect(coughs.length).toBeGreaterThanOrEqual(12);
    for (const c of coughs) {
      const t = types(play(detector, c.mulaw, loop(BOT, c.mulaw.length)));
      expect(t, c.file).not.toContain('interrupt');
      // A pause, if any, is always followed by a resume: nothing is left held back.
      expect(t.filter((x) => x === 'pause').length, c.file).toBe(t.filter((x) => x === 'resume').length);
    }
  });

  it('interrupts on the 150 ms burst when minInterruptionMs counts time since the onset instead of speech heard', async () => {
    const d = await createBargeInDetector({
      interruptAfter: 'elapsed',
      presentAboveFloorDb: -Infinity,
      vad: { onNotice: () => undefined },
    });
    const c = clip('hum-en-us-male-snr10.ul');
    const t = types(play(d, c.mulaw, loop(BOT, c.mulaw.length)));
    d.close();
    expect(t).toContain('interrupt');
  });

  it('runs Silero on fewer windows once a turn is decided, with the same decisions on a long utterance', async () => {
    const always = await createBargeInDetector({ modelWake: false, vad: { onNotice: () => undefined } });
    const modelWake = await createBargeInDetector({ turnTracking: 'model', vad: { onNotice: () => undefined } });
    const c = clip('speech-en-gb-u4-snr10.ul');
    // The stats count from creation: the difference is this clip's.
    const modelWindows = (d: BargeInDetector, run: () => BargeInDecision[]): [BargeInDecision[], number, number] => {
      const [w0, m0] = [d.stats.windows, d.stats.modelWindows];
      const ds = run();
      return [ds, d.stats.windows - w0, d.stats.modelWindows - m0];
    };
    const [expected, , plain] = modelWindows(always, () => play(always, c.mulaw, undefined, false));
    always.close();
    const [ds, windows, woken] = modelWindows(modelWake, () => play(modelWake, c.mulaw, undefined, false));
    modelWake.close();
    expect(types(ds)).toEqual(types(expected));
    expect(windows).toBe(Math.floor(c.mulaw.length / 256));
    expect(woken).toBeLessThan(plain);
  });

  it('skips Silero on steady line noise out of a turn (idleModelHold) with the same decisions as running it there', async () => {
    const noise = clip('pink-25.ul').mulaw;
    const caller = loadCorpus().filter((c) => c.kind === 'speech' && c.snrDb === 10 && !c.heldOut);
    // A call's line: pink noise, then an utterance, again for a few callers.
    const parts = caller.slice(0, 4).flatMap((c) => [noise, c.mulaw]);
    const audio = new Uint8Array(parts.reduce((n, x) => n + x.length, 0));
    parts.reduce((at, x) => (audio.set(x, at), at + x.length), 0);
    const everyWindow = await createBargeInDetector({ idleModelHold: 0, vad: { onNotice: () => undefined } });
    const run = (d: BargeInDetector): [string[], number] => {
      const m0 = d.stats.modelWindows;
      const ds = play(d, audio, loop(BOT, audio.length)).map((x) => `${x.type}@${x.detectedAt}`);
      return [ds, d.stats.modelWindows - m0];
    };
    const [expected, all] = run(everyWindow);
    everyWindow.close();
    const [ds, fewer] = run(detector);
    expect(expected.filter((x) => x.startsWith('interrupt@')).length).toBe(4);
    // The same turns, pauses and interrupts. Silero's score at an onset differs a little after held
    // windows, so a turn may be confirmed a window sooner (its pause with it) and an interrupt come a
    // few windows sooner or later; turn ends (decided by level) are the same samples.
    const times = (xs: string[], type: string): number[] => xs.filter((x) => x.startsWith(`${type}@`)).map((x) => Number(x.split('@')[1]));
    const near = (type: string, windows: number): void => {
      const a = times(ds, type);
      const b = times(expected, type);
      expect(a.length, type).toBe(b.length);
      a.forEach((t, i) => expect(Math.abs(t - b[i]!), `${type} ${i}`).toBeLessThanOrEqual(windows * SILERO_WINDOW));
    };
    near('callerSpeechStarted', 1);
    near('pause', 1);
    near('interrupt', 5);
    expect(times(ds, 'callerSpeechEnded')).toEqual(times(expected, 'callerSpeechEnded'));
    expect(ds.filter((x) => x.startsWith('resume@') || x.startsWith('falseInterruption@'))).toEqual([]);
    expect(fewer).toBeLessThan(all * 0.75);
  });

  it('never interrupts or pauses on the bot echo alone, given what the bot played', () => {
    const echoes = loadCorpus().filter((c) => c.kind === 'echo');
    expect(echoes.length).toBeGreaterThan(0);
    for (const c of echoes) {
      expect(types(play(detector, c.mulaw, c.referenceMulaw)), c.file).toEqual([]);
    }
  });

  it('fires on the echo clips when the gate is off (so the gate is what keeps them quiet)', async () => {
    const ungated = await createBargeInDetector({ echoGate: false, vad: { onNotice: () => undefined } });
    const fired = loadCorpus()
      .filter((c) => c.kind === 'echo')
      .filter((c) => types(play(ungated, c.mulaw, c.referenceMulaw)).includes('interrupt'));
    ungated.close();
    expect(fired.length).toBeGreaterThan(0);
  });

  it('never interrupts on music on hold, noise, DTMF tones or clicks while the bot speaks', () => {
    const others = loadCorpus().filter((c) => ['silence', 'white', 'pink', 'moh', 'dtmf', 'clicks'].includes(c.kind));
    for (const c of others) expect(types(play(detector, c.mulaw)), c.file).not.toContain('interrupt');
  });

  it('interrupts when the caller speaks over the bot echo (double talk), held-out voices included', () => {
    const dt = loadCorpus().filter((c) => c.kind === 'doubletalk');
    expect(dt.some((c) => c.heldOut)).toBe(true);
    for (const c of dt) {
      const ds = play(detector, c.mulaw, c.referenceMulaw);
      const interrupt = ds.find((d) => d.type === 'interrupt');
      expect(interrupt, c.file).toBeDefined();
      expect(interrupt!.detectedAt, c.file).toBeGreaterThanOrEqual(c.onset!);
    }
  });

  it('with interruptible: false never pauses or interrupts, and still reports the turn', async () => {
    const d = await createBargeInDetector({ interruptible: false, vad: { onNotice: () => undefined } });
    const c = clip(SPEECH_300[0]!);
    const ds = play(d, c.mulaw, loop(BOT, c.mulaw.length));
    d.close();
    expect(types(ds)).toEqual(['callerSpeechStarted', 'callerSpeechEnded', 'callerTurn']);
  });

  it('reports turns, without pausing, while the bot is silent', () => {
    const c = clip(SPEECH_300[1]!);
    expect(types(play(detector, c.mulaw, undefined, false))).toEqual(['callerSpeechStarted', 'callerSpeechEnded', 'callerTurn']);
  });

  it("gives each turn's audio from onset − pre-roll to the speech's end, sample for sample", () => {
    const c = clip('speech-en-gb-u3-snr20.ul');
    const ds = play(detector, c.mulaw, undefined, false);
    const [turn] = turns(ds);
    const started = ds.find((d) => d.type === 'callerSpeechStarted');
    const ended = ds.find((d) => d.type === 'callerSpeechEnded');
    expect(turn).toBeDefined();
    expect(started?.type === 'callerSpeechStarted' && turn!.onsetSample).toBe(started?.type === 'callerSpeechStarted' && started.sample);
    expect(turn!.startSample).toBe(turn!.onsetSample - DEFAULT_PRE_ROLL_MS * MS);
    expect(ended?.type === 'callerSpeechEnded' && ended.sample).toBe(turn!.endSample);
    expect(turn!.audio.length).toBe(turn!.endSample - turn!.startSample);
    expect(turn!.audio).toEqual(mulawDecode(c.mulaw.subarray(turn!.startSample, turn!.endSample)));
    // The turn covers the labelled speech.
    expect(turn!.onsetSample).toBeLessThanOrEqual(c.onset! + 100 * MS);
    expect(turn!.endSample).toBeGreaterThanOrEqual(c.offset! - 100 * MS);
    expect(turn!.truncated).toBe(false);
  });

  it('resamples turn audio to 16 kHz to exactly twice the samples, and cuts turns at maxTurnMs', async () => {
    const d = await createBargeInDetector({ turnSampleRate: 16000, maxTurnMs: 1000, preRollMs: 100, vad: { onNotice: () => undefined } });
    const c = clip('speech-en-us-female-u4-snr20.ul');
    const [turn] = turns(play(d, c.mulaw, undefined, false));
    d.close();
    expect(turn!.sampleRate).toBe(16000);
    expect(turn!.truncated).toBe(true);
    expect(turn!.endSample - turn!.startSample).toBe(1000 * MS);
    expect(turn!.audio.length).toBe(2 * 1000 * MS);
    expect(turn!.startSample).toBe(turn!.onsetSample - 100 * MS);
  });

  it('fills a gap in the inbound times with silence (lost packets) and ignores early times', async () => {
    const d = await createBargeInDetector({ vad: { onNotice: () => undefined } });
    d.push(new Uint8Array(FRAME).fill(0xff), 0);
    d.push(new Uint8Array(FRAME).fill(0xff), 100); // 80 ms lost
    expect(d.position).toBe(100 * MS + FRAME);
    d.push(new Uint8Array(FRAME).fill(0xff), 50);
    expect(d.position).toBe(100 * MS + 2 * FRAME);
    d.close();
  });

  it('gives the same decisions for any split of the same audio into pushes', () => {
    const c = clip('doubletalk-en-gb-u3.ul');
    const ref = c.referenceMulaw!;
    const whole = (): BargeInDecision[] => {
      detector.reset();
      detector.setBotSpeaking(true);
      detector.notePlayed(ref, 0);
      return [...detector.push(c.mulaw), ...detector.flush()];
    };
    const expected = whole();
    expect(types(expected)).toContain('interrupt');
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 3000 }), { minLength: 1, maxLength: 40 }), (sizes) => {
        detector.reset();
        detector.setBotSpeaking(true);
        detector.notePlayed(ref, 0);
        const out: BargeInDecision[] = [];
        let at = 0;
        for (let k = 0; at < c.mulaw.length; k++) {
          const n = sizes[k % sizes.length]!;
          out.push(...detector.push(c.mulaw.subarray(at, at + n)));
          at += n;
        }
        out.push(...detector.flush());
        expect(out).toEqual(expected);
      }),
      { numRuns: 8 },
    );
  });

  it('rejects bad options and bad audio with typed errors naming the field', async () => {
    await expect(createBargeInDetector({ minInterruptionMs: -1 })).rejects.toThrow(InvalidOptionError);
    await expect(createBargeInDetector({ echoMaxDelayMs: 5000 })).rejects.toThrow(/echo delays/);
    await expect(createBargeInDetector({ preRollMs: 10_000 })).rejects.toThrow(/preRollMs/);
    await expect(createBargeInDetector({ turnSampleRate: 44100 as 8000 })).rejects.toThrow(/turnSampleRate/);
    await expect(createBargeInDetector({ echoCompare: 'mean' as 'peak' })).rejects.toThrow(/echoCompare/);
    await expect(createBargeInDetector({ turnTracking: 'fast' as 'level' })).rejects.toThrow(/turnTracking/);
    await expect(createBargeInDetector({ turnLevelAboveFloorDb: Number.NaN })).rejects.toThrow(/turnLevelAboveFloorDb/);
    await expect(createBargeInDetector({ idleModelHold: -1 })).rejects.toThrow(/idleModelHold/);
    await expect(createBargeInDetector({ idleModelHold: 1.5 })).rejects.toThrow(InvalidOptionError);
    await expect(createBargeInDetector({ idleHoldBelowDb: Number.NaN })).rejects.toThrow(/idleHoldBelowDb/);
    await expect(createBargeInDetector({ onsetBackdateMs: -5 })).rejects.toThrow(/onsetBackdateMs/);
    expect(() => detector.push('abc' as unknown as Uint8Array)).toThrow(InvalidOptionError);
    expect(() => detector.notePlayed(new Uint8Array(4), Number.NaN)).toThrow(/atMs/);
  });
});

describe('EchoGate', () => {
  const tone = (n: number, amp: number): Int16Array => Int16Array.from({ length: n }, (_, i) => Math.round(amp * Math.sin(i / 3)));

  it('bounds the echo by the loudest block played within the delay range, less the return loss', () => {
    const gate = new EchoGate({ echoMinDelayMs: 0, echoMaxDelayMs: 100, echoReturnLossDb: 12 });
    // A square wave: its mean square is exactly its amplitude squared.
    gate.notePlayed(
      Int16Array.from({ length: 160 }, (_, i) => (i % 2 === 0 ? 10_000 : -10_000)),
      800,
    ); // 100–120 ms
    const played = 10_000 ** 2;
    expect(gate.echoBound(800, 80)).toBeCloseTo(played * 10 ** -1.2, -3);
    expect(gate.echoBound(1600, 80)).toBeCloseTo(played * 10 ** -1.2, -3); // 100 ms later: still in range
    expect(gate.echoBound(2800, 80)).toBe(0); // 250 ms later: out of range
    expect(gate.echoBound(0, 80)).toBe(0); // before it played
  });

  it('lets a caller louder than the echo bound through and holds back an echo below it', () => {
    const gate = new EchoGate();
    gate.notePlayed(tone(1600, 8000), 0);
    expect(gate.possiblyCaller(tone(256, 8000 * 10 ** (-20 / 20)), 800)).toBe(false);
    expect(gate.possiblyCaller(tone(256, 8000 * 10 ** (-3 / 20)), 800)).toBe(true);
  });
});

describe('BargeInPolicy', () => {
  const W = 256;
  const feed = (p: BargeInPolicy, probs: number[], caller = true): BargeInDecision[] => {
    const out: BargeInDecision[] = [];
    probs.forEach((x, k) => p.window(k * W, W, x, caller, out));
    return out;
  };

  it('never leaves the candidate state on speech windows the echo gate holds back', () => {
    const p = new BargeInPolicy();
    p.setBotSpeaking(true);
    expect(feed(p, Array(40).fill(0.9), false)).toEqual([]);
  });

  it('counts speech heard, not time since the onset: a short sound and its after-glow do not interrupt', () => {
    // 4 windows of speech, then 6 where the model still says speech but the level is back at
    // the noise floor (Silero's after-glow), then silence.
    const out: BargeInDecision[] = [];
    const run = (p: BargeInPolicy): BargeInDecision[] => {
      out.length = 0;
      p.setBotSpeaking(true);
      for (let k = 0; k < 30; k++) p.window(k * W, W, k < 10 ? 0.9 : 0.05, true, out, k < 4 ? 12 : 0.5);
      return out;
    };
    const minInterruptionMs = (5 * W) / 8; // 5 windows
    expect(types(run(new BargeInPolicy({ minInterruptionMs, presentAboveFloorDb: 3 })))).toEqual([
      'callerSpeechStarted',
      'pause',
      'resume',
      'falseInterruption',
    ]);
    // Without the level condition the after-glow counts, and time since the onset counts it too.
    expect(types(run(new BargeInPolicy({ minInterruptionMs, presentAboveFloorDb: -Infinity })))).toContain('interrupt');
    const elapsed = new BargeInPolicy({ minInterruptionMs, presentAboveFloorDb: -Infinity, interruptAfter: 'elapsed' });
    expect(types(run(elapsed))).toContain('interrupt');
  });

  it("interrupts on the caller's speech span: from where the sound began to its last block still over the noise", () => {
    // The sound begins 64 ms (8 blocks) before the first speech window; then `n` windows of
    // speech at 12 dB, then Silero's after-glow over the noise floor, then silence.
    const run = (n: number, backdate = true): string[] => {
      const p = new BargeInPolicy({ minInterruptionMs: 160 });
      const out: BargeInDecision[] = [];
      p.setBotSpeaking(true);
      for (let k = 0; k < 40; k++) {
        const s0 = (k + 10) * W;
        const speech = k < n;
        const ev = {
          peakAboveFloorDb: speech ? 12 : 0.5,
          soundSince: backdate && speech ? 10 * W - 64 * MS : -1,
          presentEnd: speech ? s0 + W : -1,
        };
        p.window(s0, W, k < n + 4 ? 0.9 : 0.05, true, out, speech ? 12 : 0.5, ev);
      }
      return types(out).filter((t) => t !== 'callerSpeechEnded');
    };
    // 3 windows (96 ms) + the 64 ms before them: 160 ms of sound.
    expect(run(3)).toEqual(['callerSpeechStarted', 'pause', 'interrupt']);
    // Without the sound's start, 96 ms is short, and the after-glow does not lengthen it.
    expect(run(3, false)).toEqual(['callerSpeechStarted', 'pause', 'resume', 'falseInterruption']);
    expect(run(5, false)).toEqual(['callerSpeechStarted', 'pause', 'interrupt']);
  });

  it("does not lengthen a burst's span with the line's unbroken noise from before it that the echo gate cannot tell from the bot", () => {
    // 96 ms of a burst 50 dB over a recent floor that has not caught up with the line's noise, then
    // that noise (30 dB over it) under the echo bound, its sound unbroken for the detector's whole
    // history since before the burst, Silero's tail still at 0.9 and 0.7: a Telnyx call's 150 ms
    // burst (native-notes/vad.md, "The Telnyx burst traced").
    const run = (noise: { mayBeCaller?: boolean; unbroken?: boolean } = {}): string[] => {
      const p = new BargeInPolicy({ minInterruptionMs: 160 });
      const out: BargeInDecision[] = [];
      p.setBotSpeaking(true);
      const probs = [0.9, 0.9, 0.9, 0.9, 0.7, 0.3, 0.2, 0.1, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05];
      probs.forEach((x, k) => {
        const s0 = (k + 10) * W;
        const burst = k < 3;
        const db = burst ? 50 : 30;
        const evidence = {
          peakAboveFloorDb: db,
          soundSince: burst ? 10 * W : s0 + W - 8 * W,
          presentEnd: s0 + W,
          soundUnbroken: !burst && (noise.unbroken ?? true),
        };
        p.window(s0, W, x, burst || (noise.mayBeCaller ?? false), out, db, evidence);
      });
      return types(out).filter((t) => t !== 'callerSpeechEnded');
    };
    expect(run()).toEqual(['callerSpeechStarted', 'pause', 'resume', 'falseInterruption']);
    // Over the echo bound, or a sound that began after the burst's, the same windows are the caller's: 160 ms.
    expect(run({ mayBeCaller: true })).toEqual(['callerSpeechStarted', 'pause', 'interrupt']);
    expect(run({ unbroken: false })).toEqual(['callerSpeechStarted', 'pause', 'interrupt']);
  });

  /** Windows of the given probabilities and loudest-block levels (dB over the floor), the sound present to each window's end. */
  const windows = (p: BargeInPolicy, probs: number[], dbs: number[], caller = true): BargeInDecision[] => {
    const out: BargeInDecision[] = [];
    probs.forEach((x, k) => {
      const db = dbs[k] ?? 0;
      const s0 = (k + 10) * W;
      p.window(s0, W, x, caller, out, db, { peakAboveFloorDb: db, soundSince: db >= 3 ? s0 : -1, presentEnd: db >= 3 ? s0 + W : -1 });
    });
    return out;
  };

  it('pauses early on a loud window the model half believes, before it confirms speech, and pauses only once', () => {
    const p = new BargeInPolicy();
    p.setBotSpeaking(true);
    const out = windows(p, [0.05, 0.3, 0.9, 0.9], [0, 12, 14, 14]);
    expect(types(out).slice(0, 2)).toEqual(['pause', 'callerSpeechStarted']);
    expect(out[0]!.detectedAt).toBe(12 * W); // the end of the early window, one window before the confirmation
    expect(types(out).filter((t) => t === 'pause')).toHaveLength(1);
    // Off: the pause waits for the confirmation.
    const off = new BargeInPolicy({ earlyPauseMs: 0 });
    off.setBotSpeaking(true);
    const late = windows(off, [0.05, 0.3, 0.9, 0.9], [0, 12, 14, 14]);
    expect(types(late).slice(0, 2)).toEqual(['callerSpeechStarted', 'pause']);
    expect(late[1]!.detectedAt).toBe(13 * W);
  });

  it('resumes an early pause that nothing confirms within earlyPauseMs, once for a steady sound', () => {
    const p = new BargeInPolicy({ earlyPauseMs: 96 });
    p.setBotSpeaking(true);
    // A steady sound the model scores 0.3 (music, a tone) for 20 windows.
    const out = windows(p, Array(20).fill(0.3), Array(20).fill(15));
    expect(types(out)).toEqual(['pause', 'resume', 'falseInterruption']);
    const held = out[1]!.detectedAt - out[0]!.detectedAt;
    expect(held).toBe(96 * MS);
    expect(p.isPaused).toBe(false);
  });

  it('makes no early pause on a window the echo gate holds back, on a quiet window, or when the bot is silent', () => {
    const p = new BargeInPolicy();
    p.setBotSpeaking(true);
    expect(windows(p, [0.3, 0.3], [15, 15], false)).toEqual([]);
    expect(windows(p, [0.3, 0.3], [6, 6])).toEqual([]);
    const silent = new BargeInPolicy();
    expect(windows(silent, [0.3, 0.3], [15, 15])).toEqual([]);
    const deaf = new BargeInPolicy({ interruptible: false });
    deaf.setBotSpeaking(true);
    expect(windows(deaf, [0.3, 0.3], [15, 15])).toEqual([]);
  });

  it('interrupts at the 8 ms block where the span reaches minInterruptionMs, not at the next window end', () => {
    const run = (spanByBlock: boolean, present = true): BargeInDecision[] => {
      const p = new BargeInPolicy({ minInterruptionMs: 144, earlyPauseMs: 0, spanByBlock });
      p.setBotSpeaking(true);
      const out = windows(p, [0.9, 0.9, 0.9, 0.9], [12, 12, 12, 12]); // 128 ms of sound
      expect(p.wantsBlocks).toBe(spanByBlock);
      const B = W / 4;
      for (let b = 0; b < 4 && p.isPaused; b++) p.block(14 * W + b * B, 14 * W + (b + 1) * B, present, out);
      if (p.isPaused) p.window(14 * W, W, 0.9, true, out, 12, { peakAboveFloorDb: 12, soundSince: -1, presentEnd: 15 * W });
      return out;
    };
    const byBlock = run(true).find((d) => d.type === 'interrupt')!;
    expect(byBlock.detectedAt).toBe(14 * W + 2 * (W / 4)); // 128 + 16 ms
    expect(run(false).find((d) => d.type === 'interrupt')!.detectedAt).toBe(15 * W);
    // Blocks that are not over the noise do not extend it: the window decides.
    expect(run(true, false).find((d) => d.type === 'interrupt')!.detectedAt).toBe(15 * W);
  });

  describe('the span bridge (spanBridgeMs): the next word extends the span at its first loud block', () => {
    const B = W / 4;
    /** 128 ms of a word (`db` over the floor), then a window whose sound has ended (Silero's after-glow at 0.8), from window 10 on. */
    const firstWord = (
      options: ConstructorParameters<typeof BargeInPolicy>[0] = {},
      db = 14,
    ): { p: BargeInPolicy; out: BargeInDecision[] } => {
      const p = new BargeInPolicy({ earlyPauseMs: 0, ...options });
      p.setBotSpeaking(true);
      const out = windows(p, [0.9, 0.9, 0.9, 0.9], [db, db, db, db]);
      p.window(14 * W, W, 0.8, true, out, 1, { peakAboveFloorDb: 1, soundSince: -1, presentEnd: -1 });
      return { p, out };
    };
    /** Window 15: a quiet block, then the next word from its second block (`db` over the floor), then the window itself. */
    const nextWord = (p: BargeInPolicy, out: BargeInDecision[], db: number, at = 15): void => {
      for (let b = 0; b < 3 && p.isPaused; b++) p.block(at * W + b * B, at * W + (b + 1) * B, b > 0, out, b > 0 ? db : 1);
      if (p.isPaused) p.window(at * W, W, 0.9, true, out, db, { peakAboveFloorDb: db, soundSince: at * W + B, presentEnd: (at + 1) * W });
    };
    const interruptAt = (out: BargeInDecision[]): number | undefined => out.find((d) => d.type === 'interrupt')?.detectedAt;

    it('interrupts at the first loud block of the next word after a short gap, not at its first confirmed window', () => {
      const bridged = firstWord();
      expect(bridged.p.wantsBlocks).toBe(true);
      nextWord(bridged.p, bridged.out, 12);
      // The span runs from the first word's start across the 32 ms gap: 128 + 32 + 16 ms ≥ 160 at the block.
      expect(interruptAt(bridged.out)).toBe(15 * W + 2 * B);
      const windowOnly = firstWord({ spanBridgeMs: 0 });
      expect(windowOnly.p.wantsBlocks).toBe(false);
      nextWord(windowOnly.p, windowOnly.out, 12);
      expect(interruptAt(windowOnly.out)).toBe(16 * W);
    });

    it('does not bridge to a block more than 12 dB under the talker, or after a gap longer than spanBridgeMs', () => {
      const faint = firstWord({}, 26);
      // Over the noise (present), but 14 dB under the talker's loudest block: another sound, not the next word.
      for (let b = 0; b < 3; b++) faint.p.block(15 * W + b * B, 15 * W + (b + 1) * B, b > 0, faint.out, b > 0 ? 12 : 1);
      expect(interruptAt(faint.out)).toBeUndefined();
      const level = firstWord({}, 26);
      for (let b = 0; b < 3; b++) level.p.block(15 * W + b * B, 15 * W + (b + 1) * B, b > 0, level.out, b > 0 ? 15 : 1);
      expect(interruptAt(level.out)).toBe(15 * W + 2 * B);
      const late = firstWord({ spanBridgeMs: 64 });
      late.p.window(15 * W, W, 0.8, true, late.out, 1, { peakAboveFloorDb: 1, soundSince: -1, presentEnd: -1 });
      nextWord(late.p, late.out, 12, 16); // the word starts 72 ms after the span's end
      expect(interruptAt(late.out)).toBe(17 * W); // its window decides, as without the bridge
    });

    it('does not bridge without a quiet block after the span (a sound that never pauses, as music on hold)', () => {
      const p = new BargeInPolicy({ earlyPauseMs: 0 });
      p.setBotSpeaking(true);
      const out = windows(p, [0.9, 0.9, 0.9, 0.9], [14, 14, 14, 14]);
      // A window the model scores under interruptThreshold, the sound going on to its end: the span stops at its start.
      p.window(14 * W, W, 0.5, true, out, 14, { peakAboveFloorDb: 14, soundSince: 10 * W, presentEnd: 15 * W });
      for (let b = 0; b < 3; b++) p.block(15 * W + b * B, 15 * W + (b + 1) * B, true, out, 14);
      expect(interruptAt(out)).toBeUndefined();
    });

    it('rejects a negative bridge', () => {
      expect(() => new BargeInPolicy({ spanBridgeMs: -1 })).toThrow(InvalidOptionError);
    });
  });

  it('rejects a bad early pause threshold or level', () => {
    expect(() => new BargeInPolicy({ earlyPauseThreshold: 2 })).toThrow(InvalidOptionError);
    expect(() => new BargeInPolicy({ earlyPauseAboveFloorDb: Number.NaN })).toThrow(InvalidOptionError);
    expect(() => new BargeInPolicy({ earlyPauseMs: -1 })).toThrow(InvalidOptionError);
  });

  it('rejects an unknown interruptAfter rule', () => {
    expect(() => new BargeInPolicy({ interruptAfter: 'soon' as 'speech' })).toThrow(/interruptAfter/);
  });

  it('drops the pause without a resume when the bot stops speaking', () => {
    const p = new BargeInPolicy();
    p.setBotSpeaking(true);
    expect(types(feed(p, [0.9]))).toEqual(['callerSpeechStarted', 'pause']);
    p.setBotSpeaking(false);
    expect(p.isPaused).toBe(false);
  });

  it('rejects an end-of-turn silence shorter than the false-interruption silence', () => {
    expect(() => new BargeInPolicy({ endOfTurnSilenceMs: 100, falseInterruptionSilenceMs: 200 })).toThrow(InvalidOptionError);
  });
});
