/**
 * Per-call stream tokens: a short-lived HMAC-SHA256 credential the answer webhook puts into the
 * answer document (a Twilio/Telnyx/Exotel custom parameter, a Plivo extra header, a Vonage
 * websocket header), and the media socket checks at `start` before anything is synthesised. An
 * unauthenticated WebSocket can then not drive synthesis: it has no token, or one that is forged,
 * expired or for another call.
 *
 * Wire form: base64url (RFC 4648 §5, no padding) of
 * `version (1 byte) | expiresAt (uint64 BE, unix ms) | callId length (1 byte) | callId (UTF-8) | mac (32 bytes)`,
 * where `mac = HMAC-SHA256(secret, everything before it)`. Tokens are bound to the call id when one
 * is given, so a token copied from one call does not open another; within its lifetime a token can
 * be presented again (there is no one-time store), so keep `ttlMs` short (the provider connects
 * the stream within seconds of fetching the answer document).
 *
 * Verification is strict and total: a format check first, the comparison is constant-time over
 * the decoded MAC, and **any** failure is a {@link TelephonyAuthError} (never another type).
 *
 * @see https://www.rfc-editor.org/rfc/rfc4648#section-5 (base64url)
 * @see https://www.rfc-editor.org/rfc/rfc2104 (HMAC)
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidOptionError, TelephonyAuthError } from '../../errors.js';

/** The format version this module writes and reads. */
export const STREAM_TOKEN_VERSION = 1;
/** The custom parameter / header name the token travels under by default. */
export const STREAM_TOKEN_PARAMETER = 'vw_token';
/** HMAC-SHA256 output size (RFC 6234). */
const MAC_BYTES = 32;
/** version (1) + expiresAt (8) + callId length (1). */
const HEADER_BYTES = 10;
/** The call id length is one byte. */
export const MAX_CALL_ID_BYTES = 255;
/**
 * Shortest secret accepted: 16 bytes (128 bits), the least RFC 2104 §3 advises for a key (not
 * shorter than the hash output is ideal; 32 bytes or more is recommended).
 */
export const MIN_SECRET_BYTES = 16;
/** The longest token text that can be well formed (the longest call id); longer input is refused unread. */
export const MAX_STREAM_TOKEN_LENGTH = Math.ceil(((HEADER_BYTES + MAX_CALL_ID_BYTES + MAC_BYTES) * 4) / 3);
/** Longest lifetime accepted: one day. A stream token is meant to live seconds to minutes. */
export const MAX_TTL_MS = 24 * 60 * 60 * 1000;
const BASE64URL_PATTERN = /^[A-Za-z0-9_-]+$/;
const HEX_PATTERN = /^(?:[0-9a-fA-F]{2})+$/;

export type StreamTokenSecret = string | Uint8Array;

export interface CreateStreamTokenOptions {
  /** The HMAC key (at least 16 bytes; a string is UTF-8). Keep it on the server only. */
  secret: StreamTokenSecret;
  /** Bind the token to this call (e.g. Twilio's `CallSid`); checked at `start`. 1 to 255 UTF-8 bytes. */
  callId?: string;
  /** Lifetime in ms (1 ms … one day). */
  ttlMs: number;
  /** The issuer's clock, unix ms. */
  now: number;
}

export interface VerifyStreamTokenOptions {
  /** The key, or several during a rotation (any may match). */
  secret: StreamTokenSecret | readonly StreamTokenSecret[];
  /** The verifier's clock, unix ms. */
  now: number;
  /** When given, the token must have been issued for exactly this call. */
  callId?: string;
}

/** What a valid token says. */
export interface StreamTokenClaims {
  /** Unix ms after which the token is refused. */
  expiresAt: number;
  /** The call the token was issued for, when it was bound to one. */
  callId?: string;
}

function secretBytes(secret: unknown, field: string): Buffer {
  let bytes: Buffer;
  if (typeof secret === 'string') bytes = Buffer.from(secret, 'utf8');
  else if (secret instanceof Uint8Array) bytes = Buffer.from(secret.buffer, secret.byteOffset, secret.byteLength);
  else throw new InvalidOptionError(field, `${field} must be a string or Uint8Array`);
  if (bytes.length < MIN_SECRET_BYTES) {
    throw new InvalidOptionError(field, `${field} must be at least ${MIN_SECRET_BYTES} bytes (got ${bytes.length})`);
  }
  return bytes;
}

/** A call id is a non-empty string (an empty one would read back as "not bound"). */
function checkCallId(callId: unknown): void {
  if (callId !== undefined && (typeof callId !== 'string' || callId === '')) {
    throw new InvalidOptionError('callId', 'callId must be a non-empty string (omit it for a token not bound to a call)');
  }
}

function mac(key: Buffer, body: Buffer): Buffer {
  return createHmac('sha256', key).update(body).digest();
}

function checkClock(now: unknown, field: string): number {
  if (typeof now !== 'number' || !Number.isSafeInteger(now) || now < 0) {
    throw new InvalidOptionError(field, `${field} must be unix milliseconds (a non-negative integer)`);
  }
  return now;
}

/**
 * Issues a token for one stream.
 *
 * @example
 * const token = createStreamToken({ secret, callId: params.get('CallSid') ?? undefined, ttlMs: 60_000, now: Date.now() });
 */
export function createStreamToken(options: CreateStreamTokenOptions): string {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError('options', 'createStreamToken takes { secret, callId?, ttlMs, now }');
  }
  const key = secretBytes(options.secret, 'secret');
  const now = checkClock(options.now, 'now');
  const { ttlMs } = options;
  if (typeof ttlMs !== 'number' || !Number.isSafeInteger(ttlMs) || ttlMs < 1 || ttlMs > MAX_TTL_MS) {
    throw new InvalidOptionError('ttlMs', `ttlMs must be an integer from 1 to ${MAX_TTL_MS} ms`);
  }
  checkCallId(options.callId);
  const callId = options.callId === undefined ? Buffer.alloc(0) : Buffer.from(options.callId, 'utf8');
  if (callId.length > MAX_CALL_ID_BYTES) {
    throw new InvalidOptionError('callId', `callId must be at most ${MAX_CALL_ID_BYTES} UTF-8 bytes (got ${callId.length})`);
  }
  const body = Buffer.alloc(HEADER_BYTES + callId.length);
  body.writeUInt8(STREAM_TOKEN_VERSION, 0);
  body.writeBigUInt64BE(BigInt(now + ttlMs), 1);
  body.writeUInt8(callId.length, HEADER_BYTES - 1);
  callId.copy(body, HEADER_BYTES);
  return Buffer.concat([body, mac(key, body)]).toString('base64url');
}

function malformed(message: string): TelephonyAuthError {
  return new TelephonyAuthError('STREAM_TOKEN_MALFORMED', message, { field: 'token' });
}

interface DecodedToken {
  body: Buffer;
  tag: Buffer;
  expiresAt: number;
  callId: Buffer | null;
}

function decode(token: unknown): DecodedToken {
  if (typeof token !== 'string') throw malformed('Stream token must be a string');
  if (token.length === 0) throw new TelephonyAuthError('STREAM_TOKEN_MISSING', 'Stream token is empty', { field: 'token' });
  if (token.length > MAX_STREAM_TOKEN_LENGTH) throw malformed(`Stream token is longer than ${MAX_STREAM_TOKEN_LENGTH} characters`);
  if (!BASE64URL_PATTERN.test(token) || token.length % 4 === 1) throw malformed('Stream token is not base64url');
  const bytes = Buffer.from(token, 'base64url');
  // Canonical form only: re-encoding must give the same text (no stray trailing bits).
  if (bytes.toString('base64url') !== token) throw malformed('Stream token is not canonical base64url');
  if (bytes.length < HEADER_BYTES + MAC_BYTES) throw malformed('Stream token is too short');
  const version = bytes.readUInt8(0);
  if (version !== STREAM_TOKEN_VERSION)
    throw malformed(`Stream token version ${version} is not supported (expected ${STREAM_TOKEN_VERSION})`);
  const callIdLength = bytes.readUInt8(HEADER_BYTES - 1);
  if (bytes.length !== HEADER_BYTES + callIdLength + MAC_BYTES) throw malformed('Stream token length does not match its call id length');
  const expires = bytes.readBigUInt64BE(1);
  if (expires > BigInt(Number.MAX_SAFE_INTEGER)) throw malformed('Stream token expiry is out of range');
  const bodyEnd = HEADER_BYTES + callIdLength;
  return {
    body: bytes.subarray(0, bodyEnd),
    tag: bytes.subarray(bodyEnd),
    expiresAt: Number(expires),
    callId: callIdLength === 0 ? null : bytes.subarray(HEADER_BYTES, bodyEnd),
  };
}

function verifyOrThrow(token: unknown, options: VerifyStreamTokenOptions): StreamTokenClaims {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError('options', 'verifyStreamToken takes (token, { secret, now, callId? })');
  }
  const list: readonly unknown[] = Array.isArray(options.secret) ? options.secret : [options.secret];
  if (list.length === 0) throw new InvalidOptionError('secret', 'secret list is empty');
  const keys = list.map((s) => secretBytes(s, 'secret'));
  const now = checkClock(options.now, 'now');
  checkCallId(options.callId);
  const decoded = decode(token);
  let matched = false;
  for (const key of keys) {
    // Every key is tried (no early exit), so timing does not tell which one matched.
    if (timingSafeEqual(mac(key, decoded.body), decoded.tag)) matched = true;
  }
  if (!matched)
    throw new TelephonyAuthError('STREAM_TOKEN_INVALID', 'Stream token signature does not match (forged, or another secret)', {
      field: 'token',
    });
  const callId = decoded.callId === null ? undefined : decoded.callId.toString('utf8');
  if (options.callId !== undefined && callId !== options.callId) {
    throw new TelephonyAuthError(
      'STREAM_TOKEN_INVALID',
      callId === undefined ? 'Stream token is not bound to a call, but this call requires one' : 'Stream token was issued for another call',
      { field: 'token' },
    );
  }
  if (now >= decoded.expiresAt) {
    throw new TelephonyAuthError('STREAM_TOKEN_EXPIRED', `Stream token expired ${now - decoded.expiresAt} ms ago`, { field: 'token' });
  }
  return callId === undefined ? { expiresAt: decoded.expiresAt } : { expiresAt: decoded.expiresAt, callId };
}

/**
 * Checks a token; returns what it says, or throws a {@link TelephonyAuthError}:
 * `STREAM_TOKEN_MISSING` (empty), `STREAM_TOKEN_MALFORMED` (not a token of this format),
 * `STREAM_TOKEN_INVALID` (forged, another secret, or another call), `STREAM_TOKEN_EXPIRED`.
 * Bad options (a short secret, a non-integer `now`) throw `InvalidOptionError`.
 *
 * @example
 * verifyStreamToken(start.customParameters[STREAM_TOKEN_PARAMETER], { secret, now: Date.now(), callId: start.callSid });
 */
export function verifyStreamToken(token: string | undefined, options: VerifyStreamTokenOptions): StreamTokenClaims {
  try {
    return verifyOrThrow(token, options);
  } catch (e) {
    if (e instanceof TelephonyAuthError || e instanceof InvalidOptionError) throw e;
    // Anything unexpected still surfaces as the one documented type, without its details.
    throw malformed('Stream token could not be read');
  }
}

/**
 * Finds the token among a `start` message's custom parameters (or a socket's headers) and
 * verifies it: `STREAM_TOKEN_MISSING` when it is absent.
 */
export function verifyStreamTokenParameter(
  parameters: Readonly<Record<string, string | undefined>>,
  options: VerifyStreamTokenOptions & { name?: string },
): StreamTokenClaims {
  const name = options.name ?? STREAM_TOKEN_PARAMETER;
  const token = typeof parameters === 'object' && parameters !== null && Object.hasOwn(parameters, name) ? parameters[name] : undefined;
  if (token === undefined || token === '') {
    throw new TelephonyAuthError('STREAM_TOKEN_MISSING', `No stream token (parameter ${JSON.stringify(name)})`, { field: name });
  }
  return verifyStreamToken(token, options);
}

/**
 * The same token as hex, for carriers that only take `[A-Za-z0-9]` (Plivo's `extraHeaders`).
 * Throws `STREAM_TOKEN_MALFORMED` for a string that is not a token's base64url.
 */
export function streamTokenToHex(token: string): string {
  if (typeof token !== 'string' || !BASE64URL_PATTERN.test(token) || token.length > MAX_STREAM_TOKEN_LENGTH) {
    throw malformed('Stream token is not base64url');
  }
  return Buffer.from(token, 'base64url').toString('hex');
}

/** Back from {@link streamTokenToHex}; throws `STREAM_TOKEN_MALFORMED` for anything but whole hex bytes. */
export function streamTokenFromHex(hex: string): string {
  if (typeof hex !== 'string' || hex.length > MAX_STREAM_TOKEN_LENGTH * 2 || !HEX_PATTERN.test(hex)) {
    throw malformed('Stream token is not hex');
  }
  return Buffer.from(hex, 'hex').toString('base64url');
}
