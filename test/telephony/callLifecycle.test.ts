import { once } from 'node:events';
import { setImmediate as tick } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { TelephonyError } from '../../src/errors.js';
import type { UtteranceResult } from '../../src/telephony/Utterance.js';
import { mulawDecode } from '../../src/dsp/mulaw.js';
import { fixtureSource, greeting } from './helpers/fixtureSource.js';
import { startHarness, type Harness } from './helpers/harness.js';

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

describe('caller audio and DTMF', () => {
  it('caller audio comes out as decoded 8 kHz PCM, in order', async () => {
    harness = await startHarness({ source: fixtureSource() });
    const { peer, call } = await harness.dial();
    const chunks: Buffer[] = [];
    call.inbound.on('data', (b: Buffer) => chunks.push(b));
    const mulaw = greeting.mulaw.subarray(0, 1600);
    for (let i = 0; i < mulaw.length; i += 160) peer.sendMedia(mulaw.subarray(i, i + 160), i / 160 + 1);
    await harness.settle();
    const pcm = Buffer.concat(chunks);
    const expected = mulawDecode(mulaw);
    expect(pcm.length).toBe(mulaw.length * 2);
    expect(pcm.equals(Buffer.from(expected.buffer))).toBe(true);
  });

  it('a reader that falls behind loses new caller audio beyond the bound, not memory', async () => {
    harness = await startHarness({ source: fixtureSource(), maxInboundBufferBytes: 3200 });
    const { peer, call } = await harness.dial();
    for (let i = 0; i < 50; i++) peer.sendMedia(greeting.mulaw.subarray(i * 160, i * 160 + 160));
    await harness.settle();
    expect(call.inbound.readableLength).toBeLessThanOrEqual(3200);
    expect(call.inbound.droppedBytes).toBe(50 * 320 - call.inbound.pushedBytes);
    expect(call.inbound.droppedBytes).toBeGreaterThan(0);
  });

  it('DTMF digits come as events', async () => {
    harness = await startHarness({ source: fixtureSource() });
    const { peer, call } = await harness.dial();
    const digits: string[] = [];
    call.on('dtmf', (d) => digits.push(d.digit));
    peer.sendDtmf('4');
    peer.sendDtmf('#');
    await harness.settle();
    expect(digits).toEqual(['4', '#']);
  });

  it('a malformed message is a warning naming the field, and the call goes on', async () => {
    harness = await startHarness({ source: fixtureSource() });
    const { peer, call } = await harness.dial();
    const warnings: TelephonyError[] = [];
    call.on('warning', (w) => warnings.push(w as TelephonyError));
    peer.ws.send('{not json');
    peer.send({ event: 'media', sequenceNumber: '9', media: { track: 'inbound' } });
    peer.sendDtmf('1');
    const dtmf = once(call, 'dtmf');
    await harness.settle();
    await dtmf;
    expect(warnings.map((w) => [w.code, w.field])).toEqual([
      ['TELEPHONY_PROTOCOL', 'message'],
      ['TELEPHONY_PROTOCOL', 'media.payload'],
    ]);
  });
});

describe('endings', () => {
  it('stop aborts synthesis and frees everything', async () => {
    const source = fixtureSource();
    harness = await startHarness({ source });
    const { peer, call } = await harness.dial();
    let result: UtteranceResult | null = null;
    void call.speak(greeting.text).then((r) => {
      result = r;
    });
    await harness.runUntil(() => harness!.clock.now() >= 1000);
    const inboundEnded = once(call.inbound, 'end');
    call.inbound.resume();
    peer.sendStop();
    await harness.settle();
    await inboundEnded;
    expect(call.state).toMatchObject({ status: 'ended', reason: 'stop' });
    expect(result!.status).toBe('aborted');
    expect(source.streams[0]!.aborted).toBe(true);
    expect(source.streams[0]!.destroyed).toBe(true);
    expect(harness.clock.pendingTimers - peer.pendingMarks).toBe(0);
    expect(call.socket.listenerCount('message')).toBe(0);
    expect((await call.speak('too late')).status).toBe('cancelled');
  });

  it('closing the socket mid-utterance aborts synthesis and leaves no timer or listener', async () => {
    const source = fixtureSource();
    harness = await startHarness({ source });
    const { peer, call } = await harness.dial();
    const queued = call.speak('queued second');
    void call.speak(greeting.text);
    const first = call.speak(greeting.text);
    void first;
    await harness.runUntil(() => harness!.clock.now() >= 800);
    const closed = once(call, 'close');
    peer.ws.terminate();
    await closed;
    expect(call.state).toMatchObject({ status: 'ended', reason: 'socketClosed' });
    expect(source.streams).toHaveLength(1);
    expect(source.streams[0]!.aborted).toBe(true);
    expect((await queued).status).toBe('aborted');
    expect((await first).status).toBe('cancelled');
    peer.close();
    expect(harness.clock.pendingTimers).toBe(0);
    expect(call.socket.listenerCount('message')).toBe(0);
    expect(call.listenerCount('word')).toBe(0);
  });

  it('a start in another media format ends the call with a typed error', async () => {
    harness = await startHarness({ source: fixtureSource() });
    const { call } = await harness.dial({ mediaFormat: { encoding: 'audio/x-l16', sampleRate: 16000, channels: 1 } });
    expect(call.state.status).toBe('ended');
    const state = call.state as { error?: TelephonyError };
    expect(state.error).toBeInstanceOf(TelephonyError);
    expect(state.error!.field).toBe('start.mediaFormat.encoding');
  });

  it('speech asked for before start plays once the stream starts', async () => {
    const source = fixtureSource();
    harness = await startHarness({ source });
    const { peer, call } = await harness.dial({ sendStart: false });
    expect(call.state.status).toBe('awaitingStart');
    const r = call.speak({ text: 'hello', reference_id: 'en' });
    await harness.settle();
    expect(source.requests).toHaveLength(0);
    peer.sendStart();
    let done: UtteranceResult | null = null;
    void r.then((x) => {
      done = x;
    });
    await harness.runUntil(() => done !== null);
    expect(done!.status).toBe('completed');
    expect(peer.receivedSamples).toBe(greeting.mulaw.length);
    // Text requests get the phone-line defaults; a full request keeps its own fields.
    expect(source.requests[0]).toEqual({ format: 'pcm', sample_rate: 8000, text: 'hello', reference_id: 'en' });
  });
});

describe('edge cases', () => {
  it('an utterance with no audio completes when its end mark comes straight back', async () => {
    harness = await startHarness({ source: fixtureSource({ mulaw: new Uint8Array(0), words: [] }) });
    const { peer, call } = await harness.dial();
    let done: UtteranceResult | null = null;
    void call.speak('').then((r) => {
      done = r;
    });
    await harness.runUntil(() => done !== null);
    expect(done!).toMatchObject({ status: 'completed', sentSec: 0, playedSec: 0, heardText: '' });
    expect(peer.receivedSamples).toBe(0);
  });

  it('interrupt with nothing playing sends no clear and returns null', async () => {
    harness = await startHarness({ source: fixtureSource() });
    const { peer, call } = await harness.dial();
    expect(call.interrupt()).toBeNull();
    await harness.settle();
    expect(peer.clears).toHaveLength(0);
  });

  it('your own marks come back as mark events; the bridge keeps its prefix to itself', async () => {
    harness = await startHarness({ source: fixtureSource() });
    const { call } = await harness.dial();
    const marks: string[] = [];
    call.on('mark', (m) => marks.push(m));
    call.sendMark('menu-played');
    await harness.settle();
    expect(marks).toEqual(['menu-played']);
    expect(() => call.sendMark('vw:mine')).toThrow(/bridge/);
  });
});

describe('faults from the speech source', () => {
  it('audio before a source failure still plays, and the result says failed', async () => {
    const source = fixtureSource({ failAfterFrames: 30, failWith: new Error('connection reset') });
    harness = await startHarness({ source });
    const { peer, call } = await harness.dial();
    const warnings: Error[] = [];
    call.on('warning', (w) => warnings.push(w));
    let result: UtteranceResult | null = null;
    void call.speak(greeting.text).then((r) => {
      result = r;
    });
    await harness.runUntil(() => result !== null);
    expect(result!.status).toBe('failed');
    expect(result!.error?.message).toMatch(/connection reset/);
    expect(peer.audio().length).toBeGreaterThan(0);
    expect(peer.audio().equals(Buffer.from(greeting.mulaw.subarray(0, peer.audio().length)))).toBe(true);
    expect(result!.playedSec).toBeCloseTo(peer.audio().length / 8000, 6);
    expect(warnings).toHaveLength(1);
  });

  it('frames that are not μ-law 8 kHz are refused, never played as phone audio', async () => {
    harness = await startHarness({ source: fixtureSource({ encoding: 's16le', sampleRate: 44100 }) });
    const { peer, call } = await harness.dial();
    const result = await call.speak('x');
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'FORMAT_MISMATCH' });
    await harness.settle();
    expect(peer.receivedSamples).toBe(0);
  });

  it('a source that rejects settles the utterance as failed and the next one plays', async () => {
    let calls = 0;
    const good = fixtureSource();
    harness = await startHarness({
      source: async (req, ctx) => {
        if (calls++ === 0) throw new Error('401 unauthorised');
        return good(req, ctx);
      },
    });
    const { call } = await harness.dial();
    const first = call.speak('a');
    let second: UtteranceResult | null = null;
    void call.speak('b').then((r) => {
      second = r;
    });
    expect((await first).status).toBe('failed');
    await harness.runUntil(() => second !== null);
    expect(second!.status).toBe('completed');
  });
});

describe('limits', () => {
  it('a phone that stops echoing marks pauses sending at the unacknowledged bound', async () => {
    const source = fixtureSource();
    harness = await startHarness({ source, leadMs: 200, maxUnacknowledgedMs: 600 });
    const { peer, call } = await harness.dial();
    peer.holdEchoes = true;
    let done = false;
    void call.speak(greeting.text).then(() => {
      done = true;
    });
    await harness.runFor(3000);
    // Sent at most the bound plus one frame; the engine was not read further than its buffer.
    expect(peer.receivedSamples / 8).toBeLessThanOrEqual(600 + 20);
    expect(source.streams[0]!.framesRead).toBeLessThanOrEqual((600 + 20) / 20 + 6);
    peer.releaseEchoes();
    await harness.runUntil(() => done);
    expect(peer.audio().equals(Buffer.from(greeting.mulaw))).toBe(true);
  });

  it('socket backpressure pauses the engine, and no audio is lost', async () => {
    const repeats = 80; // ≈ 3.4 MB of μ-law: more than loopback socket buffers hold
    const long = new Uint8Array(greeting.mulaw.length * repeats);
    for (let i = 0; i < repeats; i++) long.set(greeting.mulaw, i * greeting.mulaw.length);
    const source = fixtureSource({ mulaw: long, words: [] });
    // A lead so large that only the socket can hold the bridge back.
    harness = await startHarness({ source, leadMs: 10_000_000, maxUnacknowledgedMs: 20_000_000 });
    const { peer, call } = await harness.dial();
    peer.pauseReading();
    let done = false;
    void call.speak('long').then(() => {
      done = true;
    });
    for (let i = 0; i < 50 && call.stats.socketPauses === 0; i++) await tick();
    for (let i = 0; i < 20; i++) await tick();
    const totalFrames = long.length / 160;
    expect(call.stats.socketPauses).toBeGreaterThan(0);
    const readWhilePaused = source.streams[0]!.framesRead;
    expect(readWhilePaused).toBeLessThan(totalFrames);
    for (let i = 0; i < 20; i++) await tick();
    expect(source.streams[0]!.framesRead).toBe(readWhilePaused); // the engine stays paused
    peer.resumeReading();
    // The lead covers it all: everything goes out as fast as the socket drains, no clock needed.
    while (peer.receivedSamples < long.length) await peer.roundTrip();
    expect(peer.audio().equals(Buffer.from(long))).toBe(true);
    expect(done).toBe(false); // still playing at the phone
  });

  it('two calls stay independent: interrupting one leaves the other whole', async () => {
    const a = fixtureSource();
    const b = fixtureSource();
    harness = await startHarness();
    const one = await harness.dial({ streamSid: 'MZone' }, { source: a });
    const two = await harness.dial({ streamSid: 'MZtwo' }, { source: b });
    let twoDone: UtteranceResult | null = null;
    void one.call.speak('one');
    void two.call.speak('two').then((r) => {
      twoDone = r;
    });
    await harness.runUntil(() => harness!.clock.now() >= 1500);
    const report = one.call.interrupt();
    await harness.runUntil(() => twoDone !== null);
    expect(report!.status).toBe('interrupted');
    expect(one.peer.mediaAfterClear).toBe(0);
    expect(two.peer.clears).toHaveLength(0);
    expect(twoDone!.status).toBe('completed');
    expect(two.peer.audio().equals(Buffer.from(greeting.mulaw))).toBe(true);
    expect(a.streams[0]!.aborted).toBe(true);
    expect(b.streams[0]!.aborted).toBe(false);
  });
});
