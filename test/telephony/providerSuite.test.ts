/**
 * The same behavioural suite for every provider on the call core, each against its own test
 * peer (real WebSocket on loopback, injected clock): the audio is the engine's output in the
 * provider's line format, words fire when the peer played them, interrupt reports exactly what
 * was played, stop and an abrupt close free everything, and malformed input does not crash the
 * bridge.
 */
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { TelephonyError } from '../../src/errors.js';
import type { CallCore } from '../../src/telephony/CallCore.js';
import type { TelephonyWordEvent } from '../../src/telephony/callTypes.js';
import { bytesPerSample, silenceByte } from '../../src/telephony/lineFormat.js';
import { createProviderAdapter } from '../../src/telephony/mediaStream.js';
import type { UtteranceResult } from '../../src/telephony/Utterance.js';
import { greeting } from './helpers/fixtureSource.js';
import { greetingSamples, lineGreetingSource } from './helpers/lineSpeech.js';
import { PROVIDER_CASES, chunkingOf, lineBytes, type ProviderCase } from './helpers/providerCases.js';
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

describe.each(PROVIDER_CASES.map((c) => [c.provider, c] as const))('a call on %s', (_name, c) => {
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
