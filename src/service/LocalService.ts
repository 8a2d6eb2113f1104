/**
 * The local voice service: `POST /v1/tts/stream/with-timestamp` with real espeak-ng speech, and a
 * hook for the agent/session operations (`/v1/agent/*`, see {@link PlatformHandler}).
 *
 * HTTP layer: `node:http`, on purpose. No dependency; and the service must control every write
 * (SSE events written as they are ready, backpressure via `drain`, tiny writes with Nagle off,
 * a socket destroyed mid-event) to inject transport faults, which frameworks abstract away.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { MAX_REQUEST_BYTES, type PronunciationDictionaryInline, type TtsRequest } from '../protocol/ttsRequest.js';
import { loadResampler } from '../dsp/Resampler.js';
import { closeWhenAnswered, CONNECTION_CLOSE, readBoundedBody } from '../internal/readBody.js';
import { DEFAULT_MAX_CONNECTIONS, limitConnections } from './connectionLimit.js';
import { sendError } from './httpErrors.js';
import { AttemptCounter, checkFaultSpec, FAULT_HEADER, FaultSyntaxError, parseFaults, type FaultSpec } from './faults.js';
import { handleTts } from './handleTts.js';
import { createLocalServiceApi, type LocalServiceApi } from './localServiceApi.js';
import { warmEncoders } from './encode/createStreamEncoder.js';
import { DictionaryStore } from './speech/dictionaries.js';
import { SpeechEngine } from './speech/SpeechEngine.js';
import type { SchedulerKind } from './speech/UnitQueue.js';
import { VOICES, type VoiceSpec } from './speech/voices.js';
import { DEFAULT_WRITE_IDLE_TIMEOUT_MS, realClock, REALTIME_LEAD_SEC, type Pace, type ServiceClock } from './stream/SseResponder.js';
import { synthesizeToMemory, type SynthesisResult } from './synthesizeToMemory.js';

export const TTS_PATH = '/v1/tts/stream/with-timestamp';
export const AGENT_PREFIX = '/v1/agent/';

/** Time a client has to send a request's headers. @see LocalServiceOptions.headersTimeoutMs */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** Time a client has to send a whole request, body included. @see LocalServiceOptions.requestTimeoutMs */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** How often Node looks for connections past those two timeouts (its own default is 30 s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;
/** `Retry-After` of the 503 answered at the connection cap. */
const OVER_CAP_RETRY_AFTER_SEC = 1;

/** What the platform handler gets with each authenticated `/v1/agent/*` request. */
export interface ServiceRequestContext {
  /** The bearer token the request was authenticated with. */
  token: string;
  /** Also sent as the response's `x-request-id` header (already set on `res`). */
  requestId: string;
  /** The service's base URL (`http://127.0.0.1:PORT`). */
  baseUrl: string;
  /**
   * Synthesizes a speech request (same rules as the endpoint) to memory: events, audio, words.
   * When `signal` aborts, synthesis stops and the promise rejects with an `AbortError`.
   */
  synthesize(request: TtsRequest, signal?: AbortSignal): Promise<SynthesisResult>;
}

/**
 * `src/service/platform/index.ts` exports `handlePlatformRequest` with this signature. It returns
 * true when it answered the request, false to let the service answer 404.
 */
export type PlatformHandler = (req: IncomingMessage, res: ServerResponse, ctx: ServiceRequestContext) => Promise<boolean>;

export interface LocalServiceOptions {
  /** @defaultValue '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @defaultValue 0 */
  port?: number;
  /** The bearer token clients must send. @defaultValue a random 32-hex-digit token */
  token?: string;
  /** `realtime`: events no faster than real time plus {@link REALTIME_LEAD_SEC}. @defaultValue 'fast' */
  pace?: Pace;
  realtimeLeadSec?: number;
  /** Voices added to (or replacing) the built-in `reference_id` table. */
  voices?: Record<string, VoiceSpec>;
  /** Server-managed pronunciation dictionaries: `{ [id]: { [version]: {entries} } }`. */
  dictionaries?: Record<string, Record<string, PronunciationDictionaryInline>>;
  /** A directory of `<id>/<version>.json` dictionaries. */
  dictionaryDir?: string;
  /** Faults applied to every speech request (header syntax, or parsed). */
  faults?: string | FaultSpec;
  /** Honour the `x-voicewire-fault` header. @defaultValue true */
  acceptFaultHeader?: boolean;
  /** espeak worker threads. @defaultValue `os.availableParallelism()` (one per core) */
  workers?: number;
  /**
   * @internal For the load bench only: `fifo` restores the first-come scheduler to compare against.
   * @defaultValue 'fair'
   */
  scheduler?: SchedulerKind;
  /** The `/v1/agent/*` handler; default: `./platform/index.js`'s `handlePlatformRequest` when present; `false`: none. */
  platform?: PlatformHandler | false;
  clock?: ServiceClock;
  /** One line per request. @defaultValue silent */
  log?: (line: string) => void;
  /**
   * Connections served at once. Past it, a connection is answered 503 (`reason: 'unavailable'`,
   * `Connection: close`) when it sends a request within a second, else dropped; past twice it, a
   * connection is refused outright.
   * @defaultValue 1024
   */
  maxConnections?: number;
  /** A client that has not sent a request's headers within this gets 408 and is closed. @defaultValue 10000 */
  headersTimeoutMs?: number;
  /**
   * A client that has not sent a whole request (headers and body) within this gets 408 and is
   * closed. The response is not limited by it: a speech stream may last as long as its audio.
   * @defaultValue 30000
   */
  requestTimeoutMs?: number;
  /**
   * A speech stream whose client reads nothing for this long (the socket's buffers stay full) is
   * closed and its synthesis stopped.
   * @defaultValue 30000
   */
  writeIdleTimeoutMs?: number;
}

/** The running service; its local-only features (simulated calls, …) are {@link LocalServiceApi}. */
export interface LocalService extends LocalServiceApi {
  baseUrl: string;
  token: string;
  host: string;
  port: number;
  /** Stops listening, drops open connections and the speech workers. */
  close(): Promise<void>;
}

async function loadPlatform(): Promise<PlatformHandler | null> {
  const specifier = './platform/index.js';
  try {
    const mod = (await import(specifier)) as { handlePlatformRequest?: PlatformHandler };
    return typeof mod.handlePlatformRequest === 'function' ? mod.handlePlatformRequest : null;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_LOAD_URL' || /Cannot find module|Failed to load/.test(String(err))) return null;
    throw err;
  }
}

/**
 * Starts the local voice service.
 *
 * @example
 * const svc = await startLocalService();
 * const res = await fetch(`${svc.baseUrl}/v1/tts/stream/with-timestamp`, {
 *   method: 'POST',
 *   headers: { authorization: `Bearer ${svc.token}`, 'content-type': 'application/json' },
 *   body: JSON.stringify({ text: 'Hello there.', format: 'opus' }),
 * });
 * await svc.close();
 */
export async function startLocalService(options: LocalServiceOptions = {}): Promise<LocalService> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(16).toString('hex');
  const clock = options.clock ?? realClock;
  const log = options.log ?? ((): void => undefined);
  const baseFaults = typeof options.faults === 'string' ? parseFaults(options.faults) : checkFaultSpec(options.faults ?? {});
  const engine = new SpeechEngine({
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
    ...(options.scheduler !== undefined ? { scheduler: options.scheduler } : {}),
  });
  const planContext = {
    voices: { ...VOICES, ...options.voices },
    dictionaries: new DictionaryStore(options.dictionaryDir, options.dictionaries),
  };
  const attempts = new AttemptCounter();
  const platform = options.platform === false ? null : (options.platform ?? (await loadPlatform()));
  let baseUrl = '';

  const synthesize = (request: TtsRequest, signal?: AbortSignal): Promise<SynthesisResult> =>
    synthesizeToMemory(request, engine, planContext, signal);

  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const server: Server = createServer({
    headersTimeout,
    // Node requires requestTimeout ≥ headersTimeout.
    requestTimeout: Math.max(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, headersTimeout),
    connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_INTERVAL_MS, headersTimeout),
  });
  const connections = limitConnections(server, options.maxConnections ?? DEFAULT_MAX_CONNECTIONS);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const requestId = randomUUID();
    res.setHeader('x-request-id', requestId);
    if (connections.isOverCap(req.socket)) {
      closeWhenAnswered(res);
      sendError(
        res,
        { status: 503, message: `the service is serving its limit of ${connections.max} connections; retry later`, reason: 'unavailable' },
        { ...CONNECTION_CLOSE, 'retry-after': String(OVER_CAP_RETRY_AFTER_SEC) },
      );
      return;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    const isTts = path === TTS_PATH;
    const isAgent = path.startsWith(AGENT_PREFIX);
    if (!isTts && !isAgent) {
      sendError(res, { status: 404, message: `no route for ${req.method} ${path}`, reason: 'not_found' });
      return;
    }
    const auth = req.headers.authorization;
    if (auth === undefined) {
      sendError(
        res,
        { status: 401, message: 'missing Authorization: Bearer <token>', reason: 'missing_token' },
        { 'www-authenticate': 'Bearer' },
      );
      return;
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (!m) {
      sendError(
        res,
        { status: 401, message: 'the Authorization header must be "Bearer <token>"', reason: 'malformed_authorization' },
        { 'www-authenticate': 'Bearer' },
      );
      return;
    }
    if (m[1] !== token) {
      sendError(res, { status: 403, message: 'this token is not accepted by this service', reason: 'invalid_token' });
      return;
    }
    if (isAgent) {
      const handled = platform ? await platform(req, res, { token: m[1], requestId, baseUrl, synthesize }) : false;
      if (!handled && !res.headersSent) sendError(res, { status: 404, message: `no route for ${req.method} ${path}`, reason: 'not_found' });
      return;
    }
    if (req.method !== 'POST') {
      sendError(res, { status: 405, message: `${TTS_PATH} takes POST`, reason: 'method_not_allowed' }, { allow: 'POST' });
      return;
    }
    let faults = baseFaults;
    const header = req.headers[FAULT_HEADER];
    if (header !== undefined && options.acceptFaultHeader !== false) {
      try {
        faults = { ...baseFaults, ...parseFaults(Array.isArray(header) ? header.join(',') : header) };
      } catch (err) {
        if (!(err instanceof FaultSyntaxError)) throw err;
        sendError(res, { status: 400, message: err.message, reason: 'invalid_fault' });
        return;
      }
    }
    const body = await readBoundedBody(req, MAX_REQUEST_BYTES);
    if (body.kind === 'too_large') {
      closeWhenAnswered(res);
      sendError(
        res,
        { status: 413, message: `the request body is over ${MAX_REQUEST_BYTES} bytes`, reason: 'request_too_large' },
        { ...CONNECTION_CLOSE },
      );
      return;
    }
    await handleTts(req, res, body.bytes, {
      engine,
      plan: planContext,
      pace: options.pace ?? 'fast',
      leadSec: options.realtimeLeadSec ?? REALTIME_LEAD_SEC,
      clock,
      attempts,
      requestId,
      faults,
      log,
      writeIdleTimeoutMs: options.writeIdleTimeoutMs ?? DEFAULT_WRITE_IDLE_TIMEOUT_MS,
    });
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err: unknown) => {
      log(`internal error: ${(err as Error).stack ?? String(err)}`);
      sendError(res, { status: 500, message: 'internal error', reason: 'internal_error' });
    });
  });
  try {
    await Promise.all([engine.ready, loadResampler()]);
    warmEncoders();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    await engine.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let closing: Promise<void> | null = null;
  return {
    baseUrl,
    token,
    host,
    port,
    ...createLocalServiceApi({ baseUrl, token }),
    close: () => {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await Promise.all([closed, engine.close()]);
      })();
      return closing;
    },
  };
}
