/**
 * Turning an HTTP error answer or a fetch failure into the typed classes of `src/errors.ts`.
 */
import { ApiConnectionError, ApiError } from '../../errors.js';
import type { AttemptFailure } from './retry.js';

/** The request id header the service sends (kept on every error). */
export const REQUEST_ID_HEADER = 'x-request-id';

export function headersToRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, key) => {
    out[key] = value;
  });
  return out;
}

interface ErrorBody {
  message?: string;
  reason?: string;
}

/** Reads `{status, message, reason}`; anything else leaves both undefined. */
function parseErrorBody(text: string): ErrorBody {
  if (text.length === 0) return {};
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body !== 'object' || body === null) return {};
    const rec = body as Record<string, unknown>;
    const out: ErrorBody = {};
    if (typeof rec['message'] === 'string') out.message = rec['message'];
    if (typeof rec['reason'] === 'string') out.reason = rec['reason'];
    return out;
  } catch {
    return {};
  }
}

/** Longest slice of a non-JSON error body quoted in the message. */
const MAX_QUOTED_BODY_CHARS = 200;

/** Builds the status subclass (`NotFoundError`, `RateLimitError`, …) for a non-2xx answer. */
export function apiErrorFromResponse(status: number, statusText: string, headers: Headers, bodyText: string): ApiError {
  const body = parseErrorBody(bodyText);
  const requestId = headers.get(REQUEST_ID_HEADER) ?? undefined;
  const detail =
    body.message ?? (bodyText.trim().length > 0 ? bodyText.trim().slice(0, MAX_QUOTED_BODY_CHARS) : statusText || 'no error body');
  const parts = [`HTTP ${status}`];
  if (body.reason !== undefined) parts.push(`reason ${body.reason}`);
  if (requestId !== undefined) parts.push(`request ${requestId}`);
  const message = `${detail} (${parts.join(', ')})`;
  return ApiError.fromStatus(status, message, {
    ...(body.reason !== undefined ? { reason: body.reason } : {}),
    ...(requestId !== undefined ? { requestId } : {}),
    headers: headersToRecord(headers),
  });
}

/** Error codes (from Node's net layer, surfaced by undici as `cause.code`) that mean "nothing was sent". */
const REFUSED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const MAX_CAUSE_DEPTH = 5;

/** Finds the first `code` string down the `cause` chain (and inside AggregateError). */
function findErrorCode(err: unknown, depth = 0): string | undefined {
  if (typeof err !== 'object' || err === null || depth > MAX_CAUSE_DEPTH) return undefined;
  const rec = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof rec.code === 'string' && rec.code !== 'UND_ERR_SOCKET') return rec.code;
  if (Array.isArray(rec.errors)) {
    for (const inner of rec.errors) {
      const code = findErrorCode(inner, depth + 1);
      if (code !== undefined) return code;
    }
  }
  const fromCause = findErrorCode(rec.cause, depth + 1);
  if (fromCause !== undefined) return fromCause;
  return typeof rec.code === 'string' ? rec.code : undefined;
}

/** Classifies a fetch rejection that was neither our timeout nor the caller's abort. */
export function connectionFailure(
  err: unknown,
  url: string,
): {
  failure: AttemptFailure;
  error: ApiConnectionError;
} {
  const code = findErrorCode(err);
  const refused = code !== undefined && REFUSED_CODES.has(code);
  const { origin } = new URL(url);
  const error = new ApiConnectionError(
    `Could not reach ${origin}${code ? ` (${code})` : ''}: ${err instanceof Error ? err.message : String(err)}`,
    { cause: err },
  );
  return { failure: { kind: refused ? 'connection-refused' : 'connection-other' }, error };
}
