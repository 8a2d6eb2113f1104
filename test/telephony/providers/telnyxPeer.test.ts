import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alawDecode, alawEncode } from '../../../src/dsp/alaw.js';
import { l16Encode } from '../../../src/dsp/l16.js';
import { ManualClock } from '../helpers/ManualClock.js';
import { TelnyxPeer } from '../helpers/peers/TelnyxPeer.js';
import { RawApp } from '../helpers/peers/RawApp.js';

let app: RawApp;
let clock: ManualClock;
beforeEach(async () => {
  app = await RawApp.listen();
  clock = new ManualClock();
});
afterEach(() => app.close());

/** A ramp of `ms` of s16 at `rate` (distinct samples, so order and loss show). */
function ramp(ms: number, rate: number, from = 0): Int16Array {
  return Int16Array.from({ length: (ms * rate) / 1000 }, (_, i) => ((from + i) * 37) % 20000);
}
const media = (bytes: Uint8Array) => ({ event: 'media', media: { payload: Buffer.from(bytes).toString('base64') } });

describe('Telnyx test peer', () => {
  it('sends connected then start with the stream id, call control id, custom parameters and media format', async () => {
    const peerP = TelnyxPeer.connect(app.url, clock, { encoding: 'PCMA', callControlId: 'v2:CC9', customParameters: { token: 'k' } });
    const c = await app.accept();
    const peer = await peerP;
    expect(await c.next()).toEqual({ event: 'connected', version: '1.0.0' });
    const start = await c.next();
    expect(start).toMatchObject({
      event: 'start',
      sequence_number: '1',
      stream_id: peer.streamId,
      start: {
        call_control_id: 'v2:CC9',
        custom_parameters: { token: 'k' },
        media_format: { encoding: 'PCMA', sample_rate: 8000, channels: 1 },
      },
    });
    peer.close();
  });

  it('echoes a mark only when the media before it has played, at once when nothing is queued', async () => {
    const peerP = TelnyxPeer.connect(app.url, clock, { encoding: 'PCMA' });
    const c = await app.accept();
    const peer = await peerP;
    await c.next();
    await c.next();
    const pcm = ramp(100, 8000);
    c.send({ event: 'mark', mark: { name: 'empty' } });
    c.send(media(alawEncode(pcm)));
    c.send({ event: 'mark', mark: { name: 'after-100ms' } });
    await peer.roundTrip();
    expect(await c.next()).toMatchObject({ event: 'mark', stream_id: peer.streamId, mark: { name: 'empty' } });
    expect(peer.pendingAcks).toBe(1);
    clock.set(99);
    expect(peer.playedSamples).toBe(792);
    expect(clock.fireNext()).toBe(true);
    expect(clock.now()).toBe(100);
    expect(await c.next()).toMatchObject({ event: 'mark', mark: { name: 'after-100ms' } });
    expect(peer.acked.map((a) => [a.name, a.at])).toEqual([
      ['empty', 0],
      ['after-100ms', 100],
    ]);
    expect(peer.audio()).toEqual(Buffer.from(alawEncode(pcm)));
    expect(peer.pcm()).toEqual(alawDecode(alawEncode(pcm)));
    expect(peer.violations).toEqual([]);
    peer.close();
  });

  it('clear drops what has not played and sends the queued marks back at once', async () => {
    const peerP = TelnyxPeer.connect(app.url, clock, { encoding: 'L16', sampleRate: 16000 });
    const c = await app.accept();
    const peer = await peerP;
    await c.next();
    await c.next();
    c.send(media(l16Encode(ramp(200, 16000), 'be')));
    c.send({ event: 'mark', mark: { name: 'm1' } });
    await peer.roundTrip();
    clock.set(50);
    c.send({ event: 'clear' });
    await peer.roundTrip();
    expect(await c.next()).toMatchObject({ event: 'mark', mark: { name: 'm1' } });
    expect(peer.clearedAcks).toEqual(['m1']);
    expect(peer.clears).toEqual([{ at: 50, playedSamples: 800 }]);
    clock.set(1000);
    expect(peer.playedSamples).toBe(800);
    expect(peer.pendingAcks).toBe(0);
    expect(clock.pendingTimers).toBe(0);
    peer.close();
  });

  it('L16 is played big-endian: the samples decoded are the ones meant', async () => {
    const peerP = TelnyxPeer.connect(app.url, clock, { encoding: 'L16', sampleRate: 8000 });
    const c = await app.accept();
    const peer = await peerP;
    const pcm = ramp(40, 8000, 5);
    c.send(media(l16Encode(pcm, 'be')));
    await peer.roundTrip();
    expect(peer.pcm()).toEqual(pcm);
    peer.close();
  });

  it('media under 20 ms, an odd L16 byte count or a payload that is not base64 is refused, not played', async () => {
    const peerP = TelnyxPeer.connect(app.url, clock, { encoding: 'L16', sampleRate: 8000 });
    const c = await app.accept();
    const peer = await peerP;
    c.send(media(new Uint8Array(200))); // 12.5 ms
    c.send(media(new Uint8Array(321)));
    c.send({ event: 'media', media: { payload: '%%%' } });
    c.send({ event: 'speak' });
    await peer.roundTrip();
    expect(peer.violations).toHaveLength(4);
    expect(peer.violations[0]).toContain('12.5 ms');
    expect(peer.receivedSamples).toBe(0);
    peer.close();
  });

  it('injects caller audio, DTMF, an error and stop in Telnyx shapes, and sends an auth token as header and field', async () => {
    const peerP = TelnyxPeer.connect(app.url, clock, { encoding: 'PCMU', authToken: 'tok-1' });
    const c = await app.accept();
    const peer = await peerP;
    expect(c.headers['x-telnyx-streaming-auth-token']).toBe('tok-1');
    expect(await c.next()).toEqual({ event: 'connected', version: '1.0.0', 'x-telnyx-streaming-auth-token': 'tok-1' });
    await c.next();
    peer.sendMedia(new Uint8Array([1, 2, 3]));
    peer.sendDtmf('7');
    peer.sendError(100002, 'Unknown error', 'x');
    peer.sendStop();
    expect(await c.next()).toMatchObject({
      event: 'media',
      sequence_number: '2',
      media: { track: 'inbound', chunk: '1', payload: 'AQID' },
    });
    expect(await c.next()).toMatchObject({ event: 'dtmf', dtmf: { digit: '7' } });
    expect(await c.next()).toMatchObject({ event: 'error', payload: { code: 100002 } });
    expect(await c.next()).toMatchObject({ event: 'stop', stream_id: peer.streamId });
    peer.close();
  });
});
