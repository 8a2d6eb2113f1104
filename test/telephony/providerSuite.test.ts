/**
 * The same behavioural suite for every provider on the call core, each against its own test
 * peer (real WebSocket on loopback, injected clock): the audio is the engine's output in the
 * provider's line format, words fire when the peer played them, interrupt reports exactly what
 * was played, stop and an abrupt close free everything, and malformed input does not crash the
 * bridge. Voice barge-in on every provider: the peer's microphone sends committed corpus clips
 * (test/fixtures/vad) and the echo of what its speaker played, in the provider's own format and
 * 20 ms framing, on the same clock.
 */
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { TelephonyError } from '../../src/errors.js';
import type { CallCore } from '../../src/telephony/CallCore.js';
import type { TelephonyWordEvent } from '../../src/telephony/callTypes.js';
import type { BargeInOptions } from '../../src/telephony/VoiceBargeIn.js';
import { mulawDecode } from '../../src/dsp/mulaw.js';
import type { BargeInEvent } from '../../src/telephony/callTypes.js';
import { bytesPerSample, describeLineFormat, silenceByte } from '../../src/telephony/lineFormat.js';
import { createProviderAdapter } from '../../src/telephony/mediaStream.js';
import type { UtteranceResult } from '../../src/telephony/Utterance.js';
import { greeting } from './helpers/fixtureSource.js';
import { greetingSamples, lineGreetingSource } from './helpers/lineSpeech.js';
import { clip, speechBurst } from '../fixtures/vad/corpus.js';
import { startCallerMicrophone, type CallerMicrophone } from './helpers/peers/CallerMicrophone.js';
import type { PlaybackPeer } from './helpers/peers/PlaybackPeer.js';
import { FORMAT_VARIANTS, PROVIDER_CASES, chunkingOf, lineBytes, type LinePeer, type ProviderCase } from './helpers/providerCases.js';
import { TwilioPeer } from './helpers/TwilioPeer.js';
import { BURST_FROM, BURST_MS, CALLER_AT_MS, LOAD_POLL_MS, LOAD_POLLS, UTTERANCE } from './helpers/bargeInScenario.js';
import { startProviderHarness, type ProviderHarness } from './helpers/providerHarness.js';

/** Words fire within a frame of the phone playing their start. */
const WORD_TOLERANCE_MS = 20;

let harness: ProviderHarness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

/** The longest message the provider's cutting holds audio back for, in ms (0: unbatched). */
function batchMs(c: ProviderCase): number {
  const ch = chunkingOf(c.provider, c.format);
  return Math.max(ch.minBatchBytes, ch.quantumBytes) / bytesPerSample(c.format) / (c.format.sampleRate / 1000);
}

/** Whether the provider's acknowledgements only follow whole messages (the core clocks the playhead between them). */
function coarseAcknowledgements(c: ProviderCase): boolean {
  return createProviderAdapter(c.provider).coarseAcknowledgements === true;
}

function recordWords(call: CallCore<unknown>, now: () => number): { word: TelephonyWordEvent; at: number }[] {
  const heard: { word: TelephonyWordEvent; at: number }[] = [];
  call.on('word', (word) => heard.push({ word, at: now() }));
  return heard;
}

async function speakToEnd(h: ProviderHarness, call: CallCore<unknown>): Promise<UtteranceResult> {
  let result: UtteranceResult | null = null;
  void call.speak(greeting.text).then((r) => {
    result = r;
  });
  await h.runUntil(() => result !== null);
  return result!;
}

/** Every provider on its default line, then on its other line formats. */
const ALL_CASES: readonly ProviderCase[] = [...PROVIDER_CASES, ...FORMAT_VARIANTS];

describe.each(ALL_CASES.map((c) => [c.provider, describeLineFormat(c.format), c] as const))('a call on %s (%s)', (_name, _format, c) => {
  const rate = c.format.sampleRate;

  it('the start gives the line format and the custom parameters', async () => {
    harness = await startProviderHarness(c, { source: lineGreetingSource() });
    const { call } = await harness.dial({}, { greeting: 'Hello there' });
    expect(call.state.status).toBe('idle');
    expect(call.lineFormat).toEqual(c.format);
    expect(call.callStart?.customParameters).toMatchObject({ greeting: 'Hello there' });
  });

  it('the phone receives exactly the engine output in the line format, padded only to a whole message', async () => {
    const source = lineGreetingSource();
    harness = await startProviderHarness(c, { source });
    const { peer, call } = await harness.dial();
    const result = await speakToEnd(harness, call);
    expect(source.contexts[0]!.format).toEqual(c.format);
    const expected = Buffer.from(lineBytes(greetingSamples(c.format), c.format));
    const audio = peer.audio();
    expect(audio.subarray(0, expected.length).equals(expected)).toBe(true);
    const padding = audio.subarray(expected.length);
    const batchBytes = (batchMs(c) * rate * bytesPerSample(c.format)) / 1000;
    expect(padding.length).toBeLessThanOrEqual(batchBytes);
    expect(padding.every((b) => b === silenceByte(c.format))).toBe(true);
    expect(c.violations(peer)).toEqual([]);
    expect(result.status).toBe('completed');
    expect(result.heardText).toBe(greeting.words.map((w) => w.text).join(' '));
    expect(result.playedSec).toBeGreaterThanOrEqual(expected.length / bytesPerSample(c.format) / rate - 1e-9);
  });

  it(`each word fires when the phone played its start (within ${WORD_TOLERANCE_MS} ms)`, async () => {
    harness = await startProviderHarness(c, { source: lineGreetingSource() });
    const { peer, call } = await harness.dial();
    const heard = recordWords(call, () => harness!.clock.now());
    await speakToEnd(harness, call);
    expect(heard.map((h) => h.word.text)).toEqual(greeting.words.map((w) => w.text));
    for (const { word, at } of heard) {
      const playedAt = peer.timeOfSample(Math.floor(word.start * rate))!;
      expect(playedAt).not.toBeNull();
      expect(at - playedAt).toBeGreaterThanOrEqual(0);
      expect(at - playedAt).toBeLessThanOrEqual(WORD_TOLERANCE_MS);
    }
  });

  it('interrupt clears the phone, stops sending and reports exactly what was played', async () => {
    const source = lineGreetingSource();
    harness = await startProviderHarness(c, { source });
    const { peer, call } = await harness.dial();
    const heard = recordWords(call, () => harness!.clock.now());
    let result: UtteranceResult | null = null;
    void call.speak(greeting.text).then((r) => {
      result = r;
    });
    // Barge in where no word started within the last frame: a word's acknowledgement may come up
    // to a frame after its start (media cut to whole 20 ms chunks).
    const guardMs = WORD_TOLERANCE_MS;
    let bargeAt = 2500;
    while (greeting.words.some((w) => w.start * 1000 > bargeAt - guardMs && w.start * 1000 <= bargeAt + 1)) bargeAt += 20;
    await harness.runFor(bargeAt);
    const played = peer.playedSamples;
    const report = call.interrupt();
    expect(report).not.toBeNull();
    await harness.settle();
    const receivedAtClear = peer.receivedSamples;
    await harness.runFor(5_000);

    expect(peer.clears).toHaveLength(1);
    expect(peer.mediaAfterClear).toBe(0);
    expect(peer.receivedSamples).toBe(receivedAtClear);
    const playedWords = greeting.words.filter((w) => w.start < played / rate).map((w) => w.text);
    expect(playedWords.length).toBeGreaterThan(0);
    expect(report!.status).toBe('interrupted');
    expect(report!.heardText).toBe(playedWords.join(' '));
    expect(report!.cut.map((w) => w.text)).toEqual(greeting.words.slice(playedWords.length).map((w) => w.text));
    expect(heard.map((h) => h.word.text)).toEqual(playedWords);
    expect(result).toEqual(report);
    expect(source.streams[0]!.aborted).toBe(true);
    expect(call.state.status).toBe('idle');
    expect(harness.clock.pendingTimers).toBe(0);
    expect(c.violations(peer)).toEqual([]);
  });

  it.runIf(coarseAcknowledgements(c))(
    'between coarse acknowledgements, interrupt reports exactly what the phone played, a millisecond either side of a word',
    async () => {
      harness = await startProviderHarness(c, { source: lineGreetingSource() });
      const { peer, call } = await harness.dial();
      const batchSamples = (batchMs(c) * rate) / 1000;
      const moments = greeting.words.slice(1, 10).flatMap((w) => [
        { word: w.text, ms: w.start * 1000 - 1, played: false },
        { word: w.text, ms: w.start * 1000 + 1, played: true },
      ]);
      let insideBatch = 0;
      for (const m of moments) {
        await harness.settle();
        const playedBefore = peer.playedSamples;
        const heard: string[] = [];
        const onWord = (w: TelephonyWordEvent): void => void heard.push(w.text);
        call.on('word', onWord);
        void call.speak(greeting.text);
        await harness.runFor(m.ms);
        const played = peer.playedSamples - playedBefore;
        const report = call.interrupt();
        call.off('word', onWord);
        const playedWords = greeting.words.filter((w) => w.start < played / rate).map((w) => w.text);
        expect(playedWords.includes(m.word), `${m.word} played ${m.ms} ms in`).toBe(m.played);
        expect(report?.heardText, `heard text ${m.ms} ms in`).toBe(playedWords.join(' '));
        expect(report!.cut.map((w) => w.text)).toEqual(greeting.words.slice(playedWords.length).map((w) => w.text));
        expect(heard, `words fired ${m.ms} ms in`).toEqual(playedWords);
        if (played % batchSamples !== 0) insideBatch++;
      }
      expect(insideBatch).toBe(moments.length); // none of them on an acknowledgement
      await harness.settle();
      expect(peer.clears).toHaveLength(moments.length);
      expect(c.violations(peer)).toEqual([]);
      expect(harness.clock.pendingTimers).toBe(0);
    },
  );

  it('a new utterance after an interrupt plays whole and its words come on time', async () => {
    harness = await startProviderHarness(c, { source: lineGreetingSource() });
    const { peer, call } = await harness.dial();
    void call.speak('first');
    await harness.runUntil(() => harness!.clock.now() >= 1000);
    call.interrupt();
    await harness.settle();
    const before = peer.receivedSamples;
    const heard = recordWords(call, () => harness!.clock.now());
    const done = await speakToEnd(harness, call);
    expect(done.status).toBe('completed');
    const expectedSamples = greetingSamples(c.format).length;
    expect(peer.receivedSamples - before).toBeGreaterThanOrEqual(expectedSamples);
    expect(heard.map((h) => h.word.utteranceId)).toEqual(greeting.words.map(() => done.id));
    for (const { word, at } of heard) {
      const playedAt = peer.timeOfSample(before + Math.floor(word.start * rate))!;
      expect(at - playedAt).toBeGreaterThanOrEqual(0);
      expect(at - playedAt).toBeLessThanOrEqual(WORD_TOLERANCE_MS);
    }
  });

  it('caller audio comes out as s16 at the line rate, in order', async () => {
    harness = await startProviderHarness(c, { source: lineGreetingSource() });
    const { peer, call } = await harness.dial();
    const chunks: Buffer[] = [];
    call.inbound.on('data', (b: Buffer) => chunks.push(b));
    const ms = 200;
    const pcm = Int16Array.from({ length: (ms * rate) / 1000 }, (_, i) => ((i * 37) % 20000) - 10000);
    const frame = (20 * rate) / 1000;
    for (let i = 0; i < pcm.length; i += frame) c.sendCallerAudio(peer, pcm.subarray(i, i + frame));
    await harness.settle();
    const got = Buffer.concat(chunks);
    expect(got.equals(Buffer.from(c.callerAudioAfterLine(pcm).buffer))).toBe(true);
  });

  it('DTMF digits come as events', async () => {
    harness = await startProviderHarness(c, { source: lineGreetingSource() });
    const { peer, call } = await harness.dial();
    const digits: string[] = [];
    call.on('dtmf', (d) => digits.push(d.digit));
    peer.sendDtmf('4');
    peer.sendDtmf('#');
    await harness.settle();
    expect(digits).toEqual(['4', '#']);
  });

  it.runIf(c.sendStop !== null)('stop aborts synthesis and frees everything', async () => {
    const source = lineGreetingSource();
    harness = await startProviderHarness(c, { source });
    const { peer, call } = await harness.dial();
    let result: UtteranceResult | null = null;
    void call.speak(greeting.text).then((r) => {
      result = r;
    });
    await harness.runUntil(() => harness!.clock.now() >= 1000);
    const closed = once(call, 'close');
    c.sendStop!(peer);
    await harness.settle();
    await closed;
    expect(call.state).toMatchObject({ status: 'ended', reason: 'stop' });
    expect(result!.status).toBe('aborted');
    expect(source.streams[0]!.aborted).toBe(true);
    expect(source.streams[0]!.destroyed).toBe(true);
    expect(call.socket.listenerCount('message')).toBe(0);
    peer.close();
    expect(harness.clock.pendingTimers).toBe(0);
    expect((await call.speak('too late')).status).toBe('cancelled');
  });

  it('an abrupt close mid-utterance aborts synthesis and leaves no timer or listener', async () => {
    const source = lineGreetingSource();
    harness = await startProviderHarness(c, { source });
    const { peer, call } = await harness.dial();
    const queued = call.speak('queued second');
    void call.speak(greeting.text);
    await harness.runUntil(() => harness!.clock.now() >= 800);
    const closed = once(call, 'close');
    peer.ws.terminate();
    await closed;
    expect(call.state).toMatchObject({ status: 'ended', reason: 'socketClosed' });
    expect(source.streams).toHaveLength(1);
    expect(source.streams[0]!.aborted).toBe(true);
    expect((await queued).status).toBe('aborted');
    peer.close();
    expect(harness.clock.pendingTimers).toBe(0);
    expect(call.socket.listenerCount('message')).toBe(0);
    expect(call.listenerCount('word')).toBe(0);
  });

  it('malformed messages are warnings naming the fault, and the call goes on', async () => {
    harness = await startProviderHarness(c, { source: lineGreetingSource() });
    const { peer, call } = await harness.dial();
    const warnings: TelephonyError[] = [];
    call.on('warning', (w) => warnings.push(w as TelephonyError));
    peer.ws.send('{not json');
    peer.ws.send('[1,2]');
    peer.ws.send(Buffer.from([1, 2, 3]), { binary: true }); // not JSON, and not whole L16 samples
    const dtmf = once(call, 'dtmf');
    peer.sendDtmf('1');
    await harness.settle();
    await dtmf;
    expect(warnings).toHaveLength(3);
    for (const w of warnings) {
      expect(w).toBeInstanceOf(TelephonyError);
      expect(w.code).toBe('TELEPHONY_PROTOCOL');
      expect(w.field).toBeTruthy();
    }
    expect(call.state.status).toBe('idle');
    const result = await speakToEnd(harness, call);
    expect(result.status).toBe('completed');
  });
});

/** The corpus rate (μ-law 8 kHz clips). */
const CLIP_RATE = 8000;
/** The bot's own audio returned at −15 dB, 50 ms later: the loudest echo of VoiceBargeIn.test.ts. */
const ECHO = { db: 15, delayMs: 50 };
/** Clock time run after the utterance settles (the caller's turn ends, the detector goes quiet). */
const AFTER_MS = 2000;

/** What the peer's speaker played, as s16 at the line rate. */
function speakerOf(peer: LinePeer): (from: number, n: number) => Int16Array {
  if (peer instanceof TwilioPeer) return (from, n) => mulawDecode(peer.playedAudio(from, n));
  return (from, n) => (peer as unknown as PlaybackPeer).playedPcm(from, n);
}

interface BargeLog {
  log: { type: string; at: number; mediaBytes: number }[];
  bargeIns: { result: UtteranceResult; event: BargeInEvent }[];
  falseInterruptions: BargeInEvent[];
  words: string[];
}

function recordBargeIn(call: CallCore<unknown>, now: () => number): BargeLog {
  const r: BargeLog = { log: [], bargeIns: [], falseInterruptions: [], words: [] };
  const note = (type: string): void => void r.log.push({ type, at: now(), mediaBytes: call.stats.mediaBytes });
  call.on('callerSpeechStarted', () => note('callerSpeechStarted'));
  call.on('callerSpeechEnded', () => note('callerSpeechEnded'));
  call.on('bargeInPause', () => note('bargeInPause'));
  call.on('bargeIn', (result, event) => (note('bargeIn'), r.bargeIns.push({ result, event })));
  call.on('falseInterruption', (e) => (note('falseInterruption'), r.falseInterruptions.push(e)));
  call.on('word', (w) => r.words.push(w.text));
  return r;
}

describe.each(ALL_CASES.map((c) => [c.provider, describeLineFormat(c.format), c] as const))(
  'voice barge-in on %s (%s)',
  (_name, _format, c) => {
    const rate = c.format.sampleRate;
    const bps = bytesPerSample(c.format);

    /**
     * The detector runs inline: on the injected clock its decisions land in the push that caused
     * them, so the order of pause and clear is observable. Worker mode makes the same decisions on
     * the same samples (test/telephony/bargeIn/detectorWorker.test.ts).
     */
    async function bargeInCall(options: BargeInOptions = {}): Promise<{ peer: LinePeer; call: CallCore<unknown>; rec: BargeLog }> {
      const bargeIn: BargeInOptions = { detectorThread: 'inline', ...options };
      harness = await startProviderHarness(c, { source: lineGreetingSource(), bargeIn });
      const { peer, call } = await harness.dial();
      for (let i = 0; i < LOAD_POLLS && call.bargeInBackend === null; i++) await sleep(LOAD_POLL_MS);
      expect(call.bargeInBackend).not.toBeNull();
      return { peer, call, rec: recordBargeIn(call, () => harness!.clock.now()) };
    }

    /** Speaks the greeting with the caller's microphone on; runs until it settles and AFTER_MS more. */
    async function speakWithCaller(
      call: CallCore<unknown>,
      peer: LinePeer,
      mic: Omit<CallerMicrophone, 'until'>,
    ): Promise<{ result: UtteranceResult; frames: number }> {
      const h = harness!;
      const t0 = h.clock.now();
      const greetingMs = (greeting.mulaw.length / CLIP_RATE) * 1000;
      const counter = startCallerMicrophone(
        {
          clock: h.clock,
          sampleRate: rate,
          played: speakerOf(peer),
          send: (pcm) => c.sendCallerAudio(peer, pcm),
          isOpen: () => peer.ws.readyState === peer.ws.OPEN,
        },
        { ...mic, until: t0 + greetingMs + AFTER_MS + 1000 },
      );
      let result: UtteranceResult | null = null;
      void call.speak(greeting.text).then((r) => {
        result = r;
      });
      await h.runUntil(() => result !== null, 20_000);
      await h.runFor(AFTER_MS);
      expect(result).not.toBeNull();
      return { result: result!, frames: counter.frames };
    }

    /** The phone got the engine's output exactly (padded with silence only to a whole message). */
    function expectWholeGreeting(peer: LinePeer): void {
      const expected = Buffer.from(lineBytes(greetingSamples(c.format), c.format));
      const audio = peer.audio();
      expect(audio.subarray(0, expected.length).equals(expected)).toBe(true);
      const padding = audio.subarray(expected.length);
      expect(padding.length).toBeLessThanOrEqual((batchMs(c) * rate * bps) / 1000);
      expect(padding.every((b) => b === silenceByte(c.format))).toBe(true);
    }

    it('a caller utterance over the bot pauses media, then clears with exactly the words the phone played', async () => {
      const { peer, call, rec } = await bargeInCall();
      const { result } = await speakWithCaller(call, peer, { clips: [{ at: CALLER_AT_MS, mulaw: clip(UTTERANCE).mulaw }] });

      const types = rec.log.map((l) => l.type);
      expect(types.slice(0, 3)).toEqual(['callerSpeechStarted', 'bargeInPause', 'bargeIn']);
      expect(types).toContain('callerSpeechEnded');
      // Paused before the clear: nothing new went out between the pause and the clear.
      const pause = rec.log.find((l) => l.type === 'bargeInPause')!;
      const fired = rec.log.find((l) => l.type === 'bargeIn')!;
      expect(fired.mediaBytes).toBe(pause.mediaBytes);
      expect(fired.at).toBeGreaterThan(pause.at);
      expect(pause.at).toBeGreaterThanOrEqual(CALLER_AT_MS + (clip(UTTERANCE).onset! / CLIP_RATE) * 1000);
      // The provider's clear went out once, and nothing after it.
      expect(peer.clears).toHaveLength(1);
      expect(peer.mediaAfterClear).toBe(0);
      expect(peer.receivedSamples * bps).toBe(pause.mediaBytes);
      // Heard text: exactly the words whose start the peer played before the clear.
      const played = peer.clears[0]!.playedSamples;
      const playedWords = greeting.words.filter((w) => w.start < played / rate).map((w) => w.text);
      expect(playedWords.length).toBeGreaterThan(0);
      expect(playedWords.length).toBeLessThan(greeting.words.length);
      expect(result.status).toBe('interrupted');
      expect(result.heardText).toBe(playedWords.join(' '));
      expect(result.cut.map((w) => w.text)).toEqual(greeting.words.slice(playedWords.length).map((w) => w.text));
      expect(rec.words).toEqual(playedWords); // cut words are never reported spoken
      expect(rec.bargeIns).toHaveLength(1);
      expect(rec.bargeIns[0]!.result).toEqual(result);
      expect(c.violations(peer)).toEqual([]);
    });

    it('a 150 ms burst pauses, then resumes with no word lost or repeated and no clear', async () => {
      const { peer, call, rec } = await bargeInCall();
      const { result } = await speakWithCaller(call, peer, {
        clips: [{ at: CALLER_AT_MS, mulaw: speechBurst(clip(BURST_FROM), BURST_MS) }],
      });

      expect(rec.log.map((l) => l.type)).toContain('bargeInPause');
      expect(rec.falseInterruptions).toHaveLength(1);
      expect(rec.bargeIns).toHaveLength(0);
      expect(peer.clears).toHaveLength(0);
      const pause = rec.log.find((l) => l.type === 'bargeInPause')!;
      const resumed = rec.log.find((l) => l.type === 'falseInterruption')!;
      expect(resumed.mediaBytes).toBe(pause.mediaBytes); // held while paused
      expect(resumed.at).toBeGreaterThan(pause.at);
      expectWholeGreeting(peer);
      expect(result.status).toBe('completed');
      expect(result.heardText).toBe(greeting.words.map((w) => w.text).join(' '));
      expect(rec.words).toEqual(greeting.words.map((w) => w.text));
      expect(c.violations(peer)).toEqual([]);
    });

    it(`its own echo (−${ECHO.db} dB, ${ECHO.delayMs} ms later) never clears the bot`, async () => {
      const { peer, call, rec } = await bargeInCall();
      const { result, frames } = await speakWithCaller(call, peer, { echo: ECHO });
      expect(frames).toBeGreaterThan(0);
      expect(rec.bargeIns).toHaveLength(0);
      expect(peer.clears).toHaveLength(0);
      expect(result.status).toBe('completed');
      expectWholeGreeting(peer);
      expect(result.heardText).toBe(greeting.words.map((w) => w.text).join(' '));
      expect(c.violations(peer)).toEqual([]);
    });

    it('the echo really reaches the detector: with the echo gate off, the same echo pauses the bot', async () => {
      const { peer, call, rec } = await bargeInCall({ echoGate: false });
      await speakWithCaller(call, peer, { echo: ECHO });
      expect(rec.log.map((l) => l.type)).toContain('bargeInPause');
    });
  },
);
