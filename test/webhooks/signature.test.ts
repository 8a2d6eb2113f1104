import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError, WebhookVerificationError } from '../../src/errors.js';
import { signWebhookPayload, verifyWebhookSignature } from '../../src/webhooks/index.js';

const SECRET = 'whsec_test_secret_value_123';
const T = 1_784_808_000;
const BODY = Buffer.from('{"event":"call.ended","session":{"id":"s_1"},"ended_reason":"user_hangup"}');

function hex(secret: string, t: string | number, body: Buffer): string {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
}

function verify(header: string | undefined, extra: Partial<Parameters<typeof verifyWebhookSignature>[0]> = {}): true {
  return verifyWebhookSignature({ payload: BODY, header, secret: SECRET, now: T, ...extra });
}

/** Runs fn, expects a WebhookVerificationError, returns its message. */
function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(WebhookVerificationError);
    return (e as Error).message;
  }
  throw new Error('expected a WebhookVerificationError');
}

const valid = `t=${T},v1=${hex(SECRET, T, BODY)}`;

describe('verifyWebhookSignature', () => {
  it('accepts a valid signature', () => {
    expect(verify(valid)).toBe(true);
  });

  it('accepts a header built by signWebhookPayload (the test-header generator)', () => {
    expect(verify(signWebhookPayload({ payload: BODY, secret: SECRET, timestamp: T }))).toBe(true);
    expect(signWebhookPayload({ payload: BODY, secret: SECRET, timestamp: T })).toBe(valid);
  });

  it('accepts when any of several v1 elements matches', () => {
    const junk = 'a'.repeat(64);
    expect(verify(`t=${T},v1=${junk},v1=${hex(SECRET, T, BODY)},v1=${'b'.repeat(64)}`)).toBe(true);
  });

  it('ignores an unknown v2 element before a valid v1', () => {
    expect(verify(`t=${T},v2=junk,v1=${hex(SECRET, T, BODY)}`)).toBe(true);
  });

  it('ignores unknown elements and elements without "="', () => {
    expect(verify(`scheme=x,t=${T},garbage,v1=${hex(SECRET, T, BODY)},v9=`)).toBe(true);
  });

  it('rejects a header with only v0 or only v2', () => {
    expect(failure(() => verify(`t=${T},v0=${hex(SECRET, T, BODY)}`))).toMatch(/no v1/);
    expect(failure(() => verify(`t=${T},v2=${hex(SECRET, T, BODY)}`))).toMatch(/no v1/);
  });

  it.each([
    ['hello', 'hello'],
    ['1e3', '1e3'],
    ['+5', '+5'],
    ['empty', ''],
    ['30 digits', '1'.repeat(30)],
    ['negative', '-5'],
    ['fractional', `${T}.5`],
  ])('rejects a malformed t (%s)', (_name, t) => {
    const msg = failure(() => verify(`t=${t},v1=${hex(SECRET, t, BODY)}`));
    expect(msg).toMatch(/t must be unix seconds/);
  });

  it('rejects a missing t and a missing header', () => {
    expect(failure(() => verify(`v1=${hex(SECRET, T, BODY)}`))).toMatch(/no t element/);
    expect(failure(() => verify(undefined))).toMatch(/Missing/);
    expect(failure(() => verify(''))).toMatch(/Missing/);
  });

  it.each([
    ['empty', ''],
    ['truncated', hex(SECRET, T, BODY).slice(0, 63)],
    ['too long', `${hex(SECRET, T, BODY)}0`],
    ['non-hex', `${hex(SECRET, T, BODY).slice(0, 63)}g`],
    ['non-ASCII', `${hex(SECRET, T, BODY).slice(0, 62)}é`],
    ['full-width digit', `${hex(SECRET, T, BODY).slice(0, 63)}１`],
  ])('rejects a malformed v1 (%s) by the format check', (_name, v1) => {
    expect(failure(() => verify(`t=${T},v1=${v1}`))).toMatch(/exactly 64 hex/);
  });

  it('handles thousands of unknown elements around a valid v1', () => {
    const noise = Array.from({ length: 3000 }, (_, i) => `x${i % 10}=1`).join(',');
    expect(verify(`${noise},t=${T},v1=${hex(SECRET, T, BODY)}`)).toBe(true);
  });

  it('refuses a header longer than any real one (thousands of v1 elements) without hashing each', () => {
    const many = Array.from({ length: 5000 }, () => `v1=${'0'.repeat(64)}`).join(',');
    expect(failure(() => verify(`t=${T},${many}`))).toMatch(/longer than/);
  });

  it.each([
    [-299, true],
    [299, true],
    [-300, true],
    [300, true],
    [-301, false],
    [301, false],
  ])('with the receiver clock offset by %i s, accepts=%s (tolerance both ways)', (offset, ok) => {
    const now = T + offset;
    if (ok) expect(verify(valid, { now })).toBe(true);
    else expect(failure(() => verify(valid, { now }))).toMatch(offset > 0 ? /old/ : /in the future/);
  });

  it('honours a custom tolerance', () => {
    expect(failure(() => verify(valid, { now: T + 11, toleranceSeconds: 10 }))).toMatch(/tolerance/);
    expect(verify(valid, { now: T + 10, toleranceSeconds: 10 })).toBe(true);
  });

  it('rejects a body with one changed byte', () => {
    const changed = Buffer.from(BODY);
    changed[10] = (changed[10] ?? 0) ^ 0x01;
    expect(failure(() => verifyWebhookSignature({ payload: changed, header: valid, secret: SECRET, now: T }))).toMatch(/does not match/);
  });

  it('rejects the wrong secret', () => {
    expect(failure(() => verify(valid, { secret: 'whsec_other' }))).toMatch(/does not match/);
  });

  it('accepts a rotated secret given as a list (old or new)', () => {
    const newSecret = 'whsec_new';
    const signedWithNew = `t=${T},v1=${hex(newSecret, T, BODY)}`;
    expect(verify(signedWithNew, { secret: [SECRET, newSecret] })).toBe(true);
    expect(verify(valid, { secret: [newSecret, SECRET] })).toBe(true);
    expect(failure(() => verify(signedWithNew, { secret: [SECRET] }))).toMatch(/does not match/);
  });

  it('verifies a body with invalid UTF-8 as bytes only', () => {
    const body = Buffer.from([0x7b, 0xff, 0xfe, 0xc3, 0x28, 0x7d]); // not valid UTF-8
    const header = `t=${T},v1=${hex(SECRET, T, body)}`;
    expect(verifyWebhookSignature({ payload: body, header, secret: SECRET, now: T })).toBe(true);
    expect(verifyWebhookSignature({ payload: new Uint8Array(body), header, secret: SECRET, now: T })).toBe(true);
    // Decoding to a string replaces the bad bytes, so the decoded text no longer verifies.
    expect(() => verifyWebhookSignature({ payload: body.toString('utf8'), header, secret: SECRET, now: T })).toThrow(
      WebhookVerificationError,
    );
  });

  it('accepts a Uint8Array view into a larger buffer (byteOffset respected)', () => {
    const big = Buffer.concat([Buffer.from('xxxx'), BODY, Buffer.from('yyyy')]);
    const view = new Uint8Array(big.buffer, big.byteOffset + 4, BODY.length);
    expect(verifyWebhookSignature({ payload: view, header: valid, secret: SECRET, now: T })).toBe(true);
  });

  it('diagnoses a parsed object passed as the body', () => {
    const msg = failure(() =>
      verifyWebhookSignature({ payload: JSON.parse(BODY.toString()) as never, header: valid, secret: SECRET, now: T }),
    );
    expect(msg).toMatch(/parsed JSON body/);
  });

  it('diagnoses whitespace around the secret', () => {
    const msg = failure(() => verify(valid, { secret: `${SECRET}\n` }));
    expect(msg).toMatch(/whitespace/);
  });

  it('error messages never contain the secret or the expected signature', () => {
    const expected = hex(SECRET, T, BODY);
    const headers = [`t=${T},v1=${'0'.repeat(64)}`, `t=${T + 1000},v1=${expected}`, `t=${T},v1=${expected.slice(0, 60)}`, 'garbage'];
    for (const header of headers) {
      for (const secret of [SECRET, ` ${SECRET} `, [SECRET, 'whsec_second']]) {
        const msg = failure(() => verifyWebhookSignature({ payload: Buffer.from('other body'), header, secret, now: T }));
        expect(msg).not.toContain(SECRET);
        expect(msg).not.toContain('whsec_second');
        expect(msg).not.toContain(hex(SECRET, T, Buffer.from('other body')));
        expect(msg).not.toContain(expected);
      }
    }
  });

  it('throws only WebhookVerificationError for bad arguments', () => {
    const cases: unknown[] = [
      undefined,
      null,
      { payload: BODY, header: valid, secret: '', now: T },
      { payload: BODY, header: valid, secret: [], now: T },
      { payload: BODY, header: valid, secret: [42], now: T },
      { payload: BODY, header: 42, secret: SECRET, now: T },
      { payload: BODY, header: valid, secret: SECRET, now: Number.NaN },
      { payload: BODY, header: valid, secret: SECRET, now: T, toleranceSeconds: -1 },
      { payload: 5, header: valid, secret: SECRET, now: T },
    ];
    for (const c of cases) failure(() => verifyWebhookSignature(c as never));
  });

  it('property: any header string gives true or a WebhookVerificationError, never another error', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.uint8Array({ maxLength: 64 }), (header, body) => {
        try {
          verifyWebhookSignature({ payload: body, header, secret: SECRET, now: T });
        } catch (e) {
          expect(e).toBeInstanceOf(WebhookVerificationError);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('property: a signed body verifies and any single-byte change does not', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 200 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (bytes, pos, flip) => {
        const body = Buffer.from(bytes);
        const header = signWebhookPayload({ payload: body, secret: SECRET, timestamp: T });
        expect(verifyWebhookSignature({ payload: body, header, secret: SECRET, now: T })).toBe(true);
        const i = pos % body.length;
        body[i] = (body[i] ?? 0) ^ flip;
        expect(() => verifyWebhookSignature({ payload: body, header, secret: SECRET, now: T })).toThrow(WebhookVerificationError);
      }),
      { numRuns: 200 },
    );
  });
});

describe('signWebhookPayload', () => {
  it('signs "{t}." + the body bytes with HMAC-SHA256, as hex', () => {
    expect(signWebhookPayload({ payload: 'abc', secret: 'k', timestamp: 5 })).toBe(`t=5,v1=${hex('k', 5, Buffer.from('abc'))}`);
  });

  it('refuses a non-integer timestamp and an empty secret', () => {
    expect(() => signWebhookPayload({ payload: 'x', secret: 'k', timestamp: 1.5 })).toThrow(/timestamp/);
    expect(() => signWebhookPayload({ payload: 'x', secret: '', timestamp: 1 })).toThrow(/secret/);
  });

  /** Runs fn, expects an InvalidOptionError, returns it. */
  function invalid(fn: () => unknown): InvalidOptionError {
    try {
      fn();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidOptionError);
      return e as InvalidOptionError;
    }
    throw new Error('expected an InvalidOptionError');
  }

  it('called without its argument (or with null) throws InvalidOptionError naming params, not a TypeError', () => {
    for (const bad of [undefined, null, 'body']) {
      const e = invalid(() => (signWebhookPayload as (p?: unknown) => string)(bad));
      expect(e.field).toBe('params');
      expect(e.message).toMatch(/\{ payload, secret, timestamp\? \}/);
    }
  });

  it('an ArrayBuffer payload is refused with a hint to wrap it in a Buffer or Uint8Array, not a JSON hint', () => {
    const e = invalid(() => signWebhookPayload({ payload: new TextEncoder().encode('abc').buffer as never, secret: 'k', timestamp: 5 }));
    expect(e.field).toBe('payload');
    expect(e.message).toMatch(/got an ArrayBuffer/);
    expect(e.message).toMatch(/Buffer\.from\(arrayBuffer\)|new Uint8Array\(arrayBuffer\)/);
    expect(e.message).not.toMatch(/JSON/);
  });

  it('a parsed object payload is refused with a hint to sign the raw body string', () => {
    const e = invalid(() => signWebhookPayload({ payload: JSON.parse(BODY.toString()) as never, secret: 'k', timestamp: 5 }));
    expect(e.field).toBe('payload');
    expect(e.message).toMatch(/got an object/);
    expect(e.message).toMatch(/sign the raw body string .*not a parsed JSON body/);
  });

  it('another typed array is refused with a hint to view the same bytes as a Uint8Array', () => {
    const e = invalid(() => signWebhookPayload({ payload: new Float32Array(2) as never, secret: 'k', timestamp: 5 }));
    expect(e.field).toBe('payload');
    expect(e.message).toMatch(/got a Float32Array: pass a Uint8Array over the same bytes/);
  });

  it('a missing or non-object payload is refused naming payload', () => {
    for (const [payload, got] of [
      [undefined, 'undefined'],
      [null, 'null'],
      [42, 'number'],
    ] as const) {
      const e = invalid(() => signWebhookPayload({ payload: payload as never, secret: 'k', timestamp: 5 }));
      expect(e.field).toBe('payload');
      expect(e.message).toContain(`got ${got}:`);
      expect(e.message).not.toMatch(/JSON/);
    }
  });

  it('a Uint8Array view is signed over its own bytes only', () => {
    const whole = Buffer.from('xxabcxx');
    expect(signWebhookPayload({ payload: new Uint8Array(whole.buffer, whole.byteOffset + 2, 3), secret: 'k', timestamp: 5 })).toBe(
      `t=5,v1=${hex('k', 5, Buffer.from('abc'))}`,
    );
  });
});
