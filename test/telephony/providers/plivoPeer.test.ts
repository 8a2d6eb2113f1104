import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { l16Encode } from '../../../src/dsp/l16.js';
import { mulawEncode } from '../../../src/dsp/mulaw.js';
import { ManualClock } from '../helpers/ManualClock.js';
import { PlivoPeer, type PlivoPeerOptions } from '../helpers/peers/PlivoPeer.js';
import { RawApp, type AppConnection } from '../helpers/peers/RawApp.js';

let app: RawApp;
let clock: ManualClock;
beforeEach(async () => {
  app = await RawApp.listen();
  clock = new ManualClock();
});
afterEach(() => app.close());

function ramp(ms: number, rate: number): Int16Array {
  return Int16Array.from({ length: (ms * rate) / 1000 }, (_, i) => (i * 53) % 20000);
}
const playAudio = (contentType: string, sampleRate: number, bytes: Uint8Array) => ({
  event: 'playAudio',
  media: { contentType, sampleRate, payload: Buffer.from(bytes).toString('base64') },
});

async function connect(options: PlivoPeerOptions = {}): Promise<{ peer: PlivoPeer; c: AppConnection }> {
  const peerP = PlivoPeer.connect(app.url, clock, options);
  const c = await app.accept();
  return { peer: await peerP, c };
}

describe('Plivo test peer', () => {
  it('sends start at once (no connected) with stream id, call id, media format and extra headers', async () => {
    const { peer, c } = await connect({ contentType: 'audio/x-l16', sampleRate: 16000, extraHeaders: 'token=abc;lang=en' });
    expect(await c.next()).toEqual({
      event: 'start',
      sequenceNumber: 1,
      start: {
        callId: '12345678-1234-1234-1234-123456789abc',
        streamId: peer.streamId,
        accountId: 'MA0000000000000000',
        tracks: ['inbound'],
        mediaFormat: { encoding: 'audio/x-l16', sampleRate: 16000 },
      },
      extra_headers: 'token=abc;lang=en',
    });
    peer.close();
  });

  it('answers a checkpoint with playedStream only after the audio before it has played', async () => {
    const { peer, c } = await connect();
    await c.next();
    const pcm = ramp(60, 8000);
    c.send(playAudio('audio/x-mulaw', 8000, mulawEncode(pcm)));
    c.send({ event: 'checkpoint', streamId: peer.streamId, name: 'greeting' });
    await peer.roundTrip();
    expect(c.queued).toBe(0);
    expect(clock.fireNext()).toBe(true);
    expect(clock.now()).toBe(60);
    expect(await c.next()).toMatchObject({ event: 'playedStream', streamId: peer.streamId, name: 'greeting' });
    expect(peer.audio()).toEqual(Buffer.from(mulawEncode(pcm)));
    peer.close();
  });

  it('can name the checkpoint answer played, as some of Plivo pages do', async () => {
    const { peer, c } = await connect({ playedEvent: 'played' });
    await c.next();
    c.send({ event: 'checkpoint', streamId: peer.streamId, name: 'n' });
    expect(await c.next()).toMatchObject({ event: 'played', name: 'n' });
    peer.close();
  });

  it('clearAudio drops what has not played, answers clearedAudio and never answers the waiting checkpoints', async () => {
    const { peer, c } = await connect({ contentType: 'audio/x-l16', sampleRate: 16000 });
    await c.next();
    c.send(playAudio('audio/x-l16', 16000, l16Encode(ramp(300, 16000), 'le')));
    c.send({ event: 'checkpoint', streamId: peer.streamId, name: 'c1' });
    await peer.roundTrip();
    clock.set(120);
    c.send({ event: 'clearAudio', streamId: peer.streamId });
    expect(await c.next()).toMatchObject({ event: 'clearedAudio', streamId: peer.streamId });
    expect(peer.droppedAcks).toEqual(['c1']);
    expect(peer.clears).toEqual([{ at: 120, playedSamples: 1920 }]);
    expect(clock.pendingTimers).toBe(0);
    clock.set(5000);
    await peer.roundTrip();
    expect(c.queued).toBe(0);
    expect(peer.playedSamples).toBe(1920);
    peer.close();
  });

  it('refuses playAudio in another content type or rate than the stream, and commands without the stream id', async () => {
    const { peer, c } = await connect({ contentType: 'audio/x-mulaw' });
    c.send(playAudio('audio/x-l16', 8000, new Uint8Array(320)));
    c.send(playAudio('audio/x-mulaw', 16000, new Uint8Array(320)));
    c.send({ event: 'checkpoint', name: 'x' });
    c.send({ event: 'clearAudio' });
    await peer.roundTrip();
    expect(peer.violations).toHaveLength(4);
    expect(peer.receivedSamples).toBe(0);
    peer.close();
  });

  it('injects caller audio and DTMF in Plivo shapes', async () => {
    const { peer, c } = await connect();
    await c.next();
    peer.sendMedia(new Uint8Array([0xff, 0x7f]));
    peer.sendDtmf('9');
    expect(await c.next()).toMatchObject({
      event: 'media',
      sequenceNumber: 2,
      streamId: peer.streamId,
      media: { track: 'inbound', chunk: 1, payload: '/38=' },
    });
    expect(await c.next()).toMatchObject({ event: 'dtmf', streamId: peer.streamId, dtmf: { digit: '9' } });
    peer.close();
  });
});
