/**
 * A call's audio to its detector thread through shared memory (src/telephony/bargeIn/frameRing.ts,
 * the default transport) against the message per frame it replaced (`transport: 'messages'`): a
 * real detector thread, real corpus clips, μ-law and L16 lines. Decisions are keyed to line
 * samples, so both transports must give the same ones for the same audio; the test waits for the
 * thread's answers after every frame (`settled()`), so the call's reactions (an interrupt ends the
 * bot's turn) land at the same place in both.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  configureDetectorThreads,
  DEFAULT_DETECTOR_THREAD_IDLE_MS,
  DEFAULT_DETECTOR_TICK_MS,
  DEFAULT_DETECTOR_DOORBELL,
  DEFAULT_DETECTOR_TRANSPORT,
  DetectorThreads,
  detectorThreads,
  type DetectorDoorbell,
  type DetectorTransport,
} from '../../../src/telephony/bargeIn/DetectorThreads.js';
import type { FromDetector } from '../../../src/telephony/bargeIn/detectorMessages.js';
import { FrameRing } from '../../../src/telephony/bargeIn/frameRing.js';
import { VoiceBargeIn, type BargeInActions } from '../../../src/telephony/VoiceBargeIn.js';
import { MULAW_8K, type LineFormat } from '../../../src/telephony/lineFormat.js';
import { mulawDecode } from '../../../src/dsp/mulaw.js';
import { InvalidOptionError } from '../../../src/errors.js';
import { clip, speechBurst } from '../../fixtures/vad/corpus.js';
import { BURST_FROM, BURST_MS, LOAD_POLL_MS, LOAD_POLLS, UTTERANCE } from '../helpers/bargeInScenario.js';

const FRAME_MS = 20;
/** The bot's frames are noted this far ahead of the caller's (the pacer's lead). */
const LEAD_MS = 200;
/** What the bot plays meanwhile (an echo clip's reference: real speech). */
const BOT = clip('echo-20-120ms.ul').referenceMulaw!;
/** The bot stops after this many frames (its utterance ends), so a turn ends with the bot silent. */
const BOT_FRAMES = 150;

afterEach(() =>
  configureDetectorThreads({
    transport: DEFAULT_DETECTOR_TRANSPORT,
    idleMs: DEFAULT_DETECTOR_THREAD_IDLE_MS,
    doorbell: DEFAULT_DETECTOR_DOORBELL,
  }),
);

/** Everything the call was told, as text: decision kinds, their samples, turn audio sums. */
function recorder(onInterrupt: () => void): { seen: string[]; actions: BargeInActions } {
  const seen: string[] = [];
  const actions: BargeInActions = {
    pause: (d) => seen.push(`pause:${d.sample}:${d.detectedAt}`),
    resume: (d) => seen.push(`falseInterruption:${d.sample}:${d.detectedAt}`),
    interrupt: (d) => {
      seen.push(`interrupt:${d.sample}:${d.detectedAt}`);
      onInterrupt();
    },
    turnStarted: (e) => seen.push(`callerSpeechStarted:${e.sample}:${e.detectedAt}`),
    turnEnded: (e) => {
      let sum = 0;
      for (const x of e.turn?.audio ?? []) sum = (sum * 31 + x) | 0;
      seen.push(`callerSpeechEnded:${e.sample}:${e.detectedAt}:${e.turn?.audio.length ?? 0}:${sum}`);
    },
    warning: (e) => seen.push(`warning:${e.code}`),
  };
  return { seen, actions };
}

/** Line bytes of a μ-law clip on `line` (μ-law as it is; L16 16 kHz big-endian: each sample twice). */
function onLine(mulaw: Uint8Array, line: LineFormat): { bytes: Uint8Array; frameBytes: number } {
  if (line.encoding === 'mulaw') return { bytes: mulaw, frameBytes: 160 };
  const pcm = mulawDecode(mulaw);
  const bytes = new Uint8Array(pcm.length * 4);
  for (let i = 0; i < pcm.length; i++) {
    for (const k of [0, 1]) {
      bytes[4 * i + 2 * k] = (pcm[i]! >> 8) & 0xff;
      bytes[4 * i + 2 * k + 1] = pcm[i]! & 0xff;
    }
  }
  return { bytes, frameBytes: 640 };
}

/** One call through a detector thread on `transport`: the bot speaks for BOT_FRAMES frames while the caller's clip plays. */
async function decide(
  transport: DetectorTransport,
  caller: Uint8Array,
  line: LineFormat,
  doorbell: DetectorDoorbell = DEFAULT_DETECTOR_DOORBELL,
): Promise<string[]> {
  configureDetectorThreads({ transport, threads: 1, doorbell });
  let voice: VoiceBargeIn | null = null;
  const { seen, actions } = recorder(() => voice!.setBotSpeaking(false));
  let ready = false;
  voice = new VoiceBargeIn({ vad: { onNotice: () => undefined } }, line, actions, () => (ready = true));
  voice.setLine(line, 0);
  for (let i = 0; i < LOAD_POLLS && !ready; i++) await sleep(LOAD_POLL_MS);
  expect(ready).toBe(true);
  expect(voice.thread).toBe('worker');
  const { bytes, frameBytes } = onLine(caller, line);
  const bot = onLine(BOT, line).bytes;
  voice.setBotSpeaking(true);
  const frames = Math.floor(bytes.length / frameBytes);
  for (let f = 0; f < frames; f++) {
    const now = f * FRAME_MS;
    if (f < BOT_FRAMES) {
      const at = (f * frameBytes) % (bot.length - frameBytes);
      voice.played(bot.subarray(at, at + frameBytes), now + LEAD_MS);
    }
    if (f === BOT_FRAMES) voice.setBotSpeaking(false);
    voice.inbound(bytes.subarray(f * frameBytes, (f + 1) * frameBytes), now);
    await voice.settled();
  }
  await new Promise<void>((resolve) => voice!.close(resolve));
  return seen;
}

/** 2 s of line silence, frame by frame, for the ring tests. */
const frames = 100;
const silence = new Uint8Array(160).fill(0xff);

/** A one-thread pool with one call on a ring (WebRTC VAD), once the thread says it is ready. */
async function openRingCall(
  doorbell: DetectorDoorbell,
): Promise<{ pool: DetectorThreads; got: FromDetector[]; id: number; ring: FrameRing }> {
  const pool = new DetectorThreads();
  pool.configure({ threads: 1, idleMs: 0, tickMs: DEFAULT_DETECTOR_TICK_MS, doorbell });
  const got: FromDetector[] = [];
  const id = pool.attach({ message: (m) => got.push(m), failed: (e) => got.push({ t: 'failed', id, error: e }) });
  const ring = new FrameRing();
  pool.post(id, { t: 'open', id, options: { vad: { backend: 'webrtc' } }, ring: ring.buffer });
  for (let i = 0; i < LOAD_POLLS && got.length === 0; i++) await sleep(LOAD_POLL_MS);
  expect(got.map((m) => m.t)).toEqual(['ready']);
  return { pool, got, id, ring };
}

/** Writes `count` frames of silence to the ring, each in a turn of its own with its doorbell; waits until they are taken. */
async function ringSilence(pool: DetectorThreads, id: number, ring: FrameRing, count: number): Promise<void> {
  for (let f = 0; f < count; f++) {
    expect(ring.writeAudio(true, silence, f * FRAME_MS)).toBe(true);
    pool.ring(id);
    await new Promise((r) => setImmediate(r));
  }
  for (let i = 0; i < LOAD_POLLS && ring.inFlight > 0; i++) await sleep(LOAD_POLL_MS);
}

describe('the shared-memory hand-over to the detector thread', () => {
  const cases: { name: string; caller: () => Uint8Array; line: LineFormat; interrupts: boolean }[] = [
    { name: 'a caller utterance over the bot (μ-law)', caller: () => clip(UTTERANCE).mulaw, line: MULAW_8K, interrupts: true },
    {
      name: 'a 150 ms cough over the bot (μ-law)',
      caller: () => speechBurst(clip(BURST_FROM), BURST_MS),
      line: MULAW_8K,
      interrupts: false,
    },
    { name: 'music on hold (μ-law)', caller: () => clip('moh1.ul').mulaw, line: MULAW_8K, interrupts: false },
    {
      name: 'a caller utterance over the bot on an L16 16 kHz line',
      caller: () => clip(UTTERANCE).mulaw,
      line: { encoding: 'l16', sampleRate: 16000, byteOrder: 'be' },
      interrupts: true,
    },
  ];
  for (const c of cases) {
    it(`decides as the message transport does on ${c.name}`, async () => {
      const viaMessages = await decide('messages', c.caller(), c.line);
      const viaRing = await decide('shared', c.caller(), c.line);
      expect(viaRing).toEqual(viaMessages);
      expect(viaRing.some((s) => s.startsWith('interrupt:'))).toBe(c.interrupts);
      if (c.interrupts) expect(viaRing.at(-1)).toMatch(/^callerSpeechEnded:\d+:\d+:[1-9]/);
      expect(viaRing.filter((s) => s.startsWith('warning:'))).toEqual([]);
    });
  }

  for (const c of cases.slice(0, 2)) {
    it(`decides as with the doorbell when the thread polls its rings on ${c.name}`, async () => {
      const rung = await decide('shared', c.caller(), c.line, 'message');
      const polled = await decide('shared', c.caller(), c.line, 'poll');
      expect(polled).toEqual(rung);
      expect(polled.some((s) => s.startsWith('interrupt:'))).toBe(c.interrupts);
      expect(polled.filter((s) => s.startsWith('warning:'))).toEqual([]);
    });
  }

  it("a polling thread takes a call's frames with no message from the pacing loop, and answers when asked", async () => {
    const { pool, got, id, ring } = await openRingCall('poll');
    const postsAtOpen = pool.posts;
    await ringSilence(pool, id, ring, frames);
    expect(ring.inFlight).toBe(0); // all taken by the thread's own looks
    expect(pool.posts).toBe(postsAtOpen); // not one doorbell
    // Asking for an answer: the thread's next look answers, empty.
    ring.writeAudio(true, silence, frames * FRAME_MS);
    expect(ring.wantAnswer()).toBe(false);
    pool.ring(id);
    for (let i = 0; i < LOAD_POLLS && got.length === 1; i++) await sleep(LOAD_POLL_MS);
    expect(got.slice(1)).toEqual([{ t: 'decisions', id, decisions: [], samples: 0 }]);
    // Back to the doorbell on the running thread: a written frame rings it again.
    pool.configure({ doorbell: 'message' });
    const before = pool.posts;
    ring.writeAudio(true, silence, (frames + 1) * FRAME_MS);
    pool.ring(id);
    for (let i = 0; i < LOAD_POLLS && ring.inFlight > 0; i++) await sleep(LOAD_POLL_MS);
    expect(ring.inFlight).toBe(0);
    expect(pool.posts).toBeGreaterThan(before);
    const exit = new Promise((r) => pool.workers[0]!.once('exit', r));
    pool.release(id);
    await exit;
  });

  it('the default doorbell is the message, and a bad doorbell is an InvalidOptionError naming it', () => {
    expect(DEFAULT_DETECTOR_DOORBELL).toBe('message');
    expect(() => configureDetectorThreads({ doorbell: 'smoke' as DetectorDoorbell })).toThrow(InvalidOptionError);
    expect(() => configureDetectorThreads({ doorbell: 'smoke' as DetectorDoorbell })).toThrow(/doorbell/);
  });

  it('the default transport is the ring, and a bad transport is an InvalidOptionError naming it', () => {
    expect(DEFAULT_DETECTOR_TRANSPORT).toBe('shared');
    expect(detectorThreads.transport).toBe('shared');
    expect(() => configureDetectorThreads({ transport: 'pigeons' as DetectorTransport })).toThrow(InvalidOptionError);
    expect(() => configureDetectorThreads({ transport: 'pigeons' as DetectorTransport })).toThrow(/transport/);
  });

  it('answers a call on the ring only with decisions, or once when the call asks (no message per frame back)', async () => {
    const { pool, got, id, ring } = await openRingCall('message');
    // 2 s of line silence, frame by frame in turns of their own: nothing to decide.
    await ringSilence(pool, id, ring, frames);
    expect(ring.inFlight).toBe(0); // all taken, counted in the ring
    expect(pool.posts).toBeLessThanOrEqual(frames + 1); // the doorbells (and the open): never more than one a frame
    expect(got.map((m) => m.t)).toEqual(['ready']); // and not one answer
    // Asking for an answer with audio unread gets one answer, empty, once it is taken.
    ring.writeAudio(true, silence, frames * FRAME_MS);
    expect(ring.wantAnswer()).toBe(false);
    pool.ring(id);
    for (let i = 0; i < LOAD_POLLS && got.length === 1; i++) await sleep(LOAD_POLL_MS);
    expect(got.slice(1)).toEqual([{ t: 'decisions', id, decisions: [], samples: 0 }]);
    const exit = new Promise((r) => pool.workers[0]!.once('exit', r));
    pool.release(id);
    await exit;
  });
});
