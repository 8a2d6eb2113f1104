/**
 * When a request is retried, and how long to wait.
 *
 * Retries only ever happen before the first byte of a response body was handed to the caller.
 *
 * Policy by idempotency:
 * - `'idempotent'` (GET, PATCH of a config, and the speech stream, which has no side effect but
 *   billing): retried on 429, any 5xx, connection failures and head timeouts.
 * - `'non-idempotent'` (POST that creates something: agent creation, session creation, publishing):
 *   retried only when the request provably was not processed: connection refused (nothing was
 *   sent) and 429 (the service rejected it before processing). A 5xx, a reset or a timeout may come
 *   after the service created the resource, and a retry could then create a duplicate, so those are
 *   surfaced to the caller. The spec shows no idempotency key we could send instead.
 */

/** @see RetryPolicy above. */
export type RetryPolicy = 'idempotent' | 'non-idempotent' | 'never';

export interface RetryTiming {
  /** First backoff delay; doubles each attempt. @defaultValue 500 */
  baseDelayMs: number;
  /** Cap of one exponential backoff delay. @defaultValue 8000 */
  maxDelayMs: number;
  /**
   * Longest `Retry-After` we honour. A longer one is not waited for: the 429 is thrown so the
   * caller decides. @defaultValue 60000
   */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_TIMING: Readonly<RetryTiming> = Object.freeze({
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
});

/** Jitter keeps many clients that failed together from retrying together: ±25 %. */
const JITTER_FRACTION = 0.25;
const MS_PER_SECOND = 1000;
const HTTP_TOO_MANY_REQUESTS = 429;
const HTTP_FIRST_SERVER_ERROR = 500;

/** What went wrong on one attempt, as far as the retry decision cares. */
export type AttemptFailure =
  | { kind: 'status'; status: number; retryAfterMs: number | undefined }
  | { kind: 'connection-refused' }
  | { kind: 'connection-other' }
  | { kind: 'timeout' };

export function isRetryable(failure: AttemptFailure, policy: RetryPolicy): boolean {
  if (policy === 'never') return false;
  switch (failure.kind) {
    case 'connection-refused':
      return true;
    case 'status':
      if (failure.status === HTTP_TOO_MANY_REQUESTS) return true;
      return policy === 'idempotent' && failure.status >= HTTP_FIRST_SERVER_ERROR;
    case 'connection-other':
    case 'timeout':
      return policy === 'idempotent';
  }
}

/**
 * The delay before retry number `retryIndex` (0 = first retry), or `undefined` when the server's
 * `Retry-After` asks for longer than we are willing to wait.
 */
export function retryDelayMs(
  failure: AttemptFailure,
  retryIndex: number,
  timing: RetryTiming,
  random: () => number = Math.random,
): number | undefined {
  if (failure.kind === 'status' && failure.retryAfterMs !== undefined) {
    return failure.retryAfterMs > timing.maxRetryAfterMs ? undefined : failure.retryAfterMs;
  }
  const exp = Math.min(timing.maxDelayMs, timing.baseDelayMs * 2 ** retryIndex);
  const jitter = 1 - JITTER_FRACTION + random() * 2 * JITTER_FRACTION;
  return Math.max(0, Math.round(exp * jitter));
}

/**
 * Parses `Retry-After`: delta-seconds or an HTTP-date (RFC 9110 §10.2.3). Also reads the
 * millisecond variant `retry-after-ms` some gateways send. Returns undefined when absent/garbled.
 */
export function parseRetryAfter(headers: Headers, nowMs: number): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms.trim()));
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * MS_PER_SECOND;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. Leaves no timer behind. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
