/**
 * The typed client (voicewire/client) against the platform: the same paths, bodies and answers
 * on both sides, and the service's error bodies mapped to the client's typed errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../../src/client/index.js';
import { ConflictError, NotFoundError, UnprocessableEntityError } from '../../../src/errors.js';
import { minimalConfig, startPlatform, TOKEN, type PlatformServer } from './helpers.js';

let p: PlatformServer;
let client: Client;
beforeAll(async () => {
  p = await startPlatform();
  client = createClient({ baseUrl: p.url, apiKey: TOKEN, maxRetries: 0 });
});
afterAll(async () => {
  await p.close();
});

describe('the typed client against the platform', () => {
  it('creates, updates, publishes and reads an agent', async () => {
    const agent = await client.agents.create({ name: 'Client agent', config: minimalConfig() as any });
    expect(agent.publication_state).toBe('draft');
    const updated = await client.agents.updateConfig(agent.agent_id, {
      webhooks: { post_call: [{ url: 'http://127.0.0.1:9/x', secret: 'whsec_c' }] },
    });
    expect(JSON.stringify(updated)).not.toContain('whsec_c');
    await expect(client.sessions.create({ agent_id: agent.agent_id })).rejects.toBeInstanceOf(ConflictError);
    const published = await client.agents.publish(agent.agent_id);
    expect(published).toMatchObject({ publication_state: 'live', version: 1 });
    const got = await client.agents.get(agent.agent_id);
    expect(got.config?.webhooks?.post_call).toEqual([{ url: 'http://127.0.0.1:9/x' }]);
    await expect(client.agents.get('agent_missing')).rejects.toBeInstanceOf(NotFoundError);
    const bare = await p.call('POST', '/v1/agent/agents', { name: 'No config yet' });
    await expect(client.agents.publish(bare.body.agent_id)).rejects.toBeInstanceOf(UnprocessableEntityError);
  });

  it('creates sessions, reads their detail with decimal strings, and iterates the listing', async () => {
    const agent = await client.agents.create({ name: 'Sessions', config: minimalConfig() as any });
    await client.agents.publish(agent.agent_id);
    const metadata = { ticket: 'T-1', nested: { deep: [1, 'two'] } };
    const created = await client.sessions.create({
      agent_id: agent.agent_id,
      end_user_id: 'eu',
      metadata,
      dynamic_variables: { name: 'Ada', company: 'Acme' },
    });
    expect(created.metadata).toEqual(metadata);
    await p.call('POST', `/v1/agent/sessions/${created.session_id}/simulate`, { direction: 'outbound', turns: [{ user: 'Hello there' }] });
    const detail = await client.sessions.get(created.session_id);
    expect(detail.status).toBe('completed');
    const user = detail.items!.find((i) => i.type === 'message' && (i as any).role === 'user') as any;
    expect(typeof user.llm_usage.cost_usd).toBe('string');
    for (let i = 0; i < 4; i++)
      await p.call('POST', `/v1/agent/agents/${agent.agent_id}/simulate`, { direction: 'outbound', dial_status: 'busy' });
    const ids: string[] = [];
    for await (const s of client.sessions.list({ agent_id: agent.agent_id, limit: 2 })) ids.push(s.session_id);
    expect(ids).toHaveLength(5);
    const failed: string[] = [];
    for await (const s of client.sessions.list({ agent_id: agent.agent_id, status: 'failed', limit: 3 }))
      failed.push(s.end_reason as string);
    expect(failed).toEqual(['dial_failed', 'dial_failed', 'dial_failed', 'dial_failed']);
  });
});
