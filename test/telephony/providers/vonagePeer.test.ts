import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { l16Decode, l16Encode } from '../../../src/dsp/l16.js';
import { ManualClock } from '../helpers/ManualClock.js';
import { VonagePeer, type VonagePeerOptions } from '../helpers/peers/VonagePeer.js';
import { RawApp, type AppConnection } from '../helpers/peers/RawApp.js';

let app: RawApp;
let clock: ManualClock;
beforeEach(async () => {
  app = await RawApp.listen();
  clock = new ManualClock();
});
afterEach(() => app.close());

function ramp(ms: number, rate: number): Int16Array {
  return Int16Array.from({ length: (ms * rate) / 1000 }, (_, i) => ((i * 41) % 30000) - 15000);
}

async function connect(options: VonagePeerOptions = {}): Promise<{ peer: VonagePeer; c: AppConnection }> {
  const peerP = VonagePeer.connect(app.url, clock, options);
  const c = await app.accept();
  return { peer: await peerP, c };
}

/** Sends s16 as 20 ms little-endian binary frames, as the app must. */
function sendFrames(c: AppConnection, pcm: Int16Array, frameSamples: number): void {
  for (let i = 0; i < pcm.length; i += frameSamples) c.sendBinary(l16Encode(pcm.subarray(i, i + frameSamples), 'le'));
}

describe('Vonage test peer', () => {
  it('first sends websocket:connected with the content type and the NCCO headers as fields', async () => {
    const { peer, c } = await connect({ sampleRate: 8000, headers: { token: 't1', caller: '+447700900000' } });
    expect(await c.next()).toEqual({
      event: 'websocket:connected',
      'content-type': 'audio/l16;rate=8000',
      token: 't1',
      caller: '+447700900000',
    });
    expect(peer.frameBytes).toBe(320);
    peer.close();
  });

  it('plays 20 ms little-endian frames in real time and answers notify with its payload once they have played', async () => {
    const { peer, c } = await connect({ sampleRate: 16000 });
    await c.next();
    const pcm = ramp(100, 16000);
    sendFrames(c, pcm, 320);
    c.send({ action: 'notify', payload: { name: 'vw:1', extra: 2 } });
    await peer.roundTrip();
    expect(peer.pendingAcks).toBe(1);
    expect(peer.bufferedMs).toBe(100);
    expect(clock.fireNext()).toBe(true);
    expect(clock.now()).toBe(100);
    expect(await c.next()).toEqual({ event: 'websocket:notify', payload: { name: 'vw:1', extra: 2 } });
    expect(peer.pcm()).toEqual(pcm);
    expect(l16Decode(peer.audio(), 'le')).toEqual(pcm);
    peer.close();
  });

  it('clear drops what has not played: the waiting notify is answered at once, then websocket:cleared', async () => {
    const { peer, c } = await connect({ sampleRate: 8000 });
    await c.next();
    sendFrames(c, ramp(200, 8000), 160);
    c.send({ action: 'notify', payload: { name: 'n1' } });
    await peer.roundTrip();
    clock.set(60);
    c.send({ action: 'clear' });
    expect(await c.next()).toEqual({ event: 'websocket:notify', payload: { name: 'n1' } });
    expect(await c.next()).toEqual({ event: 'websocket:cleared' });
    expect(peer.clearedAcks).toEqual(['n1']);
    expect(peer.clears).toEqual([{ at: 60, playedSamples: 480 }]);
    peer.close();
  });

  it('refuses frames that are not 20 ms, and text that is not JSON', async () => {
    const { peer, c } = await connect({ sampleRate: 16000 });
    await c.next();
    c.sendBinary(new Uint8Array(320)); // 10 ms at 16 kHz
    c.sendBinary(new Uint8Array(641));
    c.send('not json');
    c.send({ action: 'speak' });
    await peer.roundTrip();
    expect(peer.violations).toEqual([
      'audio frame of 320 bytes; expected 640',
      'audio frame of 641 bytes; expected 640',
      'text frame is not JSON',
      'unknown action "speak"',
    ]);
    expect(peer.receivedSamples).toBe(0);
    peer.close();
  });

  it('injects caller audio as 20 ms binary frames and DTMF as websocket:dtmf', async () => {
    const { peer, c } = await connect({ sampleRate: 8000 });
    await c.next();
    const pcm = ramp(30, 8000);
    peer.sendAudio(pcm);
    peer.sendDtmf('3');
    const a = await c.nextBinary();
    const b = await c.nextBinary();
    expect([a.length, b.length]).toEqual([320, 320]);
    expect(l16Decode(Buffer.concat([a, b]), 'le').subarray(0, pcm.length)).toEqual(pcm);
    expect(
      l16Decode(b, 'le')
        .subarray(80)
        .every((x) => x === 0),
    ).toBe(true);
    expect(await c.next()).toEqual({ event: 'websocket:dtmf', digit: '3', duration: 260 });
    peer.close();
  });
});
