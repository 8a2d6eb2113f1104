/**
 * The REST paths of the service, in one place, so the client and the local service
 * (`voicewire/service`) agree on them.
 *
 * The spec pins three paths (speech stream, agent creation, session retrieval) and the config
 * PATCH. Session creation, listing and agent publishing are "not shown" there; we picked the
 * conventional REST shapes below. Every base path is overridable through `createClient({ paths })`.
 *
 * | Operation            | Method | Path                                          | Pinned by spec |
 * |----------------------|--------|-----------------------------------------------|----------------|
 * | speech stream        | POST   | /v1/tts/stream/with-timestamp                 | yes            |
 * | create agent         | POST   | /v1/agent/agents                              | yes            |
 * | get agent            | GET    | /v1/agent/agents/{agent_id}                   | no (REST)      |
 * | update agent config  | PATCH  | /v1/agent/agents/{agent_id}/config            | yes            |
 * | publish agent        | POST   | /v1/agent/agents/{agent_id}/publish           | no (REST)      |
 * | create session       | POST   | /v1/agent/sessions                            | no (REST)      |
 * | list sessions        | GET    | /v1/agent/sessions?status=&agent_id=&limit=&cursor= | no (REST) |
 * | get session          | GET    | /v1/agent/sessions/{session_id}               | yes            |
 *
 * @see docs/service-interface.md#endpoints and #sessions (the operations whose paths are open)
 */

/** Speech synthesis with word timestamps (SSE). */
export const TTS_STREAM_WITH_TIMESTAMP_PATH = '/v1/tts/stream/with-timestamp';
/** Base path of agents. */
export const AGENTS_BASE_PATH = '/v1/agent/agents';
/** Base path of sessions. */
export const SESSIONS_BASE_PATH = '/v1/agent/sessions';
/** Suffix under one agent for its configuration (PATCH). */
export const AGENT_CONFIG_SUFFIX = '/config';
/** Suffix under one agent to publish a version (POST). */
export const AGENT_PUBLISH_SUFFIX = '/publish';

/** Query parameter names of the session listing. */
export const SESSION_LIST_QUERY = {
  status: 'status',
  agentId: 'agent_id',
  limit: 'limit',
  cursor: 'cursor',
} as const;

/**
 * Route templates (`:param` style) for servers that implement the same API
 * (the local service imports these).
 */
export const ROUTE_TEMPLATES = {
  ttsStreamWithTimestamp: TTS_STREAM_WITH_TIMESTAMP_PATH,
  agents: AGENTS_BASE_PATH,
  agent: `${AGENTS_BASE_PATH}/:agent_id`,
  agentConfig: `${AGENTS_BASE_PATH}/:agent_id${AGENT_CONFIG_SUFFIX}`,
  agentPublish: `${AGENTS_BASE_PATH}/:agent_id${AGENT_PUBLISH_SUFFIX}`,
  sessions: SESSIONS_BASE_PATH,
  session: `${SESSIONS_BASE_PATH}/:session_id`,
} as const;

/** Base paths a client may override (e.g. behind a gateway that rewrites prefixes). */
export interface ApiPaths {
  /** @defaultValue `'/v1/tts/stream/with-timestamp'` */
  ttsStreamWithTimestamp: string;
  /** @defaultValue `'/v1/agent/agents'` */
  agents: string;
  /** @defaultValue `'/v1/agent/sessions'` */
  sessions: string;
}

export const DEFAULT_API_PATHS: Readonly<ApiPaths> = Object.freeze({
  ttsStreamWithTimestamp: TTS_STREAM_WITH_TIMESTAMP_PATH,
  agents: AGENTS_BASE_PATH,
  sessions: SESSIONS_BASE_PATH,
});

/** Joins a base path and an id, percent-encoding the id so `/` or `?` in it cannot change the route. */
export function joinPath(base: string, id: string, suffix = ''): string {
  return `${base.replace(/\/+$/, '')}/${encodeURIComponent(id)}${suffix}`;
}

export function agentPath(paths: ApiPaths, agentId: string): string {
  return joinPath(paths.agents, agentId);
}
export function agentConfigPath(paths: ApiPaths, agentId: string): string {
  return joinPath(paths.agents, agentId, AGENT_CONFIG_SUFFIX);
}
export function agentPublishPath(paths: ApiPaths, agentId: string): string {
  return joinPath(paths.agents, agentId, AGENT_PUBLISH_SUFFIX);
}
export function sessionPath(paths: ApiPaths, sessionId: string): string {
  return joinPath(paths.sessions, sessionId);
}
