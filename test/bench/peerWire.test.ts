import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventTag, mediaPayloadBytes, stringTemplate, twilioInbound } from '../../bench/lib/peerWire.mjs';
import { createProviderAdapter, type ProviderName } from '../../src/telephony/mediaStream.js';

/** The JSON media providers and the event their media messages carry (Vonage's media is binary). */
const JSON_MEDIA: [ProviderName, string][] = [
  ['twilio', 'media'],
  ['telnyx', 'media'],
  ['plivo', 'playAudio'],
  ['exotel', 'media'],
];

const bytesOf = (m: string | Uint8Array): Buffer => (typeof m === 'string' ? Buffer.from(m) : Buffer.from(m));

describe('the bench phones read and write messages without parsing or stringifying each', () => {
  for (const [provider, event] of JSON_MEDIA) {
    it(`reads the audio length of any ${provider} media message the bridge writes, as a full parse would`, () => {
      const adapter = createProviderAdapter(provider);
      const tag = eventTag(event);
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 3200 }), (audio) => {
          const message = bytesOf(adapter.media(audio));
          const parsed = JSON.parse(message.toString()) as { media: { payload: string } };
          expect(mediaPayloadBytes(message, tag)).toBe(Buffer.byteLength(parsed.media.payload, 'base64'));
          expect(mediaPayloadBytes(message, tag)).toBe(audio.length);
        }),
      );
    });

    it(`leaves ${provider}'s acknowledgement requests and clears to the full parse`, () => {
      const adapter = createProviderAdapter(provider);
      const tag = eventTag(event);
      fc.assert(
        fc.property(fc.string({ maxLength: 40 }), (name) => {
          expect(mediaPayloadBytes(bytesOf(adapter.ackRequest(name)), tag)).toBeNull();
        }),
      );
      expect(mediaPayloadBytes(bytesOf(adapter.clear()), tag)).toBeNull();
    });
  }

  it('a mark name that spells a media message inside its string is not taken for one', () => {
    const adapter = createProviderAdapter('twilio');
    const sneaky = '"event":"media","payload":"AAAA"';
    expect(mediaPayloadBytes(bytesOf(adapter.ackRequest(sneaky)), eventTag('media'))).toBeNull();
  });

  it('any bytes read as null or a whole number of bytes, never a throw', () => {
    const tag = eventTag('media');
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.string({ maxLength: 60 }), (noise, text) => {
        for (const data of [Buffer.from(noise), Buffer.from(`{"event":"media","media":{"payload":"${text}`)]) {
          const n = mediaPayloadBytes(data, tag);
          if (n !== null) expect(Number.isInteger(n) && n >= 0).toBe(true);
        }
      }),
    );
  });

  it("writes each provider's acknowledgement byte for byte as JSON.stringify does, for any name", () => {
    const answers: ((name: string) => unknown)[] = [
      (name) => ({ event: 'mark', sequenceNumber: '0', streamSid: 'MZbench7', mark: { name } }),
      (name) => ({ event: 'playedStream', sequenceNumber: 0, streamId: 'stream-bench-7', name }),
      (name) => ({ event: 'websocket:notify', payload: { name } }),
    ];
    for (const answer of answers) {
      const write = stringTemplate(answer);
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 30 }), (name) => {
          expect(write(name)).toBe(JSON.stringify(answer(name)));
        }),
      );
    }
  });

  it('refuses a template whose message does not hold its string exactly once', () => {
    expect(() => stringTemplate(() => ({ event: 'mark' }))).toThrow(/once/);
    expect(() => stringTemplate((name) => ({ a: name, b: name }))).toThrow(/once/);
  });

  it("writes a Twilio caller's inbound frame byte for byte as JSON.stringify does", () => {
    const base64 = fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('base64'));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.nat({ max: 9999 }), base64, (chunk, phone, payload) => {
        const streamSid = `MZbench${phone}`;
        expect(twilioInbound(streamSid, chunk, payload, 20)).toBe(
          JSON.stringify({
            event: 'media',
            sequenceNumber: String(chunk + 1),
            streamSid,
            media: { track: 'inbound', chunk: String(chunk), timestamp: String((chunk - 1) * 20), payload },
          }),
        );
      }),
    );
  });
});
