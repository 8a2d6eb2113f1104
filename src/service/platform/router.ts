/**
 * Routes of the agent platform, on the same paths the client uses (src/protocol/paths.ts), plus
 * the local-only simulation, analysis re-run, versions and delivery-log routes.
 *
 * | Method | Path                                              | Operation                     |
 * |--------|---------------------------------------------------|-------------------------------|
 * | POST   | /v1/agent/agents                                  | create agent (201)            |
 * | GET    | /v1/agent/agents/{agent_id}                       | get agent (draft config)      |
 * | PATCH  | /v1/agent/agents/{agent_id}/config                | change the draft config       |
 * | POST   | /v1/agent/agents/{agent_id}/publish               | publish a version             |
 * | GET    | /v1/agent/agents/{agent_id}/versions              | published versions (local)    |
 * | POST   | /v1/agent/agents/{agent_id}/simulate              | simulate a call (local)       |
 * | POST   | /v1/agent/sessions                                | create session (201)          |
 * | GET    | /v1/agent/sessions?status=&agent_id=&limit=&cursor= | list sessions               |
 * | GET    | /v1/agent/sessions/{session_id}                   | session detail                |
 * | POST   | /v1/agent/sessions/{session_id}/simulate          | run a created session (local) |
 * | POST   | /v1/agent/sessions/{session_id}/analysis/rerun    | re-run analysis (local)       |
 * | GET    | /v1/agent/sessions/{session_id}/deliveries        | webhook delivery log (local)  |
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AGENTS_BASE_PATH, AGENT_CONFIG_SUFFIX, AGENT_PUBLISH_SUFFIX, SESSIONS_BASE_PATH } from '../../protocol/paths.js';
import { workspaceFor, type AgentPlatform } from './AgentPlatform.js';
import { rerunAnalysis, simulateCall } from './callSimulator.js';
import { PlatformHttpError, readJsonObject, sendError, sendJson } from './http.js';
import type { SpeakFunction } from './options.js';

export const AGENT_VERSIONS_SUFFIX = '/versions';
export const SIMULATE_SUFFIX = '/simulate';
export const ANALYSIS_RERUN_SUFFIX = '/analysis/rerun';
export const DELIVERIES_SUFFIX = '/deliveries';

export interface RouteContext {
  requestId: string;
  token: string | undefined;
  speak: SpeakFunction | undefined;
}

/** Aborts when the client goes away before the answer is out: long work for it should stop. */
function clientGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new Error('the client closed the request'));
  });
  return controller.signal;
}

type Handler = (id: string | undefined) => Promise<[status: number, body: unknown]>;

function under(base: string, pathname: string): string | null {
  if (pathname === base) return '';
  return pathname.startsWith(`${base}/`) ? pathname.slice(base.length) : null;
}

function splitId(rest: string): { id: string; suffix: string } | null {
  const m = /^\/([^/]+)(\/.*)?$/.exec(rest);
  if (!m) return null;
  try {
    return { id: decodeURIComponent(m[1]!), suffix: m[2] ?? '' };
  } catch {
    return null;
  }
}

/** True when `pathname` belongs to the platform (agents or sessions). */
export function isPlatformPath(pathname: string): boolean {
  return under(AGENTS_BASE_PATH, pathname) !== null || under(SESSIONS_BASE_PATH, pathname) !== null;
}

export async function routePlatformRequest(
  platform: AgentPlatform,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RouteContext,
): Promise<boolean> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const ws = workspaceFor(ctx.token);
  const method = req.method ?? 'GET';
  const body = () => readJsonObject(req);
  const optionalBody = () => readJsonObject(req, true);
  const gone = clientGone(res);
  const routes: Array<[string, string, string, Handler]> = [
    // [base, suffix ('' = collection, '/' = one item, '/x' = item suffix), method, handler]
    [AGENTS_BASE_PATH, '', 'POST', async () => [201, platform.createAgent(ws, await body())]],
    [AGENTS_BASE_PATH, '/', 'GET', async (id) => [200, platform.agentDocument(platform.agent(ws, id!))]],
    [AGENTS_BASE_PATH, AGENT_CONFIG_SUFFIX, 'PATCH', async (id) => [200, platform.patchConfig(ws, id!, await body())]],
    [AGENTS_BASE_PATH, AGENT_PUBLISH_SUFFIX, 'POST', async (id) => [200, platform.publish(ws, id!)]],
    [AGENTS_BASE_PATH, AGENT_VERSIONS_SUFFIX, 'GET', async (id) => [200, platform.versions(ws, id!)]],
    [
      AGENTS_BASE_PATH,
      SIMULATE_SUFFIX,
      'POST',
      async (id) => [200, await simulateCall(platform, ws, { agentId: id! }, await optionalBody(), ctx.speak, gone)],
    ],
    [SESSIONS_BASE_PATH, '', 'POST', async () => [201, platform.createSession(ws, await body())]],
    [SESSIONS_BASE_PATH, '', 'GET', async () => [200, platform.listSessions(ws, url.searchParams)]],
    [SESSIONS_BASE_PATH, '/', 'GET', async (id) => [200, platform.getSession(ws, id!)]],
    [
      SESSIONS_BASE_PATH,
      SIMULATE_SUFFIX,
      'POST',
      async (id) => [200, await simulateCall(platform, ws, { sessionId: id! }, await optionalBody(), ctx.speak, gone)],
    ],
    [SESSIONS_BASE_PATH, ANALYSIS_RERUN_SUFFIX, 'POST', async (id) => [200, await rerunAnalysis(platform, ws, id!, await optionalBody())]],
    [SESSIONS_BASE_PATH, DELIVERIES_SUFFIX, 'GET', async (id) => [200, { data: platform.deliveries(ws, id!) }]],
  ];
  let pathMatched = false;
  for (const [base, suffix, routeMethod, handler] of routes) {
    const rest = under(base, url.pathname);
    if (rest === null) continue;
    let id: string | undefined;
    if (suffix === '') {
      if (rest !== '' && rest !== '/') continue;
    } else {
      const parts = splitId(rest);
      if (parts === null || parts.suffix !== (suffix === '/' ? '' : suffix)) continue;
      id = parts.id;
    }
    pathMatched = true;
    if (routeMethod !== method) continue;
    try {
      const [status, answer] = await handler(id);
      sendJson(res, status, answer, ctx.requestId);
    } catch (err) {
      if (err instanceof PlatformHttpError) sendError(res, err, ctx.requestId);
      else sendError(res, new PlatformHttpError(500, 'internal_error', 'the local service failed to handle the request'), ctx.requestId);
    }
    return true;
  }
  if (!isPlatformPath(url.pathname)) return false;
  sendError(
    res,
    pathMatched
      ? new PlatformHttpError(405, 'method_not_allowed', `${method} is not allowed on ${url.pathname}`)
      : new PlatformHttpError(404, 'not_found', `no route ${url.pathname}`),
    ctx.requestId,
  );
  return true;
}
