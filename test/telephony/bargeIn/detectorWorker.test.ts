/**
 * Barge-in detectors on detector threads (`detectorThread: 'worker'`, the default) against the
 * same detector in the call's own thread (`'inline'`): real corpus clips (test/fixtures/vad), the
 * Twilio-like peer on loopback playing the bot on the injected clock, real Silero in the thread.
 * The harness lets the clock move only once the detector thread has answered (CallCore
 * `bargeInSettled`), so both modes see the same frames at the same clock times.
 */
import { once } from 'node:events';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  configureDetectorThreads,
  DEFAULT_DETECTOR_THREAD_IDLE_MS,
  detectorThreads,
} from '../../../src/telephony/bargeIn/DetectorThreads.js';
import { MULAW_8K } from '../../../src/telephony/lineFormat.js';
import { VoiceBargeIn, type BargeInActions, type BargeInOptions, type DetectorThread } from '../../../src/telephony/VoiceBargeIn.js';
import type { TwilioCall } from '../../../src/telephony/TwilioCall.js';
import type { UtteranceResult } from '../../../src/telephony/Utterance.js';
import { InvalidOptionError, type VoicewireError } from '../../../src/errors.js';
import { clip, speechBurst } from '../../fixtures/vad/corpus.js';
import { fixtureSource, greeting } from '../helpers/fixtureSource.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import type { Microphone, TwilioPeer } from '../helpers/TwilioPeer.js';
import { BURST_FROM, BURST_MS, CALLER_AT_MS, UTTERANCE } from '../helpers/bargeInScenario.js';

const RATE = 8000;
const FRAME = 160; // 20 ms of μ-law
/** The detector loads in real time (wasm / native model, here in its thread); bounded wait. */
const LOAD_WAIT_MS = 20_000;

let harness: Harness | null = null;
beforeEach(() => configureDetectorThreads({ threads: 1, idleMs: 0 }));
afterEach(async () => {
  await harness?.close();
  harness = null;
  configureDetectorThreads({ idleMs: DEFAULT_DETECTOR_THREAD_IDLE_MS });
});

/** Every decision the call acted on, keyed to the line timeline, with the media sent by then. */
interface Seen {
  decisions: string[];
  warnings: VoicewireError[];
}

function watch(call: TwilioCall): Seen {
  const seen: Seen = { decisions: [], warnings: [] };
  const note = (type: string, e: { sample: number; detectedAt: number }): void =>
    void seen.decisions.push(`${type}@${e.sample}/${e.detectedAt} media=${call.stats.mediaBytes}`);
  call.on('callerSpeechStarted', (e) => note('callerSpeechStarted', e));
  call.on('callerSpeechEnded', (e) => note(`callerSpeechEnded(${e.turn?.startSample}-${e.turn?.endSample}:${checksum(e.turn?.audio)})`, e));
  call.on('bargeInPause', (e) => note('bargeInPause', e));
  call.on('bargeIn', (r, e) => note(`bargeIn(${r.heardText})`, e));
  call.on('falseInterruption', (e) => note('falseInterruption', e));
  call.on('warning', (w) => seen.warnings.push(w));
  return seen;
}

function checksum(x: Int16Array | undefined): number {
  let h = 0;
  for (const v of x ?? []) h = (h * 31 + v) | 0;
  return h;
}

async function dial(bargeIn: BargeInOptions): Promise<{ peer: TwilioPeer; call: TwilioCall; seen: Seen }> {
  harness ??= await startHarness({ source: fixtureSource() });
  const { peer, call } = await harness.dial(undefined, { bargeIn });
  const seen = watch(call);
  await harness.runUntil(() => call.bargeInBackend !== null, LOAD_WAIT_MS);
  if (call.bargeInBackend === null) {
    // Loading is real work, not clock time: wait on real I/O, bounded.
    const deadline = Date.now() + LOAD_WAIT_MS;
    while (call.bargeInBackend === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  }
  expect(call.bargeInBackend).not.toBeNull();
  return { peer, call, seen };
}

/** One call: the bot speaks the greeting while the caller's microphone plays `mic`. */
async function callWith(mode: DetectorThread, mic: Omit<Microphone, 'until'>, options: BargeInOptions = {}) {
  const { peer, call, seen } = await dial({ ...options, detectorThread: mode });
  expect(detectorThreads.load).toEqual(mode === 'worker' ? [1] : []); // where the detector really runs
  const h = harness!;
  const t0 = h.clock.now();
  peer.startMicrophone({ ...mic, until: t0 + (greeting.mulaw.length / RATE) * 1000 + 3000 });
  let result: UtteranceResult | null = null;
  void call.speak(greeting.text).then((r) => (result = r));
  await h.runUntil(() => result !== null, 20_000);
  await h.runFor(2000);
  call.close();
  await call.bargeInSettled(); // worker: the call's close waits for the thread's last answer (an open turn)
  await harness!.close();
  harness = null;
  return { seen, result: result!, clears: peer.clears.length, audio: peer.audio() };
}

describe('barge-in detectors on a detector thread', () => {
  const cases: [string, Omit<Microphone, 'until'>, BargeInOptions][] = [
    ['a 710 ms utterance over the bot', { clips: [{ at: CALLER_AT_MS, mulaw: clip(UTTERANCE).mulaw }] }, {}],
    ['a 150 ms cough', { clips: [{ at: CALLER_AT_MS, mulaw: speechBurst(clip(BURST_FROM), BURST_MS) }] }, {}],
    ['the bot’s echo at −15 dB with the echo gate off', { echo: { db: 15, delayMs: 50 } }, { echoGate: false }],
    ['music on hold', { clips: [{ at: CALLER_AT_MS, mulaw: clip('moh1.ul').mulaw }] }, {}],
    [
      'an utterance at 10 dB SNR, turns at 16 kHz',
      { clips: [{ at: CALLER_AT_MS, mulaw: clip('speech-en-gb-female-u2-snr10.ul').mulaw }] },
      { turnSampleRate: 16000 },
    ],
  ];
  for (const [name, mic, options] of cases) {
    it(`decides exactly as in-thread on ${name}: same decisions at the same samples, same media, same clears`, async () => {
      const inline = await callWith('inline', mic, options);
      const worker = await callWith('worker', mic, options);
      expect(inline.seen.decisions.length).toBeGreaterThan(0);
      expect(worker.seen.decisions).toEqual(inline.seen.decisions);
      expect(worker.result.status).toBe(inline.result.status);
      expect(worker.result.heardText).toBe(inline.result.heardText);
      expect(worker.clears).toBe(inline.clears);
      expect(worker.audio.equals(inline.audio)).toBe(true);
      expect(worker.seen.warnings).toEqual([]);
    });
  }

  it('a detector thread that dies turns barge-in off with one BARGE_IN_UNAVAILABLE warning; the call goes on (DTMF, interrupt)', async () => {
    const { peer, call, seen } = await dial({});
    const h = harness!;
    expect(detectorThreads.size).toBe(1);
    const worker = detectorThreads.workers[0]!;
    const exited = once(worker, 'exit');
    await worker.terminate(); // from outside: the call did not end it
    await exited;
    await h.settle();
    expect(seen.warnings.map((w) => w.code)).toEqual(['BARGE_IN_UNAVAILABLE']);
    expect(seen.warnings[0]!.message).toContain('detector thread stopped');
    expect(call.bargeInBackend).toBeNull();
    expect(detectorThreads.size).toBe(0);
    // The call goes on: it speaks, and a key press still interrupts it.
    let result: UtteranceResult | null = null;
    void call.speak(greeting.text).then((r) => (result = r));
    call.on('dtmf', () => call.interrupt());
    peer.startMicrophone({ clips: [{ at: h.clock.now() + 300, mulaw: clip(UTTERANCE).mulaw }], until: h.clock.now() + 2000 });
    await h.runFor(600);
    peer.sendDtmf('1');
    await h.runUntil(() => result !== null);
    expect(result!.status).toBe('interrupted');
    expect(peer.clears).toHaveLength(1);
    expect(seen.decisions).toEqual([]); // voice barge-in is off: the caller's speech decided nothing
    expect(seen.warnings).toHaveLength(1);
  });

  it('releases its thread when the calls end, so the process can exit', async () => {
    const a = await dial({});
    const b = await dial({});
    expect(detectorThreads.size).toBe(1);
    expect(detectorThreads.load).toEqual([2]);
    const worker = detectorThreads.workers[0]!;
    const exited = once(worker, 'exit');
    a.call.close();
    await a.call.bargeInSettled();
    expect(detectorThreads.load).toEqual([1]);
    b.call.close();
    await b.call.bargeInSettled();
    await exited;
    expect(detectorThreads.size).toBe(0);
  });

  it('spreads calls over up to `threads` threads and keeps each call on its own', async () => {
    configureDetectorThreads({ threads: 2 });
    const a = await dial({});
    const b = await dial({});
    const c = await dial({});
    expect(detectorThreads.load.sort()).toEqual([1, 2]);
    for (const x of [a, b, c]) x.call.close();
    for (const x of [a, b, c]) await x.call.bargeInSettled();
    expect(detectorThreads.size).toBe(0);
  });
});

/**
 * VoiceBargeIn on its own (no call): records each decision with its line samples. As a call does,
 * an interrupt ends the bot's utterance.
 */
function recorder(): BargeInActions & { seen: string[]; voice: VoiceBargeIn | null } {
  const seen: string[] = [];
  const r: BargeInActions & { seen: string[]; voice: VoiceBargeIn | null } = {
    seen,
    voice: null,
    pause: (d) => seen.push(`pause@${d.sample}/${d.detectedAt}`),
    resume: (d) => seen.push(`falseInterruption@${d.sample}/${d.detectedAt}`),
    interrupt: (d) => {
      seen.push(`interrupt@${d.sample}/${d.detectedAt}`);
      r.voice?.setBotSpeaking(false);
    },
    turnStarted: (e) => seen.push(`callerSpeechStarted@${e.sample}/${e.detectedAt}`),
    turnEnded: (e) => seen.push(`callerSpeechEnded@${e.sample}/${e.detectedAt}:${e.turn?.audio.length ?? 0}:${checksum(e.turn?.audio)}`),
    warning: (w) => seen.push(`warning:${w.code}`),
  };
  return r;
}

async function readyVoice(mode: DetectorThread, actions: ReturnType<typeof recorder>): Promise<VoiceBargeIn> {
  let ready = false;
  const voice = new VoiceBargeIn({ detectorThread: mode }, MULAW_8K, actions, () => (ready = true));
  actions.voice = voice;
  voice.setBotSpeaking(true);
  voice.setLine(MULAW_8K, 0);
  const deadline = Date.now() + LOAD_WAIT_MS;
  while (!ready && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  expect(ready).toBe(true);
  return voice;
}

describe('configureDetectorThreads', () => {
  it('refuses a thread count or idle time it cannot use with an InvalidOptionError naming the option', () => {
    for (const [options, field] of [
      [{ threads: 0 }, 'threads'],
      [{ threads: 1.5 }, 'threads'],
      [{ threads: Number.NaN }, 'threads'],
      [{ idleMs: -1 }, 'idleMs'],
      [{ idleMs: Number.POSITIVE_INFINITY }, 'idleMs'],
    ] as const) {
      let caught: unknown;
      try {
        configureDetectorThreads(options);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(InvalidOptionError);
      expect((caught as InvalidOptionError).field).toBe(field);
    }
  });
});

describe('bad barge-in options on a detector thread', () => {
  it('are a typed warning naming the field, as in-thread, and no detector runs', async () => {
    for (const [options, field] of [
      [{ startThreshold: 2 }, 'startThreshold'],
      [{ detectorThread: 'gpu' as DetectorThread }, 'bargeIn.detectorThread'],
    ] as const) {
      const actions = recorder();
      const warned: VoicewireError[] = [];
      const voice = new VoiceBargeIn(options, MULAW_8K, { ...actions, warning: (w) => warned.push(w) }, () => undefined);
      voice.setLine(MULAW_8K, 0);
      const deadline = Date.now() + LOAD_WAIT_MS;
      while (warned.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      expect(warned.map((w) => [w.code, w.field])).toEqual([['INVALID_OPTION', field]]);
      voice.inbound(clip(UTTERANCE).mulaw, 1000); // ignored: barge-in is off on this call
      await voice.settled();
      expect(voice.backend).toBeNull();
      expect(actions.seen).toEqual([]);
    }
    expect(detectorThreads.size).toBe(0);
  });
});

/** Frames posted between two waits for the thread's answers: 10 × 20 ms, well inside MAX_IN_FLIGHT_MS. */
const ROUND_FRAMES = 10;
const SPEAKERS = [UTTERANCE, 'speech-en-gb-female-u2-snr10.ul', 'moh1.ul', 'speech-espeak-en-us+f4-u4-snr5.ul', 'pink-25.ul'];

describe('calls sharing one detector thread', () => {
  // The thread batches Silero across calls: the frames posted in one turn reach it as one message,
  // and the windows they complete run together (rows of one run), so this property checks batched
  // scoring against each clip scored one window at a time in-thread.
  it('interleaved calls never see each other’s decisions (property: any clips, any interleaving of 20 ms frames)', async () => {
    configureDetectorThreads({ threads: 1 });
    // Each clip's decisions alone, in-thread: the reference.
    const alone = new Map<string, string[]>();
    for (const file of SPEAKERS) {
      const actions = recorder();
      const voice = await readyVoice('inline', actions);
      const audio = clip(file).mulaw;
      for (let i = 0; i < audio.length; i += FRAME) voice.inbound(audio.subarray(i, i + FRAME), ((i + FRAME) / RATE) * 1000);
      voice.close();
      alone.set(file, actions.seen);
    }
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...SPEAKERS), { minLength: 2, maxLength: 4 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 400 }),
        async (files, order) => {
          const calls = await Promise.all(
            files.map(async (file) => {
              const actions = recorder();
              return { file, actions, voice: await readyVoice('worker', actions), audio: clip(file).mulaw, at: 0 };
            }),
          );
          expect(detectorThreads.size).toBe(1);
          // Frames of every call, in the order the property picks (then the rest, round robin).
          let live = calls.filter((c) => c.at < c.audio.length);
          for (let k = 0; live.length > 0; k++) {
            const c = live[(order[k % order.length] ?? 0) % live.length]!;
            c.voice.inbound(c.audio.subarray(c.at, c.at + FRAME), ((c.at + FRAME) / RATE) * 1000);
            c.at += FRAME;
            live = live.filter((x) => x.at < x.audio.length);
            // At the line's pace: the thread answers a round of frames before the next (no call falls behind).
            if (k % ROUND_FRAMES === ROUND_FRAMES - 1) for (const x of calls) await x.voice.settled();
          }
          for (const c of calls) c.voice.close();
          for (const c of calls) await c.voice.settled();
          for (const c of calls) expect(c.actions.seen).toEqual(alone.get(c.file));
          expect(detectorThreads.size).toBe(0);
        },
      ),
      { numRuns: 6 },
    );
    expect(alone.get(UTTERANCE)!.length).toBeGreaterThan(0);
  });
});
