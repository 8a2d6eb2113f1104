/**
 * Per-call options shared by every client operation, and small response checks.
 */
import { ApiError, InvalidOptionError } from '../../errors.js';
import type { HttpRequest } from './http.js';

export interface RequestOptions {
  /** Aborts the request (and any retry wait) with `AbortError`. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
}

/** Copies the per-call options that are set onto a request. */
export function withOptions(req: HttpRequest, opts: RequestOptions | undefined): HttpRequest {
  if (!opts) return req;
  const out: HttpRequest = { ...req };
  if (opts.signal !== undefined) out.signal = opts.signal;
  if (opts.timeoutMs !== undefined) out.timeoutMs = opts.timeoutMs;
  if (opts.maxRetries !== undefined) out.maxRetries = opts.maxRetries;
  if (opts.headers !== undefined) out.headers = opts.headers;
  return out;
}

export function requireId(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new InvalidOptionError(name, `${name} must be a non-empty string`);
  }
  return value;
}

/** The service answered 2xx, but not with the JSON object the operation returns. */
export function expectObject<T>(value: unknown, what: string, idField?: string): T {
  const ok =
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    (idField === undefined || typeof (value as Record<string, unknown>)[idField] === 'string');
  if (!ok) {
    throw new ApiError(`Unexpected response for ${what}: expected a JSON object${idField ? ` with a string ${idField}` : ''}`);
  }
  return value as T;
}
