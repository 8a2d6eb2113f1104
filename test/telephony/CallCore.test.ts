/**
 * The call core on a made-up provider (test/telephony/helpers/toyDialect.ts): another JSON
 * dialect, binary media, L16 at 16 kHz in either byte order, clear semantics unlike Twilio's
 * (pending acknowledgements are dropped, a confirmation comes back) and a minimum media batch.
 * Everything here runs over a real WebSocket on 127.0.0.1 on the injected clock.
 */
import { once } from 'node:events';
import { setImmediate as tick } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import type { VoicewireError } from '../../src/errors.js';
import { CallCore } from '../../src/telephony/CallCore.js';
import type { CallOptions } from '../../src/telephony/callOptions.js';
import type { TelephonyWordEvent } from '../../src/telephony/callTypes.js';
import type { UtteranceResult } from '../../src/telephony/Utterance.js';
import { greeting } from './helpers/fixtureSource.js';
import { greetingSamples, lineGreetingSource } from './helpers/lineSpeech.js';
import { ManualClock } from './helpers/ManualClock.js';
import { ToyAdapter, ToyPeer, type ToyBegin, type ToyOptions } from './helpers/toyDialect.js';

const L16_16K_BE: ToyBegin = { id: 'toy-1', call: 'call-1', enc: 'l16', rate: 16000, order: 'be', params: { lang: 'en' } };
const L16_16K_LE: ToyBegin = { ...L16_16K_BE, order: 'le' };
const RATE = 16000;
const L16_BYTES = 2;
/** Real I/O turns the harness waits for at most before failing a test. */
const REAL_WAIT_LIMIT_MS = 10_000;

interface ToyHarness {
  clock: ManualClock;
  peer: ToyPeer;
  call: CallCore<ToyBegin>;
  adapter: ToyAdapter;
  settle(): Promise<void>;
  runUntil(done: () => boolean, limitMs?: number, onStep?: () => void): Promise<void>;
  runFor(ms: number): Promise<void>;
  close(): Promise<void>;
}

let harness: ToyHarness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

/** A core with the toy adapter on a real `ws` server, dialled by a toy peer; waits for `start`. */
async function dialToy(begin: ToyBegin, toy: ToyOptions, options: CallOptions): Promise<ToyHarness> {
  const clock = new ManualClock();
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(wss, 'listening');
  const { port } = wss.address() as { port: number };
  const adapter = new ToyAdapter(toy);
  const callReady = new Promise<CallCore<ToyBegin>>((resolve) => {
    wss.once('connection', (ws) => resolve(new CallCore(ws, adapter, { clock, ...options })));
  });
  const peer = await ToyPeer.connect(`ws://127.0.0.1:${port}`, clock, begin, toy.binary === true);
  const call = await callReady;
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 3; i++) {
      await peer.roundTrip();
      await tick();
    }
  };
  await settle();
  if (call.state.status === 'awaitingStart') await once(call, 'start');
  return {
    clock,
    peer,
    call,
    adapter,
    settle,
    async runUntil(done, limitMs = 60_000, onStep) {
      const limit = clock.now() + limitMs;
      const realDeadline = Date.now() + REAL_WAIT_LIMIT_MS;
      await settle();
      while (!done()) {
        if (!clock.fireNext(limit)) {
          if (clock.pendingTimers > 0 || Date.now() > realDeadline) break;
          await settle(); // waiting on the source or the socket
          continue;
        }
        await settle();
        onStep?.();
      }
    },
    async runFor(ms) {
      const end = clock.now() + ms;
      await settle();
      while (clock.fireNext(end)) await settle();
      clock.set(end);
      await settle();
    },
    async close() {
      peer.close();
      call.close();
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

function speakAndRecord(h: ToyHarness): { result: () => UtteranceResult | null; words: { word: TelephonyWordEvent; at: number }[] } {
  let result: UtteranceResult | null = null;
  const words: { word: TelephonyWordEvent; at: number }[] = [];
  h.call.on('word', (word) => words.push({ word, at: h.clock.now() }));
  void h.call.speak(greeting.text).then((r) => {
    result = r;
  });
  return { result: () => result, words };
}

/** The greeting as L16 line bytes in `order`. */
function greetingL16Bytes(order: 'le' | 'be', sampleRate: 8000 | 16000 = RATE): Buffer {
  const s = greetingSamples({ encoding: 'l16', sampleRate });
  const out = Buffer.alloc(s.length * L16_BYTES);
  for (let i = 0; i < s.length; i++) {
    if (order === 'be') out.writeInt16BE(s[i]!, i * L16_BYTES);
    else out.writeInt16LE(s[i]!, i * L16_BYTES);
  }
  return out;
}

describe('the call core on another provider’s dialect', () => {
  it('the start gives the ids, parameters and line format, and the source is asked for that format', async () => {
    const source = lineGreetingSource();
    harness = await dialToy(L16_16K_BE, { binary: true }, { source });
    const h = harness;
    expect(h.call.callStart).toEqual({
      streamId: 'toy-1',
      callId: 'call-1',
      customParameters: { lang: 'en' },
      format: { encoding: 'l16', sampleRate: 16000, byteOrder: 'be' },
    });
    expect(h.call.state.status).toBe('idle');
    const { result } = speakAndRecord(h);
    await h.runUntil(() => result() !== null);
    expect(source.contexts[0]!.format).toEqual({ encoding: 'l16', sampleRate: 16000, byteOrder: 'be' });
  });

  for (const [begin, order] of [
    [L16_16K_BE, 'be'],
    [L16_16K_LE, 'le'],
  ] as const) {
    it(`binary L16 16 kHz (${order}): the peer gets exactly the speech in its byte order, and hears every word`, async () => {
      harness = await dialToy(begin, { binary: true }, { source: lineGreetingSource() });
      const h = harness;
      const { result, words } = speakAndRecord(h);
      await h.runUntil(() => result() !== null);
      expect(h.peer.unexpectedBinary).toBe(0);
      expect(h.peer.texts.filter((m) => m['t'] === 'play')).toHaveLength(0); // media went binary
      expect(h.peer.audio().equals(greetingL16Bytes(order))).toBe(true);
      const r = result()!;
      expect(r.status).toBe('completed');
      expect(r.heardText).toBe(greeting.words.map((w) => w.text).join(' '));
      expect(r.playedSec).toBeCloseTo(greeting.mulaw.length / 8000, 6);
      expect(r.sentSec).toBeCloseTo(r.playedSec, 6);
      // Each word fired when the peer played its start, within a frame.
      expect(words).toHaveLength(greeting.words.length);
      for (const { word, at } of words) {
        const playedAt = h.peer.timeOfSample(Math.floor(word.start * RATE))!;
        expect(at - playedAt).toBeGreaterThanOrEqual(0);
        expect(at - playedAt).toBeLessThanOrEqual(20);
      }
    });
  }

  it('pacing at 16 kHz keeps the peer’s buffer at the lead, in line-rate time', async () => {
    const leadMs = 200;
    harness = await dialToy(L16_16K_LE, {}, { source: lineGreetingSource(), leadMs });
    const h = harness;
    const { result } = speakAndRecord(h);
    let maxBuffered = 0;
    let steps = 0;
    await h.runUntil(
      () => result() !== null,
      60_000,
      () => {
        steps++;
        maxBuffered = Math.max(maxBuffered, h.peer.bufferedMs);
      },
    );
    expect(steps).toBeGreaterThan(100);
    expect(maxBuffered).toBeLessThanOrEqual(leadMs + 20);
    expect(maxBuffered).toBeGreaterThanOrEqual(leadMs - 20);
    expect(h.call.stats.mediaBytes).toBe(greeting.mulaw.length * 2 * L16_BYTES);
    // Media went as JSON text in this dialect.
    expect(h.peer.texts.filter((m) => m['t'] === 'play').length).toBe(h.call.stats.mediaMessages);
  });

  it('interrupt sends the dialect’s clear; acknowledgements the peer drops leave the heard text at what was played', async () => {
    const source = lineGreetingSource();
    harness = await dialToy(L16_16K_LE, { binary: true }, { source });
    const h = harness;
    const { result, words } = speakAndRecord(h);
    await h.runFor(2500);
    const played = h.peer.playedSamples;
    const report = h.call.interrupt();
    await h.settle();
    const receivedAtClear = h.peer.receivedSamples;
    await h.runFor(3000);
    expect(h.peer.flushes).toHaveLength(1);
    expect(h.peer.mediaAfterFlush).toBe(0);
    expect(h.peer.receivedSamples).toBe(receivedAtClear);
    expect(h.peer.dropped.length).toBeGreaterThan(0); // never answered: the core does not wait for them
    const playedWords = greeting.words.filter((w) => w.start < played / RATE).map((w) => w.text);
    expect(report!.status).toBe('interrupted');
    expect(report!.heardText).toBe(playedWords.join(' '));
    expect(report!.cut.map((w) => w.text)).toEqual(greeting.words.slice(playedWords.length).map((w) => w.text));
    expect(words.map((w) => w.word.text)).toEqual(playedWords);
    expect(result()).toEqual(report);
    expect(source.streams[0]!.aborted).toBe(true);
    expect(h.call.state.status).toBe('idle');
    expect(h.clock.pendingTimers).toBe(0);
    // The next utterance plays whole after the clear.
    const next = h.call.speak('again');
    let done: UtteranceResult | null = null;
    void next.then((r) => {
      done = r;
    });
    await h.runUntil(() => done !== null);
    expect(done!.status).toBe('completed');
    expect(h.peer.receivedSamples - receivedAtClear).toBe(greeting.mulaw.length * 2);
  });

  it('a provider that never acknowledges stops the core at the unacknowledged bound, and no word fires', async () => {
    harness = await dialToy(L16_16K_LE, { binary: true }, { source: lineGreetingSource(), maxUnacknowledgedMs: 600, leadMs: 200 });
    const h = harness;
    // Swallow every `done` the peer sends (the provider played, but never says so).
    const original = h.peer.send.bind(h.peer);
    h.peer.send = (m) => {
      if (m['t'] !== 'done') original(m);
    };
    const { words } = speakAndRecord(h);
    await h.runFor(5000);
    expect(words).toHaveLength(0);
    expect(h.peer.receivedSamples / RATE).toBeLessThanOrEqual(0.6 + 0.02);
    expect(h.peer.receivedSamples / RATE).toBeGreaterThanOrEqual(0.6 - 0.02);
    expect(h.clock.pendingTimers).toBe(0); // nothing polls: an acknowledgement would wake it
  });

  it('media is cut to the provider’s batch rule, padded with silence at the end, and words still fire within a batch', async () => {
    // Exotel-like: L16 8 kHz little-endian, multiples of 320 bytes, at least 3200 (200 ms).
    const chunking = { quantumBytes: 320, minBatchBytes: 3200 };
    const begin: ToyBegin = { id: 'toy-2', call: 'call-2', enc: 'l16', rate: 8000, order: 'le' };
    harness = await dialToy(begin, { chunking }, { source: lineGreetingSource(), leadMs: 200 });
    const h = harness;
    const { result, words } = speakAndRecord(h);
    let maxBuffered = 0;
    await h.runUntil(
      () => result() !== null,
      60_000,
      () => {
        maxBuffered = Math.max(maxBuffered, h.peer.bufferedMs);
      },
    );
    expect(result()!.status).toBe('completed');
    expect(h.peer.payloadSizes.length).toBeGreaterThan(10);
    for (const size of h.peer.payloadSizes) {
      expect(size % 320).toBe(0);
      expect(size).toBeGreaterThanOrEqual(3200);
    }
    const speech = greetingL16Bytes('le', 8000);
    const audio = h.peer.audio();
    expect(audio.subarray(0, speech.length).equals(speech)).toBe(true);
    const padding = audio.subarray(speech.length);
    expect(padding.length).toBeLessThan(3200);
    expect(padding.every((b) => b === 0)).toBe(true); // L16 silence
    // Acknowledgements wait for the batch holding their audio, so a word fires within one batch.
    expect(words).toHaveLength(greeting.words.length);
    for (const { word, at } of words) {
      const playedAt = h.peer.timeOfSample(Math.floor(word.start * 8000))!;
      expect(at - playedAt).toBeGreaterThanOrEqual(0);
      expect(at - playedAt).toBeLessThanOrEqual(200 + 20);
    }
    // The buffer runs at most a batch over the lead (a batch goes out whole).
    expect(maxBuffered).toBeLessThanOrEqual(200 + 200 + 20);
    // Every `tell` followed the media it marks: none came before the first batch.
    const firstTell = h.peer.texts.findIndex((m) => m['t'] === 'tell');
    const firstPlay = h.peer.texts.findIndex((m) => m['t'] === 'play');
    expect(firstPlay).toBeGreaterThanOrEqual(0);
    expect(firstTell).toBeGreaterThan(firstPlay);
  });

  it('a mark of your own waits for the batch holding the audio before it, and comes back as a mark event once played', async () => {
    const chunking = { quantumBytes: 320, minBatchBytes: 3200 };
    const begin: ToyBegin = { id: 'toy-3', call: 'call-3', enc: 'l16', rate: 8000, order: 'le' };
    harness = await dialToy(begin, { chunking }, { source: lineGreetingSource(), leadMs: 200 });
    const h = harness;
    const marks: { name: string; at: number }[] = [];
    h.call.on('mark', (name) => marks.push({ name, at: h.clock.now() }));
    h.call.sendMark('before-speech'); // nothing held: asked at once, answered at once
    await h.settle();
    expect(marks.map((m) => m.name)).toEqual(['before-speech']);
    const { result } = speakAndRecord(h);
    await h.runFor(1000);
    const sentBytesBefore = h.peer.receivedSamples * L16_BYTES; // audio the mark must follow
    h.call.sendMark('mid-speech');
    await h.runUntil(() => result() !== null);
    const tells = h.peer.texts.filter((m) => m['t'] === 'tell').map((m) => m['n']);
    expect(tells).toContain('mid-speech');
    const mid = marks.find((m) => m.name === 'mid-speech');
    expect(mid).toBeDefined();
    // Answered only after everything sent before it (and its batch) had played.
    const lastSampleBefore = sentBytesBefore / L16_BYTES - 1;
    expect(mid!.at).toBeGreaterThan(h.peer.timeOfSample(lastSampleBefore)!);
    expect(h.call.stats.markMessages).toBe(tells.filter((n) => typeof n === 'string' && n.startsWith('vw:')).length);
  });

  it('a clear confirmation from the provider changes nothing: the buffer counted as empty from our clear', async () => {
    harness = await dialToy(L16_16K_LE, { binary: true }, { source: lineGreetingSource() });
    const h = harness;
    void h.call.speak('one');
    await h.runFor(600);
    h.call.interrupt();
    await h.settle();
    expect(h.peer.texts.filter((m) => m['t'] === 'flush')).toHaveLength(1);
    const warnings: VoicewireError[] = [];
    h.call.on('warning', (w) => warnings.push(w));
    h.peer.send({ t: 'flushed' }); // a second, late confirmation
    await h.settle();
    expect(warnings).toEqual([]);
    expect(h.call.state.status).toBe('idle');
    let done: UtteranceResult | null = null;
    void h.call.speak('two').then((r) => {
      done = r;
    });
    await h.runUntil(() => done !== null);
    expect(done!.status).toBe('completed');
  });

  it('caller audio in binary L16 frames comes out as s16le PCM at the line rate; DTMF, unknown and bad messages', async () => {
    harness = await dialToy(L16_16K_BE, { binary: true }, { source: lineGreetingSource() });
    const h = harness;
    const chunks: Buffer[] = [];
    h.call.inbound.on('data', (b: Buffer) => chunks.push(b));
    const digits: string[] = [];
    h.call.on('dtmf', (d) => digits.push(d.digit));
    const warnings: VoicewireError[] = [];
    h.call.on('warning', (w) => warnings.push(w));
    const line = greetingL16Bytes('be').subarray(0, 16 * 640);
    for (let i = 0; i < line.length; i += 640) h.peer.sendAudio(line.subarray(i, i + 640));
    h.peer.send({ t: 'key', d: '7' });
    h.peer.send({ t: 'something-new' });
    h.peer.ws.send('{oops');
    h.peer.send({ t: 'done' });
    await h.settle();
    const pcm = Buffer.concat(chunks);
    expect(pcm.equals(greetingL16Bytes('le').subarray(0, 16 * 640))).toBe(true);
    expect(digits).toEqual(['7']);
    expect(warnings.map((w) => [w.code, w.field])).toEqual([
      ['TELEPHONY_PROTOCOL', 'message'],
      ['TELEPHONY_PROTOCOL', 'done.n'],
    ]);
    expect(h.call.state.status).toBe('idle');
  });

  it('a start the adapter refuses ends the call with the adapter’s typed error', async () => {
    const clock = new ManualClock();
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(wss, 'listening');
    const { port } = wss.address() as { port: number };
    const ended = new Promise<{ reason: string; error?: VoicewireError }>((resolve) => {
      wss.once('connection', (ws) => {
        const call = new CallCore(ws, new ToyAdapter(), { clock, source: lineGreetingSource() });
        call.once('close', resolve);
      });
    });
    const peer = await ToyPeer.connect(`ws://127.0.0.1:${port}`, clock, { id: 'x', call: 'y', enc: 'opus', rate: 48000 }, false);
    const closed = once(peer.ws, 'close');
    const info = await ended;
    const [code] = (await closed) as [number];
    expect(info.reason).toBe('error');
    expect(info.error?.code).toBe('TELEPHONY_PROTOCOL');
    expect(info.error?.field).toBe('begin.enc');
    expect(code).toBe(1003);
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
});
