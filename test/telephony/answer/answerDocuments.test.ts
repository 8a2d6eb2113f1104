/**
 * Answer documents, parsed back with a strict XML parser (or JSON.parse for the NCCO): the
 * structure each provider documents, and hostile parameter values that come back byte for byte
 * without ending an attribute or opening a tag.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../../src/errors.js';
import {
  exotelStreamUrl,
  plivoStreamXml,
  texmlConnectStream,
  twimlConnectStream,
  vonageConnectNcco,
  vonageConnectNccoJson,
} from '../../../src/telephony/answer/index.js';
import { createStreamToken, streamTokenFromHex, streamTokenToHex, verifyStreamToken } from '../../../src/telephony/auth/index.js';
import { parseXml, type XmlElement } from './strictXml.js';

const URL_ = 'wss://voice.example.com/media';
const HOSTILE = [
  '"/><Hangup/><Stream url="wss://evil',
  "it's <b>&amp;</b> & more",
  'tab\there\nnewline\r\ncrlf',
  ']]><!-- -->',
  'ünïcødé 🎉 中文',
  '',
];
/** Strings XML 1.0 can carry: no C0 controls but tab/LF/CR, no U+FFFE/U+FFFF, no lone surrogates. */
const xmlSafeString = fc
  .string({ unit: 'binary', maxLength: 40 })
  // eslint-disable-next-line no-control-regex -- the C0 controls XML forbids are what is filtered out
  .filter((s) => !/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Cs}/u.test(s));

function only(el: XmlElement, name: string): XmlElement {
  const found = el.children.filter((c) => c.name === name);
  expect(found).toHaveLength(1);
  return found[0]!;
}

function streamOf(xml: string): XmlElement {
  const root = parseXml(xml);
  expect(root.name).toBe('Response');
  return only(only(root, 'Connect'), 'Stream');
}

describe('TwiML <Connect><Stream>', () => {
  it('connects to the URL and carries each parameter as a <Parameter name value/>', () => {
    const xml = twimlConnectStream({ url: URL_, parameters: { vw_token: 'abc-_123', greeting: 'Hello there' } });
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    const stream = streamOf(xml);
    expect(stream.attributes).toEqual({ url: URL_ });
    expect(stream.children.map((p) => [p.name, p.attributes])).toEqual([
      ['Parameter', { name: 'vw_token', value: 'abc-_123' }],
      ['Parameter', { name: 'greeting', value: 'Hello there' }],
    ]);
  });

  it('gives back the exact string for a plain call (built independently)', () => {
    expect(twimlConnectStream({ url: URL_, parameters: { a: '1' } })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="wss://voice.example.com/media">' +
        '<Parameter name="a" value="1"/></Stream></Connect></Response>',
    );
  });

  it.each(HOSTILE)('a hostile value %j round-trips and adds no element', (value) => {
    const stream = streamOf(twimlConnectStream({ url: `${URL_}?q=1&r="2"`, parameters: { [`k${value}`]: value } }));
    expect(stream.attributes['url']).toBe(`${URL_}?q=1&r="2"`);
    expect(stream.children).toHaveLength(1);
    expect(stream.children[0]!.attributes).toEqual({ name: `k${value}`, value });
  });

  it('any XML-safe parameter value round-trips through a strict parser', () => {
    fc.assert(
      fc.property(fc.dictionary(xmlSafeString, xmlSafeString, { maxKeys: 4 }), (params) => {
        const stream = streamOf(twimlConnectStream({ url: URL_, parameters: params }));
        const back = Object.fromEntries(stream.children.map((p) => [p.attributes['name']!, p.attributes['value']!]));
        expect(back).toEqual({ ...params });
      }),
    );
  });

  it('refuses a value XML cannot carry, naming the parameter', () => {
    const err = (() => {
      try {
        twimlConnectStream({ url: URL_, parameters: { greeting: 'bell\u0007' } });
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect((err as InvalidOptionError).field).toBe('parameters.greeting');
    expect(() => twimlConnectStream({ url: URL_, parameters: { x: '\uD800' } })).toThrow(InvalidOptionError);
  });

  it('refuses a URL that is not ws:// or wss://', () => {
    expect(() => twimlConnectStream({ url: 'https://voice.example.com/media' })).toThrow(/ws:\/\/ or wss:\/\//);
    expect(() => twimlConnectStream({ url: 'not a url' })).toThrow(InvalidOptionError);
  });
});

describe('Telnyx TeXML', () => {
  it('asks for RTP bidirectional streaming in one G.711 codec both ways, with parameters', () => {
    const stream = streamOf(texmlConnectStream({ url: URL_, codec: 'PCMA', parameters: { vw_token: 't' } }));
    expect(stream.attributes).toEqual({
      url: URL_,
      track: 'inbound_track',
      codec: 'PCMA',
      bidirectionalMode: 'rtp',
      bidirectionalCodec: 'PCMA',
      bidirectionalSamplingRate: '8000',
    });
    expect(stream.children.map((c) => c.attributes)).toEqual([{ name: 'vw_token', value: 't' }]);
  });

  it('defaults to PCMU and refuses codecs the core cannot send', () => {
    expect(streamOf(texmlConnectStream({ url: URL_ })).attributes['bidirectionalCodec']).toBe('PCMU');
    expect(() => texmlConnectStream({ url: URL_, codec: 'OPUS' as never })).toThrow(InvalidOptionError);
  });

  it.each(HOSTILE)('a hostile value %j round-trips', (value) => {
    const stream = streamOf(texmlConnectStream({ url: URL_, parameters: { p: value } }));
    expect(stream.children.map((c) => c.attributes['value'])).toEqual([value]);
  });
});

describe('Plivo <Stream>', () => {
  it('is bidirectional, keeps the call alive, names the content type and carries the URL as text', () => {
    const root = parseXml(plivoStreamXml({ url: `${URL_}?a=1&b=2`, extraHeaders: { callRef: 'A1', vwtoken: 'deadbeef' } }));
    expect(root.name).toBe('Response');
    const stream = only(root, 'Stream');
    expect(stream.attributes).toEqual({
      bidirectional: 'true',
      keepCallAlive: 'true',
      contentType: 'audio/x-mulaw;rate=8000',
      extraHeaders: 'callRef=A1,vwtoken=deadbeef',
    });
    expect(stream.text).toBe(`${URL_}?a=1&b=2`);
  });

  it('takes the L16 content types Plivo documents', () => {
    const stream = only(parseXml(plivoStreamXml({ url: URL_, contentType: 'audio/x-l16;rate=16000' })), 'Stream');
    expect(stream.attributes['contentType']).toBe('audio/x-l16;rate=16000');
    expect(stream.attributes['extraHeaders']).toBeUndefined();
    expect(() => plivoStreamXml({ url: URL_, contentType: 'audio/x-alaw;rate=8000' as never })).toThrow(InvalidOptionError);
  });

  it.each(['a,b=c', 'x"/>', 'has space', 'tok-en_', ''])('refuses the extra header value %j (only A-Z a-z 0-9)', (value) => {
    expect(() => plivoStreamXml({ url: URL_, extraHeaders: { k: value } })).toThrow(InvalidOptionError);
  });

  it('refuses extra headers over 512 bytes', () => {
    expect(() => plivoStreamXml({ url: URL_, extraHeaders: { k: 'a'.repeat(511) } })).toThrow(/512/);
    expect(() => plivoStreamXml({ url: URL_, extraHeaders: { k: 'a'.repeat(510) } })).not.toThrow(); // k= + 510 = 512 bytes exactly
  });

  it('carries a stream token as hex, and it verifies after the trip back', () => {
    const secret = 'a-secret-of-32-bytes-for-tests!!';
    const token = createStreamToken({ secret, callId: 'call-1', ttlMs: 60_000, now: 1_000 });
    const stream = only(parseXml(plivoStreamXml({ url: URL_, extraHeaders: { vwtoken: streamTokenToHex(token) } })), 'Stream');
    const hex = /vwtoken=([0-9a-f]+)/.exec(stream.attributes['extraHeaders']!)![1]!;
    expect(verifyStreamToken(streamTokenFromHex(hex), { secret, now: 2_000, callId: 'call-1' })).toEqual({
      expiresAt: 61_000,
      callId: 'call-1',
    });
  });
});

describe('Vonage NCCO', () => {
  it('connects to a websocket endpoint with the L16 content type and the headers', () => {
    expect(vonageConnectNcco({ uri: URL_, headers: { vw_token: 'abc' } })).toEqual([
      {
        action: 'connect',
        endpoint: [{ type: 'websocket', uri: URL_, 'content-type': 'audio/l16;rate=16000', headers: { vw_token: 'abc' } }],
      },
    ]);
    expect(vonageConnectNcco({ uri: URL_, rate: 8000 })[0].endpoint[0]).toEqual({
      type: 'websocket',
      uri: URL_,
      'content-type': 'audio/l16;rate=8000',
    });
    expect(() => vonageConnectNcco({ uri: URL_, rate: 24000 as never })).toThrow(InvalidOptionError);
  });

  it('any header value survives the JSON body', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), { maxKeys: 4 }), (headers) => {
        const parsed = JSON.parse(vonageConnectNccoJson({ uri: URL_, headers })) as [{ endpoint: [{ headers: Record<string, string> }] }];
        expect(parsed[0].endpoint[0].headers).toEqual({ ...headers });
      }),
    );
  });
});

describe('Exotel stream URL (no answer document)', () => {
  it('puts up to 3 custom parameters in the query, keeping an existing one', () => {
    const url = new URL(exotelStreamUrl({ url: `${URL_}?sample-rate=8000`, parameters: { vw_token: 'a-b_c', who: 'x y&z' } }));
    expect(url.searchParams.get('sample-rate')).toBe('8000');
    expect(url.searchParams.get('vw_token')).toBe('a-b_c');
    expect(url.searchParams.get('who')).toBe('x y&z');
    expect(exotelStreamUrl({ url: URL_ })).toBe(URL_);
  });

  it('carries a stream token for a Twilio-length call id within Exotel’s 256 characters, and it verifies', () => {
    const secret = 'a-secret-of-32-bytes-for-tests!!';
    const callId = 'CA' + 'f'.repeat(32);
    const token = createStreamToken({ secret, callId, ttlMs: 60_000, now: 1_000 });
    const url = new URL(exotelStreamUrl({ url: URL_, parameters: { vw_token: token } }));
    expect(verifyStreamToken(url.searchParams.get('vw_token')!, { secret, now: 1_000, callId }).callId).toBe(callId);
  });

  it('refuses a fourth parameter and parameters over 256 characters', () => {
    expect(() => exotelStreamUrl({ url: URL_, parameters: { a: '1', b: '2', c: '3', d: '4' } })).toThrow(/at most 3/);
    expect(() => exotelStreamUrl({ url: URL_, parameters: { a: 'x'.repeat(255) } })).toThrow(/256/);
  });
});
