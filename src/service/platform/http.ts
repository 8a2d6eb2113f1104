/**
 * Small HTTP helpers of the platform routes: bounded JSON body reading, JSON answers and the
 * spec's error body `{status, message, reason}`.
 *
 * @see docs/service-interface.md#errors
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { closeWhenAnswered, CONNECTION_CLOSE, readBoundedBody } from '../../internal/readBody.js';

/** Largest request body the platform reads. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** An error answered to the client with the spec's error body. */
export class PlatformHttpError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    /** Answer with `Connection: close` and close once answered (the body was left unread). */
    readonly closeConnection = false,
  ) {
    super(message);
    this.name = 'PlatformHttpError';
  }
}

export const badRequest = (reason: string, message: string) => new PlatformHttpError(400, reason, message);
export const notFound = (what: string, id: string) =>
  new PlatformHttpError(404, `${what}_not_found`, `${what.replace('_', ' ')} '${id}' does not exist`);
export const conflict = (reason: string, message: string) => new PlatformHttpError(409, reason, message);
export const unprocessable = (reason: string, message: string) => new PlatformHttpError(422, reason, message);

/** Reads the whole body (up to {@link MAX_BODY_BYTES}) and parses it as JSON; empty body → undefined. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const body = await readBoundedBody(req, MAX_BODY_BYTES);
  if (body.kind === 'too_large') throw new PlatformHttpError(413, 'payload_too_large', `request body over ${MAX_BODY_BYTES} bytes`, true);
  if (body.bytes.length === 0) return undefined;
  const text = body.bytes.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw badRequest('invalid_json', `request body is not valid JSON: ${(err as Error).message}`);
  }
}

/** Reads a JSON object body; an empty body is `{}` when `optional`. */
export async function readJsonObject(req: IncomingMessage, optional = false): Promise<Record<string, unknown>> {
  const body = await readJsonBody(req);
  if (body === undefined && optional) return {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('invalid_request', 'request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  requestId?: string,
  extraHeaders: Readonly<Record<string, string>> = {},
): void {
  const text = JSON.stringify(body);
  const headers: Record<string, string | number> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...extraHeaders,
  };
  if (requestId !== undefined && !res.hasHeader('x-request-id')) headers['x-request-id'] = requestId;
  res.writeHead(status, headers);
  res.end(text);
}

export function sendError(res: ServerResponse, err: PlatformHttpError, requestId?: string): void {
  if (err.closeConnection) closeWhenAnswered(res);
  sendJson(
    res,
    err.status,
    { status: err.status, message: err.message, reason: err.reason },
    requestId,
    err.closeConnection ? CONNECTION_CLOSE : {},
  );
}
