/**
 * The error body of every non-2xx answer: the spec's `{status, message, reason}`, plus `field`
 * and `rule` for validation errors (extra fields; clients ignore what they do not know).
 *
 * | status | reason | when |
 * |---|---|---|
 * | 400 | `invalid_json` | body is not JSON / not an object; bad `x-voicewire-fault` (`invalid_fault`) |
 * | 401 | `missing_token` | no `Authorization` header |
 * | 401 | `malformed_authorization` | not `Bearer <token>` |
 * | 403 | `invalid_token` | a bearer token that is not this service's |
 * | 404 | `not_found` | unknown path |
 * | 405 | `method_not_allowed` | wrong method on a known path |
 * | 408 | (Node's own, no body) | headers or body not received within `headersTimeoutMs` / `requestTimeoutMs` |
 * | 413 | `text_too_long` / `request_too_large` | `text` over MAX_TEXT_LENGTH / body over MAX_REQUEST_BYTES (unread; `Connection: close`) |
 * | 422 | `validation_error` | a field breaks a rule (`field`, `rule` name it) |
 * | 429/500/503… | `rate_limited` / `internal_error` / `unavailable` / `injected_fault` | fault injection, or a real failure (500) |
 * | 503 | `unavailable` | the connection arrived over `maxConnections` (with `Connection: close`, `Retry-After`) |
 */
import type { ServerResponse } from 'node:http';

export const REASON_BY_STATUS: Record<number, string> = {
  429: 'rate_limited',
  500: 'internal_error',
  502: 'bad_gateway',
  503: 'unavailable',
};

export interface ErrorBody {
  status: number;
  message: string;
  reason: string;
  field?: string;
  rule?: string;
}

export function sendError(res: ServerResponse, body: ErrorBody, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const json = JSON.stringify(body);
  res.writeHead(body.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(json)),
    ...headers,
  });
  res.end(json);
}
