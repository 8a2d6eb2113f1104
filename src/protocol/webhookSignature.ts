/**
 * Webhook signatures: `t=<unix seconds>,v1=<hex HMAC-SHA256 over "{t}." + raw body bytes>`.
 *
 * Verification is small and strict:
 * - the body is taken as **bytes** (a string is UTF-8 encoded; never pass a re-serialized object);
 * - a strict format check first (`t` all digits, `v1` exactly 64 hex characters);
 * - unknown elements (a future `v2`) are ignored, and any `v1` may match;
 * - the tolerance applies in both directions;
 * - the comparison is constant-time, on the decoded 32 bytes;
 * - messages diagnose likely mistakes and never echo a secret or the expected signature;
 * - **any** failure is a `WebhookVerificationError`, never another error type.
 *
 * @see docs/service-interface.md#authentication-and-webhook-signatures (rules 2–4)
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidOptionError, WebhookVerificationError } from '../errors.js';

/** The header the real service sends (configurable wherever a header name is taken). */
export const DEFAULT_SIGNATURE_HEADER = 'X-Fish-Webhook-Signature';
/** Spec: reject when `t` is more than 5 minutes from the receiver's clock. */
export const DEFAULT_TOLERANCE_SECONDS = 300;
/**
 * Longest header we parse. Node's default `--max-http-header-size` is 16 KiB for all headers
 * together, so a longer one cannot be genuine; refusing it bounds the work per request.
 */
export const MAX_SIGNATURE_HEADER_LENGTH = 16 * 1024;
/** `t` longer than this many digits is not a plausible unix time (and not a safe integer). */
const MAX_TIMESTAMP_DIGITS = 15;
const SHA256_HEX_LENGTH = 64;
const TIMESTAMP_PATTERN = /^\d+$/;
const V1_PATTERN = /^[0-9a-fA-F]{64}$/;

export type WebhookPayload = Buffer | Uint8Array | string;

/** Why a verification failed: `malformed` (400 material) or `rejected` (401 material). */
export type VerificationFailureKind = 'malformed' | 'rejected';

/** A verification error that also says whether the input was malformed or just wrong. */
export class SignatureCheckError extends WebhookVerificationError {
  readonly kind: VerificationFailureKind;
  constructor(kind: VerificationFailureKind, message: string) {
    super(message);
    this.kind = kind;
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyWebhookSignatureParams {
  /** The raw request body, exactly as received. */
  payload: WebhookPayload;
  /** The signature header's value. */
  header: string | undefined | null;
  /** The endpoint's secret, or several during a rotation (any may match). */
  secret: string | readonly string[];
  /** @defaultValue 300 */
  toleranceSeconds?: number;
  /** The receiver's clock in unix seconds. @defaultValue `Date.now() / 1000` */
  now?: number;
}

export interface SignWebhookPayloadParams {
  payload: WebhookPayload;
  secret: string;
  /** Unix seconds. @defaultValue now */
  timestamp?: number;
}

function payloadBytes(payload: unknown): Buffer {
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (Buffer.isBuffer(payload)) return payload;
  if (payload instanceof Uint8Array) return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const what = payload === null ? 'null' : Array.isArray(payload) ? 'an array' : typeof payload;
  const hint =
    typeof payload === 'object' && payload !== null
      ? ' It looks like a parsed JSON body: ' +
        'verify the raw bytes before JSON parsing (e.g. express.raw(), or read the request stream yourself); ' +
        're-serializing changes the bytes.'
      : '';
  throw new SignatureCheckError('malformed', `Webhook payload must be the raw body (Buffer, Uint8Array or string), got ${what}.${hint}`);
}

function hmac(secret: string, timestamp: string, body: Buffer): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(body).digest();
}

function secretsOf(secret: unknown): string[] {
  const list = Array.isArray(secret) ? secret : [secret];
  if (list.length === 0) throw new SignatureCheckError('malformed', 'No webhook secret configured (empty list)');
  for (const s of list) {
    if (typeof s !== 'string' || s.length === 0) {
      throw new SignatureCheckError('malformed', 'Webhook secret must be a non-empty string (or a list of them)');
    }
  }
  return list as string[];
}

interface ParsedHeader {
  timestamp: string;
  signatures: Buffer[];
  malformedV1: number;
}

function parseHeader(header: unknown): ParsedHeader {
  if (header === undefined || header === null || header === '') {
    throw new SignatureCheckError('malformed', 'Missing webhook signature header');
  }
  if (typeof header !== 'string') throw new SignatureCheckError('malformed', 'Webhook signature header must be a string');
  if (header.length > MAX_SIGNATURE_HEADER_LENGTH) {
    throw new SignatureCheckError('malformed', `Webhook signature header is longer than ${MAX_SIGNATURE_HEADER_LENGTH} characters`);
  }
  let timestamp: string | undefined;
  const signatures: Buffer[] = [];
  let malformedV1 = 0;
  for (const element of header.split(',')) {
    const eq = element.indexOf('=');
    if (eq < 0) continue; // not key=value: an unknown element, ignored
    const key = element.slice(0, eq).trim();
    const value = element.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined && timestamp !== value) {
        throw new SignatureCheckError('malformed', 'Webhook signature header has several different t elements');
      }
      timestamp = value;
    } else if (key === 'v1') {
      if (V1_PATTERN.test(value)) signatures.push(Buffer.from(value, 'hex'));
      else malformedV1++;
    }
  }
  if (timestamp === undefined) throw new SignatureCheckError('malformed', 'Webhook signature header has no t element');
  if (!TIMESTAMP_PATTERN.test(timestamp) || timestamp.length > MAX_TIMESTAMP_DIGITS) {
    throw new SignatureCheckError('malformed', 'Webhook signature t must be unix seconds (digits only)');
  }
  if (signatures.length === 0) {
    throw new SignatureCheckError(
      'malformed',
      malformedV1 > 0
        ? `Webhook signature v1 must be exactly ${SHA256_HEX_LENGTH} hex characters`
        : 'Webhook signature header has no v1 element (only unknown schemes)',
    );
  }
  return { timestamp, signatures, malformedV1 };
}

function verifyOrThrow(params: VerifyWebhookSignatureParams): true {
  if (typeof params !== 'object' || params === null) {
    throw new SignatureCheckError('malformed', 'verifyWebhookSignature takes { payload, header, secret }');
  }
  const body = payloadBytes(params.payload);
  const secrets = secretsOf(params.secret);
  const tolerance = params.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== 'number' || !(tolerance >= 0)) {
    throw new SignatureCheckError('malformed', 'toleranceSeconds must be a non-negative number');
  }
  const now = params.now ?? Date.now() / 1000;
  if (typeof now !== 'number' || !Number.isFinite(now)) {
    throw new SignatureCheckError('malformed', 'now must be unix seconds (a finite number)');
  }
  const { timestamp, signatures } = parseHeader(params.header);
  const age = now - Number(timestamp);
  if (Math.abs(age) > tolerance) {
    throw new SignatureCheckError(
      'rejected',
      `Webhook timestamp is ${Math.round(Math.abs(age))} s ${age > 0 ? 'old' : 'in the future'},` +
        ` beyond the ${tolerance} s tolerance (check the receiver's clock, or a replay)`,
    );
  }
  let matched = false;
  for (const secret of secrets) {
    const expected = hmac(secret, timestamp, body);
    for (const candidate of signatures) {
      // Every comparison runs (no early exit) so timing does not tell which one matched.
      if (timingSafeEqual(expected, candidate)) matched = true;
    }
  }
  if (matched) return true;
  const hints: string[] = [];
  if (secrets.some((s) => s !== s.trim())) hints.push('the configured secret has leading or trailing whitespace (check how it is loaded)');
  if (typeof params.payload === 'string')
    hints.push('the body was passed as a string: pass the raw bytes if it was decoded or re-serialized');
  throw new SignatureCheckError(
    'rejected',
    `Webhook signature does not match${hints.length ? `; likely cause: ${hints.join('; ')}` : ' (wrong secret, or the body was changed)'}`,
  );
}

/**
 * Verifies a webhook signature; returns `true`, or throws `WebhookVerificationError` on any
 * failure (a malformed header, a stale or future timestamp, no matching `v1`, bad arguments).
 *
 * @example
 * verifyWebhookSignature({ payload: rawBody, header: req.headers['x-fish-webhook-signature'], secret });
 */
export function verifyWebhookSignature(params: VerifyWebhookSignatureParams): true {
  try {
    return verifyOrThrow(params);
  } catch (e) {
    if (e instanceof WebhookVerificationError) throw e;
    // Anything unexpected still surfaces as the one documented type, without its details.
    throw new SignatureCheckError('malformed', 'Webhook signature could not be verified');
  }
}

/**
 * Builds a signature header value, e.g. for tests of your receiver or for a local sender.
 * Bad arguments throw `InvalidOptionError` naming the one at fault (`params`, `payload`,
 * `secret`, `timestamp`), with a hint that fits what was passed.
 *
 * @example
 * const header = signWebhookPayload({ payload: body, secret, timestamp: Math.floor(Date.now() / 1000) });
 */
export function signWebhookPayload(params: SignWebhookPayloadParams): string {
  if (typeof params !== 'object' || params === null) {
    throw new InvalidOptionError(
      'params',
      `signWebhookPayload takes { payload, secret, timestamp? }, got ${params === null ? 'null' : typeof params}`,
    );
  }
  const timestamp = params.timestamp ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new InvalidOptionError('timestamp', 'timestamp must be non-negative integer unix seconds');
  }
  if (typeof params.secret !== 'string' || params.secret.length === 0) {
    throw new InvalidOptionError('secret', 'secret must be a non-empty string');
  }
  // The signature covers the exact bytes sent: only those forms are taken, and the hint says how
  // to get there from what was passed (the receiver verifies bytes, never a re-serialized object).
  const payload: unknown = params.payload;
  if (typeof payload !== 'string' && !(payload instanceof Uint8Array)) {
    let got: string;
    let hint: string;
    if (payload instanceof ArrayBuffer || payload instanceof SharedArrayBuffer) {
      got = `an ${payload.constructor.name}`;
      hint = 'wrap it: pass Buffer.from(arrayBuffer) or new Uint8Array(arrayBuffer)';
    } else if (ArrayBuffer.isView(payload)) {
      got = `a ${payload.constructor.name}`;
      hint = 'pass a Uint8Array over the same bytes: new Uint8Array(view.buffer, view.byteOffset, view.byteLength)';
    } else if (typeof payload === 'object' && payload !== null) {
      got = Array.isArray(payload) ? 'an array' : 'an object';
      hint =
        'sign the raw body string you send (serialize once, e.g. JSON.stringify(body), and send that same string), not a parsed JSON body';
    } else {
      got = payload === null ? 'null' : typeof payload;
      hint = 'pass the body you send';
    }
    throw new InvalidOptionError(
      'payload',
      `payload must be the exact body bytes you send (a string, Buffer or Uint8Array), got ${got}: ${hint}`,
    );
  }
  return `t=${timestamp},v1=${hmac(params.secret, String(timestamp), payloadBytes(payload)).toString('hex')}`;
}
