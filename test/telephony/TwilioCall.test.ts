import { afterEach, describe, expect, it } from 'vitest';
import type { TelephonyWordEvent, TwilioCall } from '../../src/telephony/TwilioCall.js';
import type { UtteranceResult } from '../../src/telephony/Utterance.js';
import { fixtureSource, greeting } from './helpers/fixtureSource.js';
import { startHarness, type Harness } from './helpers/harness.js';

const RATE = 8000;
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

function recordWords(call: TwilioCall, clockNow: () => number): { word: TelephonyWordEvent; at: number }[] {
  const heard: { word: TelephonyWordEvent; at: number }[] = [];
  call.on('word', (word) => heard.push({ word, at: clockNow() }));
  return heard;
}

describe('speaking into a Twilio media stream', () => {
  it('the start message gives the stream sid, call sid and custom parameters', async () => {
    harness = await startHarness({ source: fixtureSource() });
    const { call } = await harness.dial({ streamSid: 'MZabc', callSid: 'CAdef', customParameters: { greeting: 'Hello there' } });
    expect(call.state.status).toBe('idle');
    expect(call.streamInfo).toMatchObject({
      streamSid: 'MZabc',
      callSid: 'CAdef',
      customParameters: { greeting: 'Hello there' },
      mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
    });
  });

  it('the phone receives exactly the engine μ-law bytes, with no header', async () => {
    harness = await startHarness({ source: fixtureSource() });
    const { peer, call } = await harness.dial();
    let result: UtteranceResult | null = null;
    void call.speak(greeting.text).then((r) => {
      result = r;
    });
    await harness.runUntil(() => result !== null);
    const audio = peer.audio();
    expect(audio.length).toBe(greeting.mulaw.length);
    expect(audio.equals(Buffer.from(greeting.mulaw))).toBe(true);
    expect(audio.subarray(0, 4).toString('latin1')).not.toBe('RIFF');
    expect(result!.status).toBe('completed');
    expect(result!.heardText).toBe(greeting.words.map((w) => w.text).join(' '));
    expect(result!.playedSec).toBeCloseTo(greeting.mulaw.length / RATE, 6);
    for (const m of peer.messages) if (m['event'] === 'media' || m['event'] === 'mark') expect(m['streamSid']).toBe(peer.streamSid);
  });

  it('sends run ahead of playback by the lead, never dumping the utterance', async () => {
    const leadMs = 200;
    const source = fixtureSource();
    harness = await startHarness({ source, leadMs });
    const { peer, call } = await harness.dial();
    let done = false;
    void call.speak(greeting.text).then(() => {
      done = true;
    });
    let maxBuffered = 0;
    let maxPulledAhead = 0;
    let steps = 0;
    await harness.runUntil(
      () => done,
      60_000,
      () => {
        steps++;
        maxBuffered = Math.max(maxBuffered, peer.bufferedMs);
        // The engine is read only as fast as audio goes out: memory stays flat however long the text.
        const pulled = (source.streams[0]?.framesRead ?? 0) * 160;
        maxPulledAhead = Math.max(maxPulledAhead, pulled - peer.receivedSamples);
      },
    );
    expect(maxPulledAhead).toBeLessThanOrEqual(5 * 160); // the source's own read-ahead (4 frames) + 1
    expect(steps).toBeGreaterThan(100);
    // At most the lead plus the frame that crossed it.
    expect(maxBuffered).toBeLessThanOrEqual(leadMs + 20);
    expect(maxBuffered).toBeGreaterThanOrEqual(leadMs - 20);
    expect(call.stats.maxUnacknowledgedMs).toBeLessThan(leadMs + 20 + 100 + 1);
  });

  it('each word event fires when the phone played that word’s start', async () => {
    harness = await startHarness({ source: fixtureSource() });
    const { peer, call } = await harness.dial();
    const heard = recordWords(call, () => harness!.clock.now());
    let done = false;
    void call.speak(greeting.text).then(() => {
      done = true;
    });
    await harness.runUntil(() => done);
    expect(heard.map((h) => h.word.text)).toEqual(greeting.words.map((w) => w.text));
    for (const { word, at } of heard) {
      const playedAt = peer.timeOfSample(Math.floor(word.start * RATE));
      expect(playedAt).not.toBeNull();
      expect(Math.abs(at - playedAt!)).toBeLessThanOrEqual(20);
    }
  });

  /** Speaks the greeting on a fresh call and checks every word fired 0–20 ms after the phone played its start. */
  async function expectEveryWordWithinAFrame(options: Parameters<typeof startHarness>[0]): Promise<void> {
    harness = await startHarness(options);
    const { peer, call } = await harness.dial();
    const heard = recordWords(call, () => harness!.clock.now());
    let done = false;
    void call.speak(greeting.text).then(() => {
      done = true;
    });
    await harness.runUntil(() => done);
    expect(heard).toHaveLength(greeting.words.length);
    for (const { word, at } of heard) {
      const playedAt = peer.timeOfSample(Math.floor(word.start * RATE))!;
      expect(at - playedAt).toBeGreaterThanOrEqual(0);
      expect(at - playedAt).toBeLessThanOrEqual(20);
    }
  }

  it('a word whose timing arrives after its audio went out is still heard within a frame', async () => {
    await expectEveryWordWithinAFrame({ source: fixtureSource({ alignmentLagMs: 400 }) });
  });

  it('word events stay within a frame of the phone with word marks off (marks every frame)', async () => {
    await expectEveryWordWithinAFrame({ source: fixtureSource(), wordMarks: false, markEveryFrames: 1 });
  });
});

describe('barge-in', () => {
  it('interrupt clears the phone, stops sending and reports exactly what was heard', async () => {
    const source = fixtureSource();
    harness = await startHarness({ source });
    const { peer, call } = await harness.dial();
    const heard = recordWords(call, () => harness!.clock.now());
    let result: UtteranceResult | null = null;
    void call.speak(greeting.text).then((r) => {
      result = r;
    });
    // Let the phone play 2.5 s, then barge in.
    const bargeAt = 2500;
    await harness.runFor(bargeAt);
    const playedSamples = peer.playedSamples;
    const report = call.interrupt();
    expect(report).not.toBeNull();
    await harness.settle();
    // Let time run on: the cleared marks came back, nothing more is sent.
    const receivedAtClear = peer.receivedSamples;
    await harness.runFor(5_000);

    expect(peer.clears).toHaveLength(1);
    expect(peer.mediaAfterClear).toBe(0);
    expect(peer.receivedSamples).toBe(receivedAtClear);
    expect(peer.cleared.length).toBeGreaterThan(0);
    const playedWords = greeting.words.filter((w) => w.start < playedSamples / RATE).map((w) => w.text);
    expect(report!.status).toBe('interrupted');
    expect(report!.heardText).toBe(playedWords.join(' '));
    expect(report!.cut.map((w) => w.text)).toEqual(greeting.words.slice(playedWords.length).map((w) => w.text));
    // Cleared words are never reported as spoken, not even after their marks came back.
    expect(heard.map((h) => h.word.text)).toEqual(playedWords);
    expect(result).toEqual(report);
    // Synthesis and the network read were stopped.
    expect(source.streams[0]!.aborted).toBe(true);
    expect(source.streams[0]!.destroyed).toBe(true);
    expect(call.state.status).toBe('idle');
    expect(harness.clock.pendingTimers).toBe(0);
  });

  it('a new utterance after a barge-in plays whole and its words come on time', async () => {
    harness = await startHarness({ source: fixtureSource() });
    const { peer, call } = await harness.dial();
    void call.speak('first');
    await harness.runUntil(() => harness!.clock.now() >= 1000);
    call.interrupt();
    await harness.settle();
    const before = peer.receivedSamples;
    const heard = recordWords(call, () => harness!.clock.now());
    let done: UtteranceResult | null = null;
    void call.speak('second').then((r) => {
      done = r;
    });
    await harness.runUntil(() => done !== null);
    expect(done!.status).toBe('completed');
    expect(peer.receivedSamples - before).toBe(greeting.mulaw.length);
    expect(heard.map((h) => h.word.utteranceId)).toEqual(greeting.words.map(() => done!.id));
    expect(heard).toHaveLength(greeting.words.length);
  });
});
