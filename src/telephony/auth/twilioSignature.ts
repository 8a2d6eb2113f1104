/**
 * `X-Twilio-Signature` on Twilio's voice webhooks (the answer webhook that fetches TwiML).
 *
 * From Twilio's public documentation: the signature is the base64 of an HMAC-SHA1, keyed with the
 * account's auth token, over the full URL Twilio requested (scheme, host, path, query) followed,
 * for a POST, by every form parameter sorted by name (case-sensitive, byte order), each written
 * as its name immediately followed by its value, with no separators. Twilio signs the decoded
 * values. Twilio's own helper libraries also accept the URL with the scheme's default port added
 * or removed (a proxy or Twilio may add or drop `:443`), and so does this check.
 *
 * Verification is strict and total: a format check first (28 characters of base64 for the 20
 * bytes of SHA-1), a constant-time comparison on the decoded bytes, messages that never echo the
 * auth token or a signature, and **any** failure is a {@link TelephonyAuthError}.
 *
 * JSON-bodied webhooks (`bodySHA256` in the query) are not covered: the answer webhook is a form.
 *
 * @see https://www.twilio.com/docs/usage/webhooks/webhooks-security (Authenticate with signatures)
 * @see https://www.twilio.com/docs/usage/security#validating-requests
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidOptionError, TelephonyAuthError } from '../../errors.js';

/** The header Twilio sends (node:http lower-cases header names). */
export const TWILIO_SIGNATURE_HEADER = 'x-twilio-signature';
/** SHA-1 output size (RFC 3174). */
const SHA1_BYTES = 20;
/** base64 of 20 bytes: 28 characters, ending in one `=`. */
const SIGNATURE_PATTERN = /^[A-Za-z0-9+/]{27}=$/;
/** Default ports a URL may carry or omit without changing where it points (RFC 9110 §4.2). */
const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'https:': '443', 'http:': '80' };

/** POST parameters as they were received: a URLSearchParams (repeated names kept) or a record. */
export type TwilioParams = URLSearchParams | Readonly<Record<string, string | readonly string[]>>;

export interface TwilioSignatureInput {
  /** The account's auth token (the HMAC key). */
  authToken: string;
  /** The full URL Twilio requested, exactly as configured (scheme, host, path, query). */
  url: string;
  /** The POST parameters (decoded); omit for a GET. */
  params?: TwilioParams;
}

export interface VerifyTwilioSignatureInput extends Omit<TwilioSignatureInput, 'authToken'> {
  /** The auth token, or the primary and secondary during a rotation (any may match). */
  authToken: string | readonly string[];
  /** The `X-Twilio-Signature` header's value. */
  signature: string | readonly string[] | undefined | null;
}

/** Name/value pairs sorted by name (UTF-16 code units = byte order for ASCII), then by value for repeats. */
function sortedPairs(params: TwilioParams | undefined): [string, string][] {
  const pairs: [string, string][] = [];
  if (params === undefined) return pairs;
  if (params instanceof URLSearchParams) {
    for (const [k, v] of params) pairs.push([k, v]);
  } else {
    for (const [k, v] of Object.entries(params)) {
      if (typeof v === 'string') pairs.push([k, v]);
      else if (Array.isArray(v)) for (const one of v as readonly unknown[]) pairs.push([k, String(one)]);
      else throw new InvalidOptionError(`params.${k}`, `params.${k} must be a string or a list of strings`);
    }
  }
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return pairs.sort((a, b) => cmp(a[0], b[0]) || cmp(a[1], b[1]));
}

function hmac(authToken: string, url: string, pairs: readonly [string, string][]): Buffer {
  const h = createHmac('sha1', authToken).update(url, 'utf8');
  for (const [k, v] of pairs) h.update(k, 'utf8').update(v, 'utf8');
  return h.digest();
}

function checkToken(token: unknown): string {
  if (typeof token !== 'string' || token.length === 0) throw new InvalidOptionError('authToken', 'authToken must be a non-empty string');
  return token;
}

/**
 * The signature Twilio would send for this request: for tests of your webhook, and for a local
 * sender. @example
 * const signature = computeTwilioSignature({ authToken, url: 'https://example.com/twiml', params: { CallSid: 'CA1' } });
 */
export function computeTwilioSignature(input: TwilioSignatureInput): string {
  if (typeof input !== 'object' || input === null)
    throw new InvalidOptionError('input', 'computeTwilioSignature takes { authToken, url, params? }');
  const token = checkToken(input.authToken);
  if (typeof input.url !== 'string' || input.url === '') throw new InvalidOptionError('url', 'url must be the full URL Twilio requested');
  return hmac(token, input.url, sortedPairs(input.params)).toString('base64');
}

/**
 * The URL as given, then with the scheme's default port removed or added (Twilio's helper libraries
 * accept either). An unparseable URL is tried as given only.
 */
function urlVariants(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url];
  }
  const port = DEFAULT_PORTS[parsed.protocol];
  if (port === undefined) return [url];
  const authority = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)([^/?#]*)(.*)$/s.exec(url);
  if (authority === null) return [url];
  const [, scheme, host, rest] = authority as unknown as [string, string, string, string];
  const withPort = host.endsWith(`:${port}`);
  const explicitOther = /:\d+$/.test(host) && !withPort;
  if (explicitOther) return [url];
  const other = withPort ? `${scheme}${host.slice(0, -(port.length + 1))}${rest}` : `${scheme}${host}:${port}${rest}`;
  return [url, other];
}

function fail(code: 'TWILIO_SIGNATURE_MISSING' | 'TWILIO_SIGNATURE_MALFORMED' | 'TWILIO_SIGNATURE_MISMATCH', message: string): never {
  throw new TelephonyAuthError(code, message, { field: 'X-Twilio-Signature' });
}

function verifyOrThrow(input: VerifyTwilioSignatureInput): true {
  if (typeof input !== 'object' || input === null)
    throw new InvalidOptionError('input', 'verifyTwilioSignature takes { authToken, url, params?, signature }');
  const tokens = (Array.isArray(input.authToken) ? input.authToken : [input.authToken]) as unknown[];
  if (tokens.length === 0) throw new InvalidOptionError('authToken', 'authToken list is empty');
  for (const t of tokens) checkToken(t);
  if (typeof input.url !== 'string' || input.url === '') throw new InvalidOptionError('url', 'url must be the full URL Twilio requested');
  let signature: unknown = input.signature;
  if (Array.isArray(signature)) {
    if (signature.length > 1) fail('TWILIO_SIGNATURE_MALFORMED', 'X-Twilio-Signature was sent more than once');
    signature = signature[0];
  }
  if (signature === undefined || signature === null || signature === '') fail('TWILIO_SIGNATURE_MISSING', 'No X-Twilio-Signature header');
  if (typeof signature !== 'string' || !SIGNATURE_PATTERN.test(signature)) {
    fail('TWILIO_SIGNATURE_MALFORMED', `X-Twilio-Signature must be the base64 of ${SHA1_BYTES} bytes (28 characters)`);
  }
  const candidate = Buffer.from(signature, 'base64');
  // Canonical only: the last character's 4 unused bits must be zero, or two headers would match.
  if (candidate.toString('base64') !== signature) fail('TWILIO_SIGNATURE_MALFORMED', 'X-Twilio-Signature is not canonical base64');
  const pairs = sortedPairs(input.params);
  let matched = false;
  for (const token of tokens as string[]) {
    for (const url of urlVariants(input.url)) {
      // Every combination runs (no early exit), so timing does not tell which one matched.
      if (timingSafeEqual(hmac(token, url, pairs), candidate)) matched = true;
    }
  }
  if (!matched) {
    fail(
      'TWILIO_SIGNATURE_MISMATCH',
      'X-Twilio-Signature does not match (wrong auth token, a changed parameter, ' +
        'or a URL other than the one Twilio requested: behind a proxy, set publicUrl)',
    );
  }
  return true;
}

/**
 * Verifies `X-Twilio-Signature`; returns `true` or throws a {@link TelephonyAuthError}:
 * `TWILIO_SIGNATURE_MISSING`, `TWILIO_SIGNATURE_MALFORMED` or `TWILIO_SIGNATURE_MISMATCH`.
 * Bad arguments (no auth token) throw `InvalidOptionError`.
 *
 * @example
 * verifyTwilioSignature({ authToken, url: 'https://example.com/twiml', params: new URLSearchParams(body), signature });
 */
export function verifyTwilioSignature(input: VerifyTwilioSignatureInput): true {
  try {
    return verifyOrThrow(input);
  } catch (e) {
    if (e instanceof TelephonyAuthError || e instanceof InvalidOptionError) throw e;
    return fail('TWILIO_SIGNATURE_MALFORMED', 'X-Twilio-Signature could not be verified');
  }
}
