/**
 * The HTTP core every client API (agents, sessions, speech) is built on.
 *
 * - Built on `fetch` (Node 20's global fetch is undici, which keeps connections alive and reuses
 *   them, so there is no TLS handshake per request). A custom `fetch` may be injected.
 * - `timeoutMs` bounds the wait for the response head; `idleTimeoutMs` bounds each gap between
 *   body bytes (see {@link RawResponse.body}).
 * - Retries with backoff happen only before a response body is handed out; see `retry.ts` for
 *   which failures are retried for idempotent and non-idempotent requests.
 * - Non-2xx answers become `ApiError` subclasses via `ApiError.fromStatus`, with status, reason,
 *   message and `x-request-id`.
 */
import { AbortError, ApiError, ApiTimeoutError, InvalidOptionError } from '../../errors.js';
import { iterateBody, MAX_ERROR_BODY_BYTES, readBodyText } from './body.js';
import type { ApiPaths } from '../../protocol/paths.js';
import { apiErrorFromResponse, connectionFailure, REQUEST_ID_HEADER } from './responseErrors.js';
import type { AttemptFailure, RetryPolicy, RetryTiming } from './retry.js';
import { isRetryable, parseRetryAfter, retryDelayMs } from './retry.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Everything the core needs, fully resolved (createClient fills the defaults). */
export interface HttpCoreConfig {
  baseUrl: string;
  apiKey: string | undefined;
  headers: Record<string, string>;
  timeoutMs: number;
  idleTimeoutMs: number;
  maxRetries: number;
  fetch: typeof fetch;
  paths: ApiPaths;
  retryTiming: RetryTiming;
  /** Waits between attempts; injected in tests so they never sleep. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Wall clock in ms, for `Retry-After` dates. */
  now: () => number;
  random: () => number;
}

export interface HttpRequest {
  method: HttpMethod;
  /** Path relative to `baseUrl`, e.g. `/v1/agent/agents`. */
  path: string;
  /** Query parameters; `undefined` and `null` are left out. */
  query?: Record<string, string | number | boolean | undefined | null>;
  /** A JSON body (serialized once, identical on every attempt). */
  json?: unknown;
  /** Extra headers for this request (override the client's). */
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
  /** @defaultValue `'idempotent'` for GET/PUT/PATCH/DELETE, `'non-idempotent'` for POST */
  retry?: RetryPolicy;
  timeoutMs?: number;
  idleTimeoutMs?: number;
  maxRetries?: number;
}

/** A 2xx answer whose head has arrived; the body is not read yet. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly requestId: string | undefined;
  /** Number of attempts made (1 = no retry). */
  readonly attempts: number;
  /** ms from the first attempt's start to this response head. */
  readonly headMs: number;
  /** The underlying fetch Response (its body is the same stream {@link body} reads). */
  readonly response: Response;
  /**
   * The body's chunks, single use. A gap longer than `idleTimeoutMs` throws `ApiTimeoutError`;
   * the caller's signal throws `AbortError`. Breaking out of the loop cancels the body.
   */
  body(): AsyncGenerator<Uint8Array, void, undefined>;
  /** The whole body as UTF-8 text (same timeouts). */
  text(): Promise<string>;
  /** Drops the body without reading it, releasing the connection. */
  cancel(): Promise<void>;
}

/** The interface `client.tts` (and any other API) builds on. */
export interface HttpCore {
  readonly config: Readonly<HttpCoreConfig>;
  /**
   * Sends a request, retrying before the body is handed out, and resolves once a 2xx head is in.
   * Rejects with an `ApiError` subclass, `ApiConnectionError`, `ApiTimeoutError` or `AbortError`.
   */
  requestRaw(req: HttpRequest): Promise<RawResponse>;
  /** `requestRaw` + the body parsed as JSON (undefined for an empty body). */
  requestJson<T>(req: HttpRequest): Promise<T>;
}

const TIMEOUT_REASON = Symbol('voicewire.timeout');

function buildUrl(baseUrl: string, path: string, query: HttpRequest['query']): string {
  const url = new URL(baseUrl.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`));
  if (query) {
    for (const [k, v] of Object.entries(query)) {
      if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    }
  }
  return url.toString();
}

/** Links the caller's signal to a per-attempt controller; returns the unlink function. */
function link(signal: AbortSignal | undefined, controller: AbortController): () => void {
  if (!signal) return () => undefined;
  const onAbort = (): void => controller.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}

export function createHttpCore(config: HttpCoreConfig): HttpCore {
  try {
    new URL(config.baseUrl);
  } catch {
    throw new InvalidOptionError('baseUrl', `baseUrl must be an absolute URL, got ${JSON.stringify(config.baseUrl)}`);
  }

  /** Merged case-insensitively: per-request headers override the client's, which override ours. */
  function requestHeaders(req: HttpRequest): Headers {
    const headers = new Headers({ accept: 'application/json' });
    for (const [k, v] of Object.entries(config.headers)) headers.set(k, v);
    if (config.apiKey !== undefined) headers.set('authorization', `Bearer ${config.apiKey}`);
    if (req.json !== undefined) headers.set('content-type', 'application/json');
    for (const [k, v] of Object.entries(req.headers ?? {})) headers.set(k, v);
    return headers;
  }

  async function requestRaw(req: HttpRequest): Promise<RawResponse> {
    const url = buildUrl(config.baseUrl, req.path, req.query);
    const policy: RetryPolicy = req.retry ?? (req.method === 'POST' ? 'non-idempotent' : 'idempotent');
    const maxRetries = req.maxRetries ?? config.maxRetries;
    const timeoutMs = req.timeoutMs ?? config.timeoutMs;
    const idleTimeoutMs = req.idleTimeoutMs ?? config.idleTimeoutMs;
    const body = req.json === undefined ? undefined : JSON.stringify(req.json);
    const headers = requestHeaders(req);
    const { signal } = req;
    const started = config.now();

    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw new AbortError(undefined, signal.reason);
      const controller = new AbortController();
      const unlink = link(signal, controller);
      const timer = timeoutMs > 0 && Number.isFinite(timeoutMs) ? setTimeout(() => controller.abort(TIMEOUT_REASON), timeoutMs) : undefined;
      let failure: AttemptFailure;
      let error: ApiError;
      try {
        const init: RequestInit = { method: req.method, headers, signal: controller.signal };
        if (body !== undefined) init.body = body;
        const response = await config.fetch(url, init);
        clearTimeout(timer);
        const requestId = response.headers.get(REQUEST_ID_HEADER) ?? undefined;
        const readOpts = { idleTimeoutMs, signal, requestId, status: response.status };
        if (response.ok) {
          let used = false;
          const take = (): ReadableStream<Uint8Array> | null => {
            if (used) throw new InvalidOptionError('body', 'The response body was already read');
            used = true;
            return response.body;
          };
          return {
            status: response.status,
            headers: response.headers,
            requestId,
            attempts: attempt + 1,
            headMs: config.now() - started,
            response,
            body: () => withUnlink(iterateBody(take(), readOpts), unlink),
            text: () => readBodyText(take(), readOpts).finally(unlink),
            cancel: async () => {
              unlink();
              if (!used) {
                used = true;
                await response.body?.cancel().catch(() => undefined);
              }
            },
          };
        }
        const text = await readBodyText(response.body, { ...readOpts, maxBytes: MAX_ERROR_BODY_BYTES }).catch((e: unknown) => {
          if (e instanceof AbortError) throw e;
          return '';
        });
        unlink();
        error = apiErrorFromResponse(response.status, response.statusText, response.headers, text);
        failure = {
          kind: 'status',
          status: response.status,
          retryAfterMs: parseRetryAfter(response.headers, config.now()),
        };
      } catch (e) {
        clearTimeout(timer);
        unlink();
        if (e instanceof AbortError) throw e;
        if (signal?.aborted) throw new AbortError(undefined, signal.reason);
        if (controller.signal.aborted && controller.signal.reason === TIMEOUT_REASON) {
          failure = { kind: 'timeout' };
          error = new ApiTimeoutError(`No response head within ${timeoutMs} ms (timeoutMs)`, { cause: e });
        } else {
          ({ failure, error } = connectionFailure(e, url));
        }
      }
      if (attempt >= maxRetries || !isRetryable(failure, policy)) throw error;
      const delay = retryDelayMs(failure, attempt, config.retryTiming, config.random);
      if (delay === undefined) throw error;
      try {
        await config.sleep(delay, signal);
      } catch (e) {
        throw new AbortError(undefined, signal?.reason ?? e);
      }
    }
  }

  async function requestJson<T>(req: HttpRequest): Promise<T> {
    const raw = await requestRaw(req);
    const text = await raw.text();
    if (text.trim().length === 0) return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (e) {
      throw apiInvalidJson(raw, e);
    }
  }

  return { config, requestRaw, requestJson };
}

function apiInvalidJson(raw: RawResponse, cause: unknown): ApiError {
  return new ApiError(`The service answered ${raw.status} with a body that is not JSON (request ${raw.requestId ?? 'unknown'})`, {
    status: raw.status,
    ...(raw.requestId !== undefined ? { requestId: raw.requestId } : {}),
    cause,
  });
}

async function* withUnlink(
  gen: AsyncGenerator<Uint8Array, void, undefined>,
  unlink: () => void,
): AsyncGenerator<Uint8Array, void, undefined> {
  try {
    yield* gen;
  } finally {
    unlink();
  }
}
