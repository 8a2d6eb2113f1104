/**
 * `client.sessions`: create, get and list sessions.
 *
 * @see ../../shared/spec/service-interface.md "Session", "Operations that are referenced"
 */
import { ApiError, InvalidOptionError } from '../errors.js';
import type { DynamicVariableWarning } from '../protocol/dynamicVariables.js';
import { dynamicVariablesToObject, validateDynamicVariables } from '../protocol/dynamicVariables.js';
import type { HttpCore } from './http.js';
import { Page, PagePromise } from './pagination.js';
import { SESSION_LIST_QUERY, sessionPath } from '../protocol/paths.js';
import type { RequestOptions } from './requestOptions.js';
import { expectObject, requireId, withOptions } from './requestOptions.js';
import type { Session, SessionCreateParams, SessionListParams, SessionListResponse } from '../protocol/sessionTypes.js';

export interface SessionsApi {
  /**
   * Creates a session of a live agent. Dynamic variables follow the spec's rules before sending:
   * invalid entries are dropped and reported through the client's `onWarning`, the rest are kept.
   * Not retried on 5xx or timeouts (a retry could start a second session).
   */
  create(params: SessionCreateParams, options?: RequestOptions): Promise<Session>;
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
   * for await (const s of client.sessions.list({ status: 'failed' })) console.log(s.session_id, s.end_reason);
   */
  list(params?: SessionListParams, options?: RequestOptions): PagePromise<Session>;
}

export interface SessionsContext {
  /** Where dropped dynamic variables are reported. */
  onWarning: (message: string, detail: DynamicVariableWarning) => void;
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
    async create(params, options) {
      const agentId = requireId('agentId', params.agentId);
      if (params.metadata !== undefined && (typeof params.metadata !== 'object' || params.metadata === null || Array.isArray(params.metadata))) {
        throw new InvalidOptionError('metadata', 'metadata must be a JSON object');
      }
      if (params.endUserId !== undefined && typeof params.endUserId !== 'string') {
        throw new InvalidOptionError('endUserId', 'endUserId must be a string');
      }
      const body: Record<string, unknown> = { agent_id: agentId };
      if (params.endUserId !== undefined) body['end_user_id'] = params.endUserId;
      if (params.metadata !== undefined) body['metadata'] = params.metadata;
      if (params.dynamicVariables !== undefined) {
        const { variables } = validateDynamicVariables(params.dynamicVariables, {
          onWarning: (w) => ctx.onWarning(`sessions.create: ${w.message}`, w),
        });
        body['dynamic_variables'] = dynamicVariablesToObject(variables);
      }
      const req = { method: 'POST' as const, path: paths.sessions, json: body };
      const res = await http.requestJson<unknown>(withOptions(req, { ...(params.signal ? { signal: params.signal } : {}), ...options }));
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
      try {
        checkListParams(params);
      } catch (e) {
        return new PagePromise<Session>(Promise.reject(e));
      }
      const fetchPage = async (cursor: string | undefined): Promise<Page<Session>> => {
        const query = {
          [SESSION_LIST_QUERY.status]: params.status,
          [SESSION_LIST_QUERY.agentId]: params.agentId,
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
