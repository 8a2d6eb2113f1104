/**
 * `createClient`: one client for speech, agents and sessions, sharing one HTTP core (keep-alive
 * connections, auth, timeouts, retries, typed errors).
 */
import { InvalidOptionError } from '../errors.js';
import type { DynamicVariableWarning } from '../protocol/dynamicVariables.js';
import { createAgentsApi, type AgentsApi } from './agents.js';
import { createHttpCore, type HttpCore } from '../internal/http/http.js';
import { DEFAULT_API_PATHS, type ApiPaths } from '../protocol/paths.js';
import { abortableSleep, DEFAULT_RETRY_TIMING, type RetryTiming } from '../internal/http/retry.js';
import { createSessionsApi, type SessionsApi } from './sessions.js';
import { createTtsApi, type TtsApi } from './tts.js';

/** Wait for the response head. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Longest gap between body bytes. */
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 2;
export const BASE_URL_ENV = 'VOICEWIRE_BASE_URL';
export const API_KEY_ENV = 'VOICEWIRE_API_KEY';

export interface ClientOptions {
  /** The service address, e.g. `https://api.fish.audio`. @defaultValue `process.env.VOICEWIRE_BASE_URL` */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer <apiKey>`. @defaultValue `process.env.VOICEWIRE_API_KEY` */
  apiKey?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Wait for the response head, per attempt. 0 disables. @defaultValue 30000 */
  timeoutMs?: number;
  /** Longest gap between body bytes. 0 disables. @defaultValue 30000 */
  idleTimeoutMs?: number;
  /** Retries before the first body byte (see retry.ts for which failures). @defaultValue 2 */
  maxRetries?: number;
  /** A fetch implementation. @defaultValue `globalThis.fetch` (undici, keep-alive) */
  fetch?: typeof fetch;
  /** Override base paths, e.g. behind a gateway. @defaultValue see paths.ts */
  paths?: Partial<ApiPaths>;
  /** Backoff tuning. @defaultValue `{ baseDelayMs: 500, maxDelayMs: 8000, maxRetryAfterMs: 60000 }` */
  retry?: Partial<RetryTiming>;
  /**
   * Where non-fatal problems are reported (e.g. a dynamic variable dropped by `sessions.create`).
   * @defaultValue `process.emitWarning`
   */
  onWarning?: (message: string, detail?: DynamicVariableWarning) => void;
  /** Testing hook: the wait between attempts. @defaultValue an abortable setTimeout */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface Client {
  readonly tts: TtsApi;
  readonly agents: AgentsApi;
  readonly sessions: SessionsApi;
  /** The shared HTTP core, for building further APIs on the same connection pool and policy. */
  readonly http: HttpCore;
}

function nonNegative(name: string, value: number): number {
  if (typeof value !== 'number' || !(value >= 0)) throw new InvalidOptionError(name, `${name} must be a non-negative number`);
  return value;
}

/**
 * @example
 * ```ts
 * import { createClient } from 'voicewire/client';
 * const client = createClient({ baseUrl: 'https://api.fish.audio', apiKey: process.env.FISH_API_KEY });
 * const agent = await client.agents.create({
 *   name: 'Desk',
 *   config: { prompt: { system_prompt: 'Hi' }, voice: { voice_id: 'v', speaking_language: 'en' } },
 * });
 * await client.agents.publish(agent.agent_id);
 * for await (const s of client.sessions.list({ status: 'failed', agentId: agent.agent_id })) console.log(s.session_id);
 * ```
 */
export function createClient(options: ClientOptions = {}): Client {
  const baseUrl = options.baseUrl ?? process.env[BASE_URL_ENV];
  if (baseUrl === undefined || baseUrl === '') {
    throw new InvalidOptionError('baseUrl', `baseUrl is required (or set ${BASE_URL_ENV})`);
  }
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') throw new InvalidOptionError('fetch', 'No fetch implementation available');
  const maxRetries = nonNegative('maxRetries', options.maxRetries ?? DEFAULT_MAX_RETRIES);
  if (!Number.isInteger(maxRetries)) throw new InvalidOptionError('maxRetries', 'maxRetries must be an integer');
  const apiKey = options.apiKey ?? process.env[API_KEY_ENV];
  const http = createHttpCore({
    baseUrl,
    apiKey: apiKey === '' ? undefined : apiKey,
    headers: { ...options.headers },
    timeoutMs: nonNegative('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    idleTimeoutMs: nonNegative('idleTimeoutMs', options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS),
    maxRetries,
    fetch: fetchImpl,
    paths: { ...DEFAULT_API_PATHS, ...options.paths },
    retryTiming: { ...DEFAULT_RETRY_TIMING, ...options.retry },
    sleep: options.sleep ?? abortableSleep,
    now: Date.now,
    random: Math.random,
  });
  const onWarning = options.onWarning ?? ((message: string) => process.emitWarning(message, { code: 'VOICEWIRE_DYNAMIC_VARIABLE' }));
  return {
    http,
    tts: createTtsApi(http),
    agents: createAgentsApi(http),
    sessions: createSessionsApi(http, { onWarning }),
  };
}
