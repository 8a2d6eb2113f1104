/**
 * Per-call stream tokens: issued and verified on an injected clock, bound to a call, refused when
 * expired, forged, tampered with or malformed, and never failing with anything but the typed
 * error. Expected MACs are recomputed here with node:crypto from the documented layout.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError, TelephonyAuthError, type ErrorCode } from '../../../src/errors.js';
import {
  MAX_STREAM_TOKEN_LENGTH,
  createStreamToken,
  streamTokenFromHex,
  streamTokenToHex,
  verifyStreamToken,
  verifyStreamTokenParameter,
} from '../../../src/telephony/auth/index.js';

const SECRET = 'stream-token-secret-0123456789ab';
const OTHER = 'another-secret-of-enough-length!';
const T0 = 1_764_331_200_000; // 2025-11-28T12:00:00Z, unix ms

function codeOf(f: () => unknown): ErrorCode | 'none' | 'other' {
  try {
    f();
    return 'none';
  } catch (e) {
    return e instanceof TelephonyAuthError ? e.code : 'other';
  }
}

/** The documented layout, built here independently of the module. */
function handMade(secret: string, expiresAt: number, callId: string, version = 1): string {
  const id = Buffer.from(callId, 'utf8');
  const body = Buffer.alloc(10 + id.length);
  body[0] = version;
  body.writeBigUInt64BE(BigInt(expiresAt), 1);
  body[9] = id.length;
  id.copy(body, 10);
  return Buffer.concat([body, createHmac('sha256', secret).update(body).digest()]).toString('base64url');
}

describe('stream tokens', () => {
  it('is exactly the documented layout: base64url of version, expiry, call id and HMAC-SHA256', () => {
    const token = createStreamToken({ secret: SECRET, callId: 'CA123', ttlMs: 30_000, now: T0 });
    expect(token).toBe(handMade(SECRET, T0 + 30_000, 'CA123'));
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('verifies until it expires, and says for which call', () => {
    const token = createStreamToken({ secret: SECRET, callId: 'CA123', ttlMs: 30_000, now: T0 });
    expect(verifyStreamToken(token, { secret: SECRET, now: T0, callId: 'CA123' })).toEqual({ expiresAt: T0 + 30_000, callId: 'CA123' });
    expect(verifyStreamToken(token, { secret: SECRET, now: T0 + 29_999 })).toEqual({ expiresAt: T0 + 30_000, callId: 'CA123' });
    expect(codeOf(() => verifyStreamToken(token, { secret: SECRET, now: T0 + 30_000, callId: 'CA123' }))).toBe('STREAM_TOKEN_EXPIRED');
  });

  it('a token for one call does not open another, nor does an unbound one when a call is required', () => {
    const token = createStreamToken({ secret: SECRET, callId: 'CA123', ttlMs: 30_000, now: T0 });
    expect(codeOf(() => verifyStreamToken(token, { secret: SECRET, now: T0, callId: 'CA999' }))).toBe('STREAM_TOKEN_INVALID');
    const unbound = createStreamToken({ secret: SECRET, ttlMs: 30_000, now: T0 });
    expect(verifyStreamToken(unbound, { secret: SECRET, now: T0 })).toEqual({ expiresAt: T0 + 30_000 });
    expect(codeOf(() => verifyStreamToken(unbound, { secret: SECRET, now: T0, callId: 'CA123' }))).toBe('STREAM_TOKEN_INVALID');
  });

  it('refuses a token signed with another secret, and takes any of several during a rotation', () => {
    const token = createStreamToken({ secret: OTHER, callId: 'CA1', ttlMs: 1_000, now: T0 });
    expect(codeOf(() => verifyStreamToken(token, { secret: SECRET, now: T0 }))).toBe('STREAM_TOKEN_INVALID');
    expect(verifyStreamToken(token, { secret: [SECRET, OTHER], now: T0 }).callId).toBe('CA1');
  });

  it('every single-bit change of a token is refused', () => {
    const token = createStreamToken({ secret: SECRET, callId: 'CA123', ttlMs: 30_000, now: T0 });
    const bytes = Buffer.from(token, 'base64url');
    for (let bit = 0; bit < bytes.length * 8; bit++) {
      const copy = Buffer.from(bytes);
      copy[bit >> 3]! ^= 1 << (bit & 7);
      const code = codeOf(() => verifyStreamToken(copy.toString('base64url'), { secret: SECRET, now: T0, callId: 'CA123' }));
      expect(['STREAM_TOKEN_INVALID', 'STREAM_TOKEN_MALFORMED']).toContain(code);
    }
  });

  it('an extended expiry with the old MAC is a forgery, not a longer token', () => {
    const token = createStreamToken({ secret: SECRET, callId: 'CA1', ttlMs: 1_000, now: T0 });
    const bytes = Buffer.from(token, 'base64url');
    bytes.writeBigUInt64BE(BigInt(T0 + 3_600_000), 1);
    expect(codeOf(() => verifyStreamToken(bytes.toString('base64url'), { secret: SECRET, now: T0 + 2_000 }))).toBe('STREAM_TOKEN_INVALID');
  });

  it.each([
    ['', 'STREAM_TOKEN_MISSING'],
    ['not a token!', 'STREAM_TOKEN_MALFORMED'],
    ['AAAA', 'STREAM_TOKEN_MALFORMED'],
    ['A', 'STREAM_TOKEN_MALFORMED'],
    ['x'.repeat(MAX_STREAM_TOKEN_LENGTH + 1), 'STREAM_TOKEN_MALFORMED'],
  ] as const)('the token %j is refused as %s', (token, code) => {
    expect(codeOf(() => verifyStreamToken(token, { secret: SECRET, now: T0 }))).toBe(code);
  });

  it('a token of an unknown version or a wrong length is malformed', () => {
    expect(codeOf(() => verifyStreamToken(handMade(SECRET, T0 + 1, 'c', 2), { secret: SECRET, now: T0 }))).toBe('STREAM_TOKEN_MALFORMED');
    const good = Buffer.from(createStreamToken({ secret: SECRET, callId: 'c', ttlMs: 1, now: T0 }), 'base64url');
    expect(codeOf(() => verifyStreamToken(good.subarray(0, -1).toString('base64url'), { secret: SECRET, now: T0 }))).toBe(
      'STREAM_TOKEN_MALFORMED',
    );
    expect(codeOf(() => verifyStreamToken(Buffer.concat([good, Buffer.of(0)]).toString('base64url'), { secret: SECRET, now: T0 }))).toBe(
      'STREAM_TOKEN_MALFORMED',
    );
  });

  it('non-string tokens are malformed, not a TypeError', () => {
    for (const bad of [undefined, null, 42, {}, ['a'], Buffer.from('x')]) {
      const code = codeOf(() => verifyStreamToken(bad as never, { secret: SECRET, now: T0 }));
      expect(['STREAM_TOKEN_MALFORMED', 'STREAM_TOKEN_MISSING']).toContain(code);
    }
  });

  it('any string is either a valid token or a typed refusal, never another error', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 200 }),
          fc.base64String({ maxLength: 200 }),
          fc.stringMatching(/^[A-Za-z0-9_-]{0,120}$/),
        ),
        (s) => {
          const code = codeOf(() => verifyStreamToken(s, { secret: SECRET, now: T0 }));
          expect(['STREAM_TOKEN_MISSING', 'STREAM_TOKEN_MALFORMED', 'STREAM_TOKEN_INVALID']).toContain(code);
        },
      ),
    );
  });

  it('any mutation of real token bytes is refused with a typed error', () => {
    const token = Buffer.from(createStreamToken({ secret: SECRET, callId: 'CA-abc', ttlMs: 60_000, now: T0 }), 'base64url');
    fc.assert(
      fc.property(fc.nat(token.length - 1), fc.integer({ min: 1, max: 255 }), fc.integer({ min: -8, max: 8 }), (at, xor, grow) => {
        const copy = Buffer.from(token);
        copy[at]! ^= xor;
        const changed = grow >= 0 ? Buffer.concat([copy, Buffer.alloc(grow, 7)]) : copy.subarray(0, copy.length + grow);
        const code = codeOf(() => verifyStreamToken(changed.toString('base64url'), { secret: SECRET, now: T0 }));
        expect(['STREAM_TOKEN_MALFORMED', 'STREAM_TOKEN_INVALID']).toContain(code);
      }),
    );
  });

  it('round-trips any call id up to 255 UTF-8 bytes and refuses a longer one', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 86_400_000 }),
        (callId, ttlMs) => {
          fc.pre(Buffer.byteLength(callId) <= 255);
          const token = createStreamToken({ secret: SECRET, callId, ttlMs, now: T0 });
          const claims = verifyStreamToken(token, { secret: SECRET, now: T0 + ttlMs - 1, callId });
          expect(claims.expiresAt).toBe(T0 + ttlMs);
        },
      ),
    );
    expect(() => createStreamToken({ secret: SECRET, callId: 'x'.repeat(256), ttlMs: 1, now: T0 })).toThrow(InvalidOptionError);
  });

  it('refuses bad options with InvalidOptionError naming the option', () => {
    const field = (f: () => unknown): string | undefined => {
      try {
        f();
      } catch (e) {
        return e instanceof InvalidOptionError ? e.field : 'other';
      }
      return undefined;
    };
    expect(field(() => createStreamToken({ secret: 'short', ttlMs: 1, now: T0 }))).toBe('secret');
    expect(field(() => createStreamToken({ secret: SECRET, ttlMs: 0, now: T0 }))).toBe('ttlMs');
    expect(field(() => createStreamToken({ secret: SECRET, ttlMs: 1.5, now: T0 }))).toBe('ttlMs');
    expect(field(() => createStreamToken({ secret: SECRET, ttlMs: 1, now: Number.NaN }))).toBe('now');
    expect(field(() => createStreamToken({ secret: SECRET, callId: '', ttlMs: 1, now: T0 }))).toBe('callId');
    expect(field(() => verifyStreamToken('x', { secret: SECRET, now: T0, callId: '' }))).toBe('callId');
    expect(field(() => verifyStreamToken('x', { secret: [], now: T0 }))).toBe('secret');
    expect(field(() => verifyStreamToken('x', { secret: SECRET, now: -1 }))).toBe('now');
  });

  it('the parameter helper finds the token, and says when there is none', () => {
    const token = createStreamToken({ secret: SECRET, callId: 'CA1', ttlMs: 1_000, now: T0 });
    expect(verifyStreamTokenParameter({ vw_token: token }, { secret: SECRET, now: T0, callId: 'CA1' }).callId).toBe('CA1');
    expect(verifyStreamTokenParameter({ auth: token }, { secret: SECRET, now: T0, name: 'auth' }).callId).toBe('CA1');
    expect(codeOf(() => verifyStreamTokenParameter({}, { secret: SECRET, now: T0 }))).toBe('STREAM_TOKEN_MISSING');
    expect(codeOf(() => verifyStreamTokenParameter({ vw_token: '' }, { secret: SECRET, now: T0 }))).toBe('STREAM_TOKEN_MISSING');
    // An inherited property is not a parameter the peer sent.
    expect(codeOf(() => verifyStreamTokenParameter({}, { secret: SECRET, now: T0, name: 'toString' }))).toBe('STREAM_TOKEN_MISSING');
  });

  it('hex form (for Plivo) is the same bytes, and malformed hex is a typed refusal', () => {
    const token = createStreamToken({ secret: SECRET, callId: 'CA1', ttlMs: 1_000, now: T0 });
    const hex = streamTokenToHex(token);
    expect(hex).toBe(Buffer.from(token, 'base64url').toString('hex'));
    expect(hex).toMatch(/^[0-9a-f]+$/);
    expect(streamTokenFromHex(hex)).toBe(token);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (s) => {
        const code = codeOf(() => streamTokenFromHex(s));
        expect(['none', 'STREAM_TOKEN_MALFORMED']).toContain(code);
      }),
    );
    expect(codeOf(() => streamTokenFromHex('abc'))).toBe('STREAM_TOKEN_MALFORMED');
    expect(codeOf(() => streamTokenToHex('not base64url!'))).toBe('STREAM_TOKEN_MALFORMED');
  });

  it('messages never echo the secret or the token', () => {
    const token = createStreamToken({ secret: SECRET, callId: 'CA1', ttlMs: 1_000, now: T0 });
    for (const f of [
      () => verifyStreamToken(token, { secret: OTHER, now: T0 }),
      () => verifyStreamToken(token, { secret: SECRET, now: T0 + 5_000 }),
      () => verifyStreamToken(`${token}x`, { secret: SECRET, now: T0 }),
    ]) {
      try {
        f();
        expect.unreachable();
      } catch (e) {
        expect((e as Error).message).not.toContain(SECRET);
        expect((e as Error).message).not.toContain(OTHER);
        expect((e as Error).message).not.toContain(token.slice(0, 16));
      }
    }
  });
});
