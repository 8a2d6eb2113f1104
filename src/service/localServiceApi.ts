/**
 * The local service's own features, as typed methods of the `startLocalService()` handle:
 * simulated calls, analysis re-runs, the webhook delivery log, published versions and fault
 * injection. None of them is part of the public service interface, so `createClient()` has no
 * method for them.
 *
 * The methods call the running service over its HTTP API with its token rather than the
 * platform in-process: the platform behind the server is pluggable (`platform` option) and the
 * default one is made on demand inside the request handler, so the handle holds no platform;
 * the token selects the workspace the user's own client sees; and every answer, error body and
 * typed error (`NotFoundError`, `ConflictError`, …, from the HTTP core the client uses too,
 * `src/internal/http/`) is exactly the
 * one an HTTP caller gets. The cost is one loopback round trip.
 */
import { ApiError, InvalidOptionError } from '../errors.js';
import type { AgentConfig } from '../protocol/agentTypes.js';
import { createHttpCore, type HttpCore, type HttpRequest } from '../internal/http/http.js';
import { abortableSleep, DEFAULT_RETRY_TIMING } from '../internal/http/retry.js';
import { AGENTS_BASE_PATH, DEFAULT_API_PATHS, joinPath, SESSIONS_BASE_PATH } from '../protocol/paths.js';
import { expectObject, requireId, withOptions, type RequestOptions } from '../internal/http/requestOptions.js';
import type { Session } from '../protocol/sessionTypes.js';
import { ATTEMPT_KEY_HEADER, FAULT_HEADER, FaultSyntaxError, formatFaults, parseFaults, type FaultSpec } from './faults.js';
import type { SimulationTarget } from './platform/callSimulator.js';
import type { ConversationInitOutcome } from './platform/conversationInit.js';
import { AGENT_VERSIONS_SUFFIX, ANALYSIS_RERUN_SUFFIX, DELIVERIES_SUFFIX, SIMULATE_SUFFIX } from './platform/router.js';
import type { AnalysisResult, DialStatus, EndReason } from './platform/types.js';
import type { DeliveryReport } from './platform/webhookDelivery.js';

/** One turn of a simulated conversation: the caller speaks, the agent speaks, or the agent calls a tool. */
export type SimulatedTurnInput =
  { user: string } | { agent: string } | { tool: string; arguments?: unknown; result?: unknown; is_error?: boolean };

/**
 * The body of a simulated call, in the wire names of `POST …/simulate` (every field optional).
 * `preview`, `end_user_id`, `metadata` and `dynamic_variables` apply to agent-scoped simulations
 * only: a created session already has them.
 */
export interface SimulateCallRequest {
  /** @defaultValue 'outbound' */
  direction?: 'inbound' | 'outbound' | 'web';
  /** Builder preview: runs the draft config, sends no webhooks, calls no `conversation_init`. */
  preview?: boolean;
  /** Outbound only. @defaultValue 'answered' */
  dial_status?: DialStatus;
  /** false: nobody joined (inbound or web; `end_reason` room_join_timeout or cancelled). @defaultValue true */
  connected?: boolean;
  caller_number?: string;
  dialed_number?: string;
  carrier_call_sid?: string;
  end_user_id?: string;
  metadata?: Record<string, unknown>;
  dynamic_variables?: Record<string, string | number | boolean>;
  turns?: SimulatedTurnInput[];
  /** @defaultValue user_hangup (agent_hangup after a `hang_up_call` tool) */
  end_reason?: EndReason;
  /** @defaultValue spoken audio plus an estimate of the caller's speech */
  duration_seconds?: number;
  /** Makes the analysis settle to `error` with this cause. */
  analysis_error?: string;
  /** Answer only once every webhook delivery settled; the answer then carries `deliveries`. */
  wait_for_deliveries?: boolean;
}

/** What the inbound `conversation_init` webhook gave (null when none was called). */
export interface ConversationInitReport {
  outcome: ConversationInitOutcome;
  status: number | null;
  variables: Record<string, string | number | boolean>;
  warnings: string[];
}

/** The answer of a simulated call, once the call and its analysis settled. */
export interface SimulateCallResult {
  /** Set when the speech engine failed mid-call; the call then ended with `internal_error`. */
  error?: string;
  session: Session;
  /** The prompt and first message as filled from the dynamic variables. */
  rendered: { system_prompt: string; first_message: string | null };
  conversation_init: ConversationInitReport | null;
  /** The `post_call` endpoints and the events queued to them, in order. */
  webhooks: { endpoints: string[]; events: string[] };
  /** Only with `wait_for_deliveries: true`. */
  deliveries?: DeliveryReport[];
}

export interface RerunAnalysisRequest {
  /** Makes this run settle to `error` with this cause. */
  analysis_error?: string;
  /** Answer only once the new `call.analyzed` delivery settled. */
  wait_for_deliveries?: boolean;
}

export interface RerunAnalysisResult {
  session_id: string;
  analysis: AnalysisResult | null;
}

/** One published version of an agent (secrets never returned). */
export interface PublishedAgentVersion {
  version: number;
  published_at: string;
  config: AgentConfig;
}

/** What {@link LocalServiceApi.faultHeaders} puts on a request besides the fault itself. */
export interface FaultHeaderOptions {
  /** Counts attempts of "the same request" by this key (the `fail` fault) instead of a body hash. */
  attemptKey?: string;
}

/**
 * The local-only features of a running local service. Every method that calls the service
 * rejects with the client's typed errors: `NotFoundError` (unknown agent or session, or a
 * service started with `platform: false`), `ConflictError` (e.g. a session that already ran),
 * `BadRequestError` (a body the service refuses), `ApiConnectionError` after `close()`.
 */
export interface LocalServiceApi {
  /**
   * Simulates a call: `{ agentId }` starts a new session on the agent's live version (or its
   * draft with `preview: true`); `{ sessionId }` runs a created, pending session. Webhooks go to
   * the agent's `post_call` endpoints, signed, as a real call sends them.
   */
  simulateCall(target: SimulationTarget, request?: SimulateCallRequest, options?: RequestOptions): Promise<SimulateCallResult>;
  /** Re-runs the analysis of a finished call; a new `call.analyzed` with a newer `finished_at` is delivered. */
  rerunAnalysis(sessionId: string, request?: RerunAnalysisRequest, options?: RequestOptions): Promise<RerunAnalysisResult>;
  /** The webhook delivery log of a session: every delivery in queue order, every attempt so far. */
  deliveries(sessionId: string, options?: RequestOptions): Promise<DeliveryReport[]>;
  /** The published versions of an agent, oldest first. */
  agentVersions(agentId: string, options?: RequestOptions): Promise<PublishedAgentVersion[]>;
  /**
   * Headers that inject a fault into one speech request (pass them as the request's `headers`).
   * The spec is checked here: a bad one throws `InvalidOptionError` before any request. The
   * service ignores them when started with `acceptFaultHeader: false`.
   */
  faultHeaders(faults: FaultSpec | string, options?: FaultHeaderOptions): Record<string, string>;
}

/**
 * Wait for the answer of a local-only call (the client's default is 30 s). A simulation with
 * `wait_for_deliveries` answers only once every delivery settled, and with the real service's
 * timings one event to a receiver that never answers takes 3 × 10 s + 1 s + 5 s; three events
 * in a row to such a receiver take about 110 s. The service bounds all of these waits itself, so
 * this only has to be longer; pass `timeoutMs` per call for slower delivery settings.
 */
export const LOCAL_CALL_TIMEOUT_MS = 300_000;

export interface LocalServiceApiTarget {
  baseUrl: string;
  token: string;
}

/** The local-only methods bound to one running service. */
export function createLocalServiceApi({ baseUrl, token }: LocalServiceApiTarget): LocalServiceApi {
  let core: HttpCore | undefined;
  const call = async (req: HttpRequest, options: RequestOptions | undefined, what: string): Promise<Record<string, unknown>> => {
    core ??= createHttpCore({
      baseUrl,
      apiKey: token,
      headers: {},
      timeoutMs: LOCAL_CALL_TIMEOUT_MS,
      idleTimeoutMs: LOCAL_CALL_TIMEOUT_MS,
      maxRetries: 0, // a loopback service: a failure is an answer, not a transient fault
      fetch: globalThis.fetch,
      paths: DEFAULT_API_PATHS,
      retryTiming: DEFAULT_RETRY_TIMING,
      sleep: abortableSleep,
      now: Date.now,
      random: Math.random,
    });
    const res = await core.requestJson<unknown>(withOptions(req, options));
    return expectObject<Record<string, unknown>>(res, what);
  };
  const listOf = <T>(res: Record<string, unknown>, what: string): T[] => {
    const { data } = res;
    if (!Array.isArray(data)) throw new ApiError(`Unexpected response for ${what}: \`data\` is not an array`);
    return data as T[];
  };
  return {
    async simulateCall(target, request = {}, options) {
      const path =
        'sessionId' in target
          ? joinPath(SESSIONS_BASE_PATH, requireId('sessionId', target.sessionId), SIMULATE_SUFFIX)
          : joinPath(AGENTS_BASE_PATH, requireId('agentId', target.agentId), SIMULATE_SUFFIX);
      return (await call({ method: 'POST', path, json: request }, options, 'simulateCall')) as unknown as SimulateCallResult;
    },
    async rerunAnalysis(sessionId, request = {}, options) {
      const path = joinPath(SESSIONS_BASE_PATH, requireId('sessionId', sessionId), ANALYSIS_RERUN_SUFFIX);
      return (await call({ method: 'POST', path, json: request }, options, 'rerunAnalysis')) as unknown as RerunAnalysisResult;
    },
    async deliveries(sessionId, options) {
      const path = joinPath(SESSIONS_BASE_PATH, requireId('sessionId', sessionId), DELIVERIES_SUFFIX);
      return listOf<DeliveryReport>(await call({ method: 'GET', path }, options, 'deliveries'), 'deliveries');
    },
    async agentVersions(agentId, options) {
      const path = joinPath(AGENTS_BASE_PATH, requireId('agentId', agentId), AGENT_VERSIONS_SUFFIX);
      return listOf<PublishedAgentVersion>(await call({ method: 'GET', path }, options, 'agentVersions'), 'agentVersions');
    },
    faultHeaders(faults, options = {}) {
      const text = typeof faults === 'string' ? faults : formatFaults(faults);
      try {
        parseFaults(text);
      } catch (err) {
        if (!(err instanceof FaultSyntaxError)) throw err;
        throw new InvalidOptionError('faults', err.message);
      }
      return { [FAULT_HEADER]: text, ...(options.attemptKey !== undefined ? { [ATTEMPT_KEY_HEADER]: options.attemptKey } : {}) };
    },
  };
}
