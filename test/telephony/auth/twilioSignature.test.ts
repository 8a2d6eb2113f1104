/**
 * X-Twilio-Signature: Twilio's published example, vectors recomputed here with node:crypto from
 * the documented rule (URL, then POST parameters sorted by name, name+value, HMAC-SHA1 keyed with
 * the auth token, base64), tampering, a missing header, and a real node:http server behind a
 * "proxy" (the URL Twilio signed differs from the Host the server sees: `publicUrl`).
 */
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOptionError, TelephonyAuthError, type ErrorCode } from '../../../src/errors.js';
import { computeTwilioSignature, verifyTwilioRequest, verifyTwilioSignature } from '../../../src/telephony/auth/index.js';

/** Twilio's published example (twilio-php docs, "Validate Incoming Requests"). */
const PUBLISHED = {
  authToken: '12345',
  url: 'https://mycompany.com/myapp.php?foo=1&bar=2',
  params: { CallSid: 'CA1234567890ABCDE', Caller: '+14158675309', Digits: '1234', From: '+14158675309', To: '+18005551212' },
  signature: 'RSOYDt4T1cUTdK1PDd93/VVr8B8=',
};
const TOKEN = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';

/** The documented rule, written out here independently. */
function reference(authToken: string, url: string, pairs: [string, string][]): string {
  const sorted = [...pairs].sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return createHmac('sha1', authToken)
    .update(url + sorted.map(([k, v]) => k + v).join(''))
    .digest('base64');
}

function codeOf(f: () => unknown): ErrorCode | 'none' | 'other' {
  try {
    f();
    return 'none';
  } catch (e) {
    return e instanceof TelephonyAuthError ? e.code : 'other';
  }
}

describe('X-Twilio-Signature', () => {
  it('matches Twilio’s published example', () => {
    expect(computeTwilioSignature(PUBLISHED)).toBe(PUBLISHED.signature);
    expect(verifyTwilioSignature(PUBLISHED)).toBe(true);
  });

  it('agrees with the documented rule on any URL and parameters (ASCII names)', () => {
    fc.assert(
      fc.property(
        fc.webUrl({ withQueryParameters: true }),
        fc.array(fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,11}$/), fc.string({ maxLength: 30 })), { maxLength: 8 }),
        (url, pairs) => {
          const unique = [...new Map(pairs).entries()];
          const params = Object.fromEntries(unique);
          const expected = reference(TOKEN, url, unique);
          expect(computeTwilioSignature({ authToken: TOKEN, url, params })).toBe(expected);
          expect(verifyTwilioSignature({ authToken: TOKEN, url, params, signature: expected })).toBe(true);
        },
      ),
    );
  });

  it('sorts names case-sensitively (upper case first), as Twilio does', () => {
    const pairs: [string, string][] = [
      ['digits', 'a'],
      ['Digits', 'b'],
      ['_x', 'c'],
      ['From', 'd'],
    ];
    const url = 'https://example.com/twiml';
    const expected = createHmac('sha1', TOKEN).update(`${url}DigitsbFromd_xcdigitsa`).digest('base64');
    expect(computeTwilioSignature({ authToken: TOKEN, url, params: Object.fromEntries(pairs) })).toBe(expected);
  });

  it('signs a repeated name once per value, and a GET by its URL alone', () => {
    const url = 'https://example.com/twiml?x=1';
    const form = new URLSearchParams('b=2&a=1&b=1');
    expect(computeTwilioSignature({ authToken: TOKEN, url, params: form })).toBe(
      createHmac('sha1', TOKEN).update(`${url}a1b1b2`).digest('base64'),
    );
    expect(computeTwilioSignature({ authToken: TOKEN, url })).toBe(createHmac('sha1', TOKEN).update(url).digest('base64'));
  });

  it.each([
    ['a parameter value', { ...PUBLISHED, params: { ...PUBLISHED.params, Digits: '1235' } }],
    ['an added parameter', { ...PUBLISHED, params: { ...PUBLISHED.params, Extra: '' } }],
    ['a removed parameter', { ...PUBLISHED, params: { ...PUBLISHED.params, Digits: undefined as unknown as string } }],
    ['the query', { ...PUBLISHED, url: 'https://mycompany.com/myapp.php?foo=1&bar=3' }],
    ['the scheme', { ...PUBLISHED, url: 'http://mycompany.com/myapp.php?foo=1&bar=2' }],
    ['the host', { ...PUBLISHED, url: 'https://evil.example/myapp.php?foo=1&bar=2' }],
    ['the auth token', { ...PUBLISHED, authToken: '12346' }],
    ['one signature character', { ...PUBLISHED, signature: 'RSOYDt4T1cUTdK1PDd93/VVr8C8=' }],
  ])('refuses a request when %s changed', (_what, input) => {
    const params = Object.fromEntries(Object.entries(input.params).filter(([, v]) => v !== undefined)) as Record<string, string>;
    expect(codeOf(() => verifyTwilioSignature({ ...input, params }))).toBe('TWILIO_SIGNATURE_MISMATCH');
  });

  it('refuses a missing header, and a malformed one without hashing', () => {
    for (const missing of [undefined, null, '', []]) {
      expect(codeOf(() => verifyTwilioSignature({ ...PUBLISHED, signature: missing as never }))).toBe('TWILIO_SIGNATURE_MISSING');
    }
    // …B9= decodes to the same 20 bytes as …B8= (non-zero unused bits): refused, not matched.
    for (const bad of [
      'RSOYDt4T1cUTdK1PDd93/VVr8B9=',
      'RSOYDt4T1cUTdK1PDd93/VVr8B8',
      'RSOYDt4T1cUTdK1PDd93/VVr8B8==',
      'not base64 at all!!!!!!!!!!=',
      'x'.repeat(5000),
    ]) {
      expect(codeOf(() => verifyTwilioSignature({ ...PUBLISHED, signature: bad }))).toBe('TWILIO_SIGNATURE_MALFORMED');
    }
    expect(codeOf(() => verifyTwilioSignature({ ...PUBLISHED, signature: [PUBLISHED.signature, PUBLISHED.signature] }))).toBe(
      'TWILIO_SIGNATURE_MALFORMED',
    );
  });

  it('any header value is accepted only when right, and otherwise refused with the typed error', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.base64String({ minLength: 28, maxLength: 28 })),
        (signature) => {
          const wellFormed = /^[A-Za-z0-9+/]{27}=$/.test(signature) && Buffer.from(signature, 'base64').toString('base64') === signature;
          const expected =
            signature === ''
              ? 'TWILIO_SIGNATURE_MISSING'
              : !wellFormed
                ? 'TWILIO_SIGNATURE_MALFORMED'
                : signature === PUBLISHED.signature
                  ? 'none'
                  : 'TWILIO_SIGNATURE_MISMATCH';
          expect(codeOf(() => verifyTwilioSignature({ ...PUBLISHED, signature }))).toBe(expected);
        },
      ),
    );
  });

  it('takes the URL with the default port added or dropped, but not another port', () => {
    const sig = computeTwilioSignature({ ...PUBLISHED, url: 'https://mycompany.com:443/myapp.php?foo=1&bar=2' });
    expect(verifyTwilioSignature({ ...PUBLISHED, signature: sig })).toBe(true);
    expect(verifyTwilioSignature({ ...PUBLISHED, url: 'https://mycompany.com:443/myapp.php?foo=1&bar=2' })).toBe(true);
    expect(codeOf(() => verifyTwilioSignature({ ...PUBLISHED, url: 'https://mycompany.com:8443/myapp.php?foo=1&bar=2' }))).toBe(
      'TWILIO_SIGNATURE_MISMATCH',
    );
  });

  it('accepts either token during a rotation, and refuses bad arguments with InvalidOptionError', () => {
    expect(verifyTwilioSignature({ ...PUBLISHED, authToken: ['other-token', '12345'] })).toBe(true);
    expect(() => verifyTwilioSignature({ ...PUBLISHED, authToken: '' })).toThrow(InvalidOptionError);
    expect(() => verifyTwilioSignature({ ...PUBLISHED, authToken: [] })).toThrow(InvalidOptionError);
    expect(() => computeTwilioSignature({ authToken: TOKEN, url: '' })).toThrow(InvalidOptionError);
  });

  it('messages never echo the auth token or the expected signature', () => {
    try {
      verifyTwilioSignature({ ...PUBLISHED, authToken: TOKEN });
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).not.toContain(TOKEN);
      expect((e as Error).message).not.toContain(computeTwilioSignature({ ...PUBLISHED, authToken: TOKEN }));
      expect((e as Error).message).not.toContain(PUBLISHED.signature);
    }
  });
});

describe('verifying a request on a node:http server', () => {
  let server: Server;
  let port: number;
  const outcomes: { status: number; params?: Record<string, string>; code?: string }[] = [];
  let publicUrl: string | undefined;

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          const params = verifyTwilioRequest(req, Buffer.concat(chunks), {
            authToken: TOKEN,
            ...(publicUrl !== undefined ? { publicUrl } : {}),
          });
          outcomes.push({ status: 200, params: Object.fromEntries(params) });
          res.writeHead(200).end();
        } catch (e) {
          outcomes.push({ status: 403, code: (e as TelephonyAuthError).code });
          res.writeHead(403).end();
        }
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function post(path: string, body: string, headers: Record<string, string>): Promise<number> {
    const req = request({
      host: '127.0.0.1',
      port,
      path,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    });
    req.end(body);
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    res.resume();
    await once(res, 'end');
    return res.statusCode!;
  }

  const body = 'CallSid=CA42&From=%2B14155550100&To=%2B14155550199&SpeechResult=caf%C3%A9+au+lait';
  const decoded = { CallSid: 'CA42', From: '+14155550100', To: '+14155550199', SpeechResult: 'café au lait' };

  it('accepts a request signed over the URL the server was asked for (Host header), with decoded values', async () => {
    publicUrl = undefined;
    const url = `http://127.0.0.1:${port}/twiml?lang=en`;
    const signature = reference(TOKEN, url, Object.entries(decoded));
    expect(await post('/twiml?lang=en', body, { 'x-twilio-signature': signature })).toBe(200);
    expect(outcomes.at(-1)).toEqual({ status: 200, params: decoded });
  });

  it('behind a proxy, the URL Twilio signed only verifies with publicUrl, and forwarded headers are not trusted', async () => {
    const twilioSaw = 'https://voice.example.com/twiml?lang=en';
    const signature = reference(TOKEN, twilioSaw, Object.entries(decoded));
    publicUrl = undefined;
    const forwarded = { 'x-twilio-signature': signature, 'x-forwarded-host': 'voice.example.com', 'x-forwarded-proto': 'https' };
    expect(await post('/twiml?lang=en', body, forwarded)).toBe(403);
    expect(outcomes.at(-1)).toEqual({ status: 403, code: 'TWILIO_SIGNATURE_MISMATCH' });
    publicUrl = 'https://voice.example.com/';
    expect(await post('/twiml?lang=en', body, { 'x-twilio-signature': signature })).toBe(200);
    expect(outcomes.at(-1)!.params).toEqual(decoded);
  });

  it('refuses an unsigned request, a tampered body, and a body that is not a form', async () => {
    publicUrl = undefined;
    const url = `http://127.0.0.1:${port}/twiml`;
    const signature = reference(TOKEN, url, Object.entries(decoded));
    expect(await post('/twiml', body, {})).toBe(403);
    expect(outcomes.at(-1)!.code).toBe('TWILIO_SIGNATURE_MISSING');
    expect(await post('/twiml', body.replace('CA42', 'CA43'), { 'x-twilio-signature': signature })).toBe(403);
    expect(outcomes.at(-1)!.code).toBe('TWILIO_SIGNATURE_MISMATCH');
    expect(await post('/twiml', body, { 'x-twilio-signature': signature, 'content-type': 'application/json' })).toBe(403);
    expect(await post('/twiml', body, { 'x-twilio-signature': signature })).toBe(200);
  });
});
