/**
 * `client.sessions`: create, get and list sessions.
 *
 * The create body and the listing query are wire objects, so they take the service's snake_case
 * names (`agent_id`, `end_user_id`, `dynamic_variables`). The camelCase form these calls took
 * before (`agentId`, `endUserId`, `dynamicVariables`, `signal` in the params) is still accepted,
 * deprecated, until the next minor release; giving one field in both forms is refused.
 *
 * @see docs/service-interface.md#sessions
 */
import { ApiError, InvalidOptionError } from '../errors.js';
import type { DynamicVariableWarning } from '../protocol/dynamicVariables.js';
import { dynamicVariablesToObject, validateDynamicVariables } from '../protocol/dynamicVariables.js';
import type { HttpCore } from '../internal/http/http.js';
import { Page, PagePromise } from './pagination.js';
import { SESSION_LIST_QUERY, sessionPath } from '../protocol/paths.js';
import type { RequestOptions } from '../internal/http/requestOptions.js';
import { expectObject, requireId, withOptions } from '../internal/http/requestOptions.js';
import type {
  LegacySessionCreateParams,
  Session,
  SessionCreateParams,
  SessionListParams,
  SessionListResponse,
} from '../protocol/sessionTypes.js';

export interface SessionsApi {
  /**
   * Creates a session of a live agent; `params` is the wire body, sent as written (fields the
   * types do not know yet go in through `unknownFields`). Dynamic variables follow the spec's
   * rules before sending: invalid entries are dropped and reported through the client's
   * `onWarning`, the rest are kept. Not retried on 5xx or timeouts (a retry could start a second
   * session).
   *
   * @example
   * await client.sessions.create({ agent_id: agent.agent_id, end_user_id: 'u-1', dynamic_variables: { name: 'Ada' } });
   */
  create(params: SessionCreateParams, options?: RequestOptions): Promise<Session>;
  /**
   * @deprecated The camelCase form (`agentId`, `endUserId`, `dynamicVariables`, `signal`); use
   * `agent_id`, `end_user_id`, `dynamic_variables` and `options.signal`. Accepted until the next
   * minor release.
   */
  create(params: LegacySessionCreateParams, options?: RequestOptions): Promise<Session>;
  /**
   * Fetches the full session detail. Items keep unknown variants; decimal strings stay strings.
   *
   * @example
   * const s = await client.sessions.get(id);
   * for (const item of s.items ?? []) if (isMessageItem(item)) console.log(item.role, item.content);
   */
  get(sessionId: string, options?: RequestOptions): Promise<Session>;
  /**
   * Lists sessions, newest first as the service orders them. Await it for one page, or iterate it
   * for every session of every page.
   *
   * @example
   * for await (const s of client.sessions.list({ status: 'failed', agent_id })) console.log(s.session_id, s.end_reason);
   */
  list(params?: SessionListParams, options?: RequestOptions): PagePromise<Session>;
}

export interface SessionsContext {
  /** Where dropped dynamic variables are reported. */
  onWarning: (message: string, detail: DynamicVariableWarning) => void;
}

/** The deprecated camelCase names of the create body → their wire names. */
const LEGACY_CREATE_FIELDS: ReadonlyMap<string, string> = new Map([
  ['agentId', 'agent_id'],
  ['endUserId', 'end_user_id'],
  ['dynamicVariables', 'dynamic_variables'],
]);

interface CreateRequest {
  body: Record<string, unknown>;
  signal: AbortSignal | undefined;
  /** The name the caller used for a wire field, for error messages. */
  nameOf: (wire: string) => string;
}

/** The wire body from either form; every other field passes through as written. */
function createRequest(params: SessionCreateParams | LegacySessionCreateParams): CreateRequest {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw new InvalidOptionError('params', 'sessions.create takes the session body as an object');
  }
  const given = new Map<string, string>();
  let signal: AbortSignal | undefined;
  const entries: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(params)) {
    if (key === 'signal' && value instanceof AbortSignal) {
      signal = value;
      continue;
    }
    const wire = LEGACY_CREATE_FIELDS.get(key) ?? key;
    if (wire !== key) {
      if (Object.hasOwn(params, wire)) {
        throw new InvalidOptionError(key, `give ${wire} or the deprecated ${key}, not both`);
      }
      given.set(wire, key);
    }
    entries.push([wire, value]);
  }
  // fromEntries defines own properties, so a key such as `__proto__` stays a plain field.
  return { body: Object.fromEntries(entries), signal, nameOf: (wire) => given.get(wire) ?? wire };
}

/** `agent_id` of the listing query, from either form. */
function listAgentId(params: SessionListParams): string | undefined {
  if (params.agent_id !== undefined && params.agentId !== undefined) {
    throw new InvalidOptionError('agentId', 'give agent_id or the deprecated agentId, not both');
  }
  return params.agent_id ?? params.agentId;
}

function checkListParams(params: SessionListParams): void {
  const { limit } = params;
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1)) {
    throw new InvalidOptionError('limit', 'limit must be a positive integer');
  }
}

function toPage(res: unknown): SessionListResponse {
  const body = expectObject<Record<string, unknown>>(res, 'sessions.list');
  const { data } = body;
  const next = body['next_cursor'];
  if (!Array.isArray(data)) throw new ApiError('Unexpected response for sessions.list: `data` is not an array');
  if (next !== undefined && next !== null && typeof next !== 'string') {
    throw new ApiError('Unexpected response for sessions.list: `next_cursor` is not a string or null');
  }
  return { ...body, data: data as Session[], next_cursor: next ?? null };
}

export function createSessionsApi(http: HttpCore, ctx: SessionsContext): SessionsApi {
  const { paths } = http.config;
  return {
    async create(params: SessionCreateParams | LegacySessionCreateParams, options?: RequestOptions) {
      const { body, signal, nameOf } = createRequest(params);
      requireId(nameOf('agent_id'), body['agent_id']);
      const { metadata } = body;
      if (metadata !== undefined && (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))) {
        throw new InvalidOptionError('metadata', 'metadata must be a JSON object');
      }
      const endUserId = body['end_user_id'];
      if (endUserId !== undefined && typeof endUserId !== 'string') {
        const name = nameOf('end_user_id');
        throw new InvalidOptionError(name, `${name} must be a string`);
      }
      const dynamicVariables = body['dynamic_variables'];
      if (dynamicVariables !== undefined) {
        const { variables } = validateDynamicVariables(dynamicVariables, {
          onWarning: (w) => ctx.onWarning(`sessions.create: ${w.message}`, w),
        });
        body['dynamic_variables'] = dynamicVariablesToObject(variables);
      }
      const req = { method: 'POST' as const, path: paths.sessions, json: body };
      const res = await http.requestJson<unknown>(withOptions(req, { ...(signal ? { signal } : {}), ...options }));
      return expectObject<Session>(res, 'sessions.create', 'session_id');
    },
    async get(sessionId, options) {
      const path = sessionPath(paths, requireId('sessionId', sessionId));
      const res = await http.requestJson<unknown>(withOptions({ method: 'GET', path }, options));
      const session = expectObject<Session>(res, 'sessions.get', 'session_id');
      if (session.items !== undefined && !Array.isArray(session.items)) {
        throw new ApiError('Unexpected response for sessions.get: `items` is not an array');
      }
      return session;
    },
    list(params = {}, options) {
      let agentId: string | undefined;
      try {
        checkListParams(params);
        agentId = listAgentId(params);
      } catch (e) {
        return new PagePromise<Session>(Promise.reject(e));
      }
      const fetchPage = async (cursor: string | undefined): Promise<Page<Session>> => {
        const query = {
          [SESSION_LIST_QUERY.status]: params.status,
          [SESSION_LIST_QUERY.agentId]: agentId,
          [SESSION_LIST_QUERY.limit]: params.limit,
          [SESSION_LIST_QUERY.cursor]: cursor,
        };
        const signal = options?.signal ?? params.signal;
        const req = withOptions({ method: 'GET', path: paths.sessions, query }, { ...options, ...(signal ? { signal } : {}) });
        const res = toPage(await http.requestJson<unknown>(req));
        return new Page(res.data, res.next_cursor, cursor, fetchPage);
      };
      return new PagePromise(fetchPage(params.cursor));
    },
  };
}
