/**
 * Small node:http helpers shared by the webhook receivers: header lookup over any header shape,
 * a bounded raw-body read, the signature check both receivers answer 400/401 from, and writing a
 * {@link WebhookResponse}.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { VoicewireError } from '../errors.js';
import { closeWhenAnswered, CONNECTION_CLOSE, readBoundedBody } from '../internal/readBody.js';
import { SignatureCheckError, verifyWebhookSignature } from '../protocol/webhookSignature.js';

export const HTTP_OK = 200;
export const HTTP_BAD_REQUEST = 400;
export const HTTP_UNAUTHORIZED = 401;
export const HTTP_METHOD_NOT_ALLOWED = 405;
export const HTTP_CONFLICT = 409;
export const HTTP_PAYLOAD_TOO_LARGE = 413;
export const HTTP_INTERNAL_ERROR = 500;
export const HTTP_UNAVAILABLE = 503;

/** Headers as node:http gives them, a fetch `Headers`, or a plain record (any case). */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

/** What a framework-agnostic receiver answers. */
export interface WebhookResponse {
  status: number;
  headers: Record<string, string>;
  /** JSON text. */
  body: string;
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): WebhookResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** Case-insensitive lookup; repeated headers are joined with `,` as HTTP allows. */
export function getHeader(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).forEach === 'function') {
    return (headers as Headers).get(name) ?? undefined;
  }
  const lower = name.toLowerCase();
  const rec = headers as Record<string, string | string[] | undefined>;
  const direct = Object.hasOwn(rec, lower) ? rec[lower] : undefined;
  let value = direct;
  if (value === undefined) {
    for (const key of Object.keys(rec)) {
      if (key.toLowerCase() === lower) {
        value = rec[key];
        break;
      }
    }
  }
  return Array.isArray(value) ? value.join(',') : value;
}

/** A webhook body is a small JSON object; this bounds memory per request. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** The body went over the receiver's size limit (answered 413; also given to `onError`). */
export class BodyTooLargeError extends VoicewireError {
  constructor(message: string) {
    super('WEBHOOK_BAD_PAYLOAD', message);
  }
}
/** A body parser mounted before the receiver already turned the body into an object. */
export class BodyAlreadyParsedError extends VoicewireError {
  constructor(message: string) {
    super('WEBHOOK_BAD_PAYLOAD', message, { field: 'body' });
  }
}

/**
 * Reads the raw body bytes. Accepts a body a framework already read as bytes or text
 * (`express.raw()`, `express.text()`); refuses one it already parsed into an object, since the
 * signature covers the exact bytes.
 */
export async function readRawBody(req: IncomingMessage, maxBytes = DEFAULT_MAX_BODY_BYTES): Promise<Buffer> {
  const pre = (req as IncomingMessage & { body?: unknown }).body;
  if (Buffer.isBuffer(pre)) return pre;
  if (typeof pre === 'string') return Buffer.from(pre, 'utf8');
  if (pre !== undefined && pre !== null && (req.readableEnded || typeof pre === 'object')) {
    throw new BodyAlreadyParsedError(
      'The request body was already parsed into an object by a body parser; ' +
        'mount the webhook handler before it, or use a raw body parser (e.g. express.raw({ type: "application/json" })), ' +
        'because the signature covers the exact bytes',
    );
  }
  const body = await readBoundedBody(req, maxBytes);
  // Reading stopped at the limit; the caller answers 413 and closes the connection.
  if (body.kind === 'too_large') throw new BodyTooLargeError(`Webhook body is larger than ${maxBytes} bytes`);
  return body.bytes;
}

export function send(res: ServerResponse, response: WebhookResponse): void {
  res.writeHead(response.status, { ...response.headers, 'content-length': Buffer.byteLength(response.body) });
  res.end(response.body);
}

/** A receiver's raw body as a Buffer (a view, not a copy, when it is already bytes). */
export function bodyBuffer(rawBody: Buffer | Uint8Array | string): Buffer {
  return typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
}

export interface SignatureCheck {
  secret: string | readonly string[];
  /** Receiver's clock in ms. */
  now: () => number;
  toleranceSeconds?: number | undefined;
}

/**
 * The signature check both receivers run before they look at a body: null when `body` is
 * verified, else the answer to send (400 for a malformed header, 401 for a mismatch or a stale
 * timestamp), after telling `onError`. The answer carries the verifier's message, which names
 * the fault without echoing a secret.
 */
export function refuseUnverified(
  body: Buffer,
  header: string | undefined,
  check: SignatureCheck,
  onError: (error: unknown) => void,
): WebhookResponse | null {
  try {
    verifyWebhookSignature({
      payload: body,
      header,
      secret: check.secret,
      now: check.now() / 1000,
      ...(check.toleranceSeconds !== undefined ? { toleranceSeconds: check.toleranceSeconds } : {}),
    });
    return null;
  } catch (e) {
    onError(e);
    const status = e instanceof SignatureCheckError && e.kind === 'rejected' ? HTTP_UNAUTHORIZED : HTTP_BAD_REQUEST;
    return jsonResponse(status, { error: (e as Error).message });
  }
}

/**
 * The start of every node:http webhook handler: refuses a non-POST (405) and reads the raw body
 * within `maxBytes`. On failure it answers (413 for an oversized body, 500 when a framework's
 * body parser already consumed it, else 400), reports the error, and returns null.
 */
export async function acceptPostBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  onError: (error: unknown) => void,
): Promise<Buffer | null> {
  if (req.method !== 'POST') {
    send(res, jsonResponse(HTTP_METHOD_NOT_ALLOWED, { error: 'POST only' }, { allow: 'POST' }));
    return null;
  }
  try {
    return await readRawBody(req, maxBytes);
  } catch (e) {
    onError(e);
    if (e instanceof BodyTooLargeError) {
      closeWhenAnswered(res);
      send(res, jsonResponse(HTTP_PAYLOAD_TOO_LARGE, { error: e.message }, { ...CONNECTION_CLOSE }));
      return null;
    }
    const status = e instanceof BodyAlreadyParsedError ? HTTP_INTERNAL_ERROR : HTTP_BAD_REQUEST;
    send(res, jsonResponse(status, { error: 'could not read the body' }));
    return null;
  }
}
