/**
 * The provider adapters as pure translators: any socket message either becomes a provider event
 * or throws a typed protocol error (never anything else); the generic entry points pick the
 * right adapter and refuse unknown providers; the bridge server serves any provider.
 */
import { once } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError, TelephonyError } from '../../src/errors.js';
import { createMediaBridge } from '../../src/telephony/MediaBridgeServer.js';
import { MediaBatcher } from '../../src/telephony/MediaBatcher.js';
import { PROVIDERS, attachMediaStream, createProviderAdapter, type ProviderName } from '../../src/telephony/mediaStream.js';
import { ExotelAdapter, exotelLineFormat } from '../../src/telephony/providers/exotelAdapter.js';
import { VonageAdapter } from '../../src/telephony/providers/vonageAdapter.js';
import { TelnyxAdapter } from '../../src/telephony/providers/telnyxAdapter.js';
import { ManualClock } from './helpers/ManualClock.js';
import { lineGreetingSource } from './helpers/lineSpeech.js';
import { VonagePeer } from './helpers/peers/VonagePeer.js';

/** JSON-ish text shaped like provider messages, so the parsers get past the JSON stage. */
const messageText = fc.oneof(
  fc.string(),
  fc.json(),
  fc
    .record({
      event: fc.constantFrom(
        'connected',
        'start',
        'media',
        'dtmf',
        'mark',
        'stop',
        'error',
        'playedStream',
        'played',
        'clearedAudio',
        'websocket:connected',
        'websocket:notify',
        'websocket:cleared',
        'websocket:dtmf',
        'x',
      ),
      media: fc.oneof(fc.constant(undefined), fc.record({ payload: fc.oneof(fc.base64String(), fc.string()), track: fc.string() })),
      mark: fc.oneof(fc.constant(undefined), fc.record({ name: fc.oneof(fc.string(), fc.integer()) })),
      'content-type': fc.constantFrom('audio/l16;rate=16000', 'audio/l16;rate=8000', 'audio/pcmu', ''),
      payload: fc.oneof(fc.constant(undefined), fc.record({ name: fc.string() })),
      digit: fc.oneof(fc.string(), fc.integer()),
    })
    .map((m) => JSON.stringify(m)),
);

describe('provider adapters', () => {
  it.each(PROVIDERS.map((p) => [p]))('%s: any text or binary frame parses to an event or a typed protocol error', (provider) => {
    fc.assert(
      fc.property(
        fc.oneof(
          messageText.map((t) => ({ t, bin: false })),
          fc.uint8Array({ maxLength: 700 }).map((b) => ({ t: b, bin: true })),
        ),
        (m) => {
          const adapter = createProviderAdapter(provider as ProviderName);
          const data = typeof m.t === 'string' ? Buffer.from(m.t, 'utf8') : Buffer.from(m.t);
          try {
            const event = adapter.parse(data, m.bin);
            expect(['connected', 'start', 'media', 'dtmf', 'ack', 'cleared', 'stop', 'unknown']).toContain(event.type);
          } catch (err) {
            expect(err).toBeInstanceOf(TelephonyError);
            expect((err as TelephonyError).code).toBe('TELEPHONY_PROTOCOL');
            expect((err as TelephonyError).field).toBeTruthy();
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('an unknown provider is an option error naming the choices', () => {
    expect(() => createProviderAdapter('skype' as ProviderName)).toThrow(InvalidOptionError);
    expect(() => attachMediaStream({} as never, { provider: 'skype' as ProviderName })).toThrow(/twilio, telnyx, plivo, vonage, exotel/);
  });

  it('Vonage audio before websocket:connected is refused; after it, whole samples are caller audio', () => {
    const a = new VonageAdapter();
    expect(() => a.parse(Buffer.alloc(640), true)).toThrow(expect.objectContaining({ code: 'TELEPHONY_PROTOCOL', field: 'audio' }));
    const start = a.parse(Buffer.from('{"event":"websocket:connected","content-type":"audio/l16;rate=16000","caller":"+1"}'), false);
    expect(start).toEqual({ type: 'start', info: { contentType: 'audio/l16;rate=16000', sampleRate: 16000, headers: { caller: '+1' } } });
    expect(a.parse(Buffer.alloc(640), true)).toMatchObject({ type: 'media' });
    expect(a.chunking({ encoding: 'l16', sampleRate: 16000 })).toEqual({ quantumBytes: 640, minBatchBytes: 640, maxBatchBytes: 640 });
    expect(a.media(new Uint8Array(640))).toBeInstanceOf(Uint8Array);
  });

  it("Vonage's documented first message: headers as top-level fields, the call id from the uuid the answer URL put there", () => {
    // The shape of the guide's example (Nexmo/station websockets.md, "First message"): headers flattened into the
    // message, objects and arrays among them.
    const first = JSON.stringify({
      event: 'websocket:connected',
      'content-type': 'audio/l16;rate=8000',
      uuid: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
      name: 'J Doe',
      age: 40,
      enable_auditing: false,
      address: { city: 'New York City' },
      system_roles: [183493, 22],
    });
    const a = new VonageAdapter();
    const start = a.parse(Buffer.from(first), false);
    expect(start.type).toBe('start');
    const info = (start as { info: Parameters<VonageAdapter['start']>[0] }).info;
    const call = a.start(info);
    expect(call.callId).toBe('aaaaaaaa-bbbb-cccc-dddd-0123456789ab');
    // Every header is kept: strings as they are, anything else as its JSON text.
    expect(call.customParameters).toEqual({
      uuid: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
      name: 'J Doe',
      age: '40',
      enable_auditing: 'false',
      address: '{"city":"New York City"}',
      system_roles: '[183493,22]',
    });
    expect(call.format).toEqual({ encoding: 'l16', sampleRate: 8000, byteOrder: 'le' });
    // `call_uuid` (the machine-detection event's name for it) is read too; with neither, the id is empty.
    const named = (h: string): string =>
      a.start(
        (
          a.parse(Buffer.from(`{"event":"websocket:connected","content-type":"audio/l16;rate=8000"${h}}`), false) as typeof start & {
            info: typeof info;
          }
        ).info,
      ).callId;
    expect(named(',"call_uuid":"c-1"')).toBe('c-1');
    expect(named('')).toBe('');
  });

  it('a Telnyx error event is a warning naming its code, not an end of the call', () => {
    const a = new TelnyxAdapter();
    const text = '{"event":"error","payload":{"code":100002,"title":"Unknown error","detail":"bad media"}}';
    expect(() => a.parse(Buffer.from(text), false)).toThrow(/Telnyx error 100002: Unknown error bad media/);
  });

  it('an Exotel stream at 24 kHz is refused as an unsupported line, not mis-served', () => {
    const a = new ExotelAdapter();
    const start = { streamSid: 's', callSid: 'c', accountSid: '', from: '', to: '', customParameters: {} };
    expect(() => a.start({ ...start, mediaFormat: { encoding: 'audio/x-raw', sampleRate: 24000, bitRate: 16 } })).toThrow(
      expect.objectContaining({ code: 'TELEPHONY_FORMAT_UNSUPPORTED', field: 'start.media_format.sample_rate' }),
    );
    expect(exotelLineFormat({ ...start, mediaFormat: { encoding: 'audio/x-raw', sampleRate: 16000, bitRate: 16 } })).toEqual({
      encoding: 'l16',
      sampleRate: 16000,
      byteOrder: 'le',
    });
  });

  it('a batcher with a largest message cuts held audio into messages no longer than it, acks after their audio', () => {
    const sent: (number | string)[] = [];
    const b = new MediaBatcher(
      { quantumBytes: 4, minBatchBytes: 4, maxBatchBytes: 4 },
      { media: (m) => sent.push(m.length), ack: (n) => sent.push(n) },
    );
    b.push(new Uint8Array(3));
    b.ack('w', true);
    expect(b.push(new Uint8Array(10))).toBe(12);
    expect(b.flushPadded(0)).toBe(4);
    expect(sent).toEqual([4, 'w', 4, 4, 4]);
  });
});

describe('media bridge server', () => {
  it('serves the provider it is given: each connection becomes that provider’s call, forgotten when it ends', async () => {
    const clock = new ManualClock();
    const seen: { call: unknown; url: string }[] = [];
    const bridge = await createMediaBridge({
      provider: 'vonage',
      clock,
      source: lineGreetingSource(),
      path: '/media',
      onCall: (call, request) => seen.push({ call, url: request.url ?? '' }),
    });
    expect(bridge.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/media$/);
    const peer = await VonagePeer.connect(bridge.url!, clock, { sampleRate: 8000 });
    await peer.roundTrip();
    await peer.roundTrip();
    expect(bridge.calls.size).toBe(1);
    const call = [...bridge.calls][0]!;
    expect(call.lineFormat).toEqual({ encoding: 'l16', sampleRate: 8000, byteOrder: 'le' });
    expect(seen[0]!.url).toBe('/media');
    const ended = once(call, 'close');
    peer.ws.close();
    await ended;
    expect(bridge.calls.size).toBe(0);
    await bridge.close();
  });
});
