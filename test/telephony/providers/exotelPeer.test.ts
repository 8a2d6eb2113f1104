import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { l16Encode } from '../../../src/dsp/l16.js';
import { ManualClock } from '../helpers/ManualClock.js';
import { ExotelPeer, type ExotelPeerOptions } from '../helpers/peers/ExotelPeer.js';
import { RawApp, type AppConnection } from '../helpers/peers/RawApp.js';

let app: RawApp;
let clock: ManualClock;
beforeEach(async () => {
  app = await RawApp.listen();
  clock = new ManualClock();
});
afterEach(() => app.close());

function ramp(ms: number, rate: number): Int16Array {
  return Int16Array.from({ length: (ms * rate) / 1000 }, (_, i) => ((i * 29) % 30000) - 15000);
}

async function connect(options: ExotelPeerOptions = {}): Promise<{ peer: ExotelPeer; c: AppConnection }> {
  const peerP = ExotelPeer.connect(app.url, clock, options);
  const c = await app.accept();
  return { peer: await peerP, c };
}

describe('Exotel test peer', () => {
  it('sends connected then start with stream sid, call sid, custom parameters and raw 16-bit PCM at its rate', async () => {
    const { peer, c } = await connect({ sampleRate: 16000, customParameters: { token: 'abc' } });
    expect(await c.next()).toEqual({ event: 'connected' });
    expect(await c.next()).toMatchObject({
      event: 'start',
      stream_sid: peer.streamSid,
      start: {
        call_sid: 'CA0000000000000000000000000001',
        custom_parameters: { token: 'abc' },
        media_format: { encoding: 'audio/x-raw', sample_rate: '16000', bit_rate: '16' },
      },
    });
    peer.close();
  });

  it('plays a 200 ms (3.2 KB) chunk and echoes the mark after it when it has played', async () => {
    const { peer, c } = await connect();
    await c.next();
    await c.next();
    const pcm = ramp(200, 8000);
    const sid = peer.streamSid;
    c.send({ event: 'media', stream_sid: sid, media: { payload: Buffer.from(l16Encode(pcm, 'le')).toString('base64') } });
    c.send({ event: 'mark', stream_sid: sid, mark: { name: 'm1' } });
    await peer.roundTrip();
    expect(c.queued).toBe(0);
    expect(clock.fireNext()).toBe(true);
    expect(clock.now()).toBe(200);
    expect(await c.next()).toMatchObject({ event: 'mark', stream_sid: sid, mark: { name: 'm1' } });
    expect(peer.pcm()).toEqual(pcm);
    expect(peer.violations).toEqual([]);
    peer.close();
  });

  it('refuses chunks that are not a multiple of 320 bytes, under 3.2 KB or over 100 KB, and commands for another stream', async () => {
    const { peer, c } = await connect();
    const sid = peer.streamSid;
    const chunk = (n: number) => ({ event: 'media', stream_sid: sid, media: { payload: Buffer.alloc(n).toString('base64') } });
    c.send(chunk(4096));
    c.send(chunk(2880));
    c.send(chunk(100_160));
    c.send({ event: 'clear', stream_sid: 'MZ-other' });
    c.send(chunk(3200));
    await peer.roundTrip();
    expect(peer.violations).toHaveLength(4);
    expect(peer.violations[0]).toContain('4096');
    expect(peer.receivedSamples).toBe(1600);
    peer.close();
  });

  it('clear drops what has not played and echoes the waiting marks at once', async () => {
    const { peer, c } = await connect();
    await c.next();
    await c.next();
    const sid = peer.streamSid;
    c.send({ event: 'media', stream_sid: sid, media: { payload: Buffer.from(l16Encode(ramp(400, 8000), 'le')).toString('base64') } });
    c.send({ event: 'mark', stream_sid: sid, mark: { name: 'a' } });
    await peer.roundTrip();
    clock.set(150);
    c.send({ event: 'clear', stream_sid: sid });
    expect(await c.next()).toMatchObject({ event: 'mark', mark: { name: 'a' } });
    expect(peer.clearedAcks).toEqual(['a']);
    expect(peer.clears).toEqual([{ at: 150, playedSamples: 1200 }]);
    expect(clock.pendingTimers).toBe(0);
    peer.close();
  });

  it('injects caller audio, DTMF and stop in Exotel shapes', async () => {
    const { peer, c } = await connect();
    await c.next();
    await c.next();
    peer.sendMedia(new Uint8Array([1, 0, 2, 0]));
    peer.sendDtmf('5');
    peer.sendStop();
    expect(await c.next()).toMatchObject({ event: 'media', stream_sid: peer.streamSid, media: { chunk: '1', payload: 'AQACAA==' } });
    expect(await c.next()).toMatchObject({ event: 'dtmf', dtmf: { digit: '5', duration: '100' } });
    expect(await c.next()).toMatchObject({ event: 'stop', stop: { reason: 'callended' } });
    peer.close();
  });
});
