/**
 * `client.agents`: create, get, update the config of, and publish agents.
 *
 * @see docs/service-interface.md#agents and #endpoints
 */
import type { HttpCore } from '../internal/http/http.js';
import type { Agent, AgentConfig, AgentCreateParams, AgentPublishResult } from '../protocol/agentTypes.js';
import { agentConfigPath, agentPath, agentPublishPath } from '../protocol/paths.js';
import type { RequestOptions } from '../internal/http/requestOptions.js';
import { expectObject, requireId, withOptions } from '../internal/http/requestOptions.js';
import { validateAgentConfig, validateAgentCreate } from '../protocol/validateAgentConfig.js';

export interface AgentsApi {
  /**
   * Creates an agent, optionally with its full initial configuration. The request is validated
   * before any network call (`RequestValidationError` names the field and the rule). Not retried
   * on 5xx or timeouts, since a retry could create a second agent.
   *
   * @example
   * const agent = await client.agents.create({
   *   name: 'Front desk',
   *   config: {
   *     prompt: { system_prompt: 'You greet {{customer_name}}.' },
   *     voice: { voice_id: 'v1', speaking_language: 'en' },
   *   },
   * });
   */
  create(params: AgentCreateParams, options?: RequestOptions): Promise<Agent>;
  /** Fetches an agent (configuration secrets are never returned). */
  get(agentId: string, options?: RequestOptions): Promise<Agent>;
  /**
   * `PATCH /v1/agent/agents/{id}/config`. Changes apply to production calls only after
   * {@link publish}. Types are validated; unknown fields pass through.
   */
  updateConfig(agentId: string, config: AgentConfig, options?: RequestOptions): Promise<Agent>;
  /** Publishes a version: `draft` → `live`. */
  publish(agentId: string, options?: RequestOptions): Promise<AgentPublishResult>;
}

export function createAgentsApi(http: HttpCore): AgentsApi {
  const { paths } = http.config;
  return {
    async create(params, options) {
      validateAgentCreate(params);
      const body = { ...params, description: params.description ?? '' };
      const res = await http.requestJson<unknown>(withOptions({ method: 'POST', path: paths.agents, json: body }, options));
      return expectObject<Agent>(res, 'agents.create', 'agent_id');
    },
    async get(agentId, options) {
      const path = agentPath(paths, requireId('agentId', agentId));
      const res = await http.requestJson<unknown>(withOptions({ method: 'GET', path }, options));
      return expectObject<Agent>(res, 'agents.get', 'agent_id');
    },
    async updateConfig(agentId, config, options) {
      const path = agentConfigPath(paths, requireId('agentId', agentId));
      validateAgentConfig(config);
      const res = await http.requestJson<unknown>(withOptions({ method: 'PATCH', path, json: config }, options));
      return expectObject<Agent>(res ?? {}, 'agents.updateConfig');
    },
    async publish(agentId, options) {
      const path = agentPublishPath(paths, requireId('agentId', agentId));
      const res = await http.requestJson<unknown>(withOptions({ method: 'POST', path, json: {} }, options));
      return expectObject<AgentPublishResult>(res ?? {}, 'agents.publish');
    },
  };
}
