import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { minimalConfig, startPlatform, type PlatformServer } from './helpers.js';

let p: PlatformServer;
beforeEach(async () => {
  p = await startPlatform();
});
afterEach(async () => {
  await p.close();
});

const create = (body: unknown, token?: string) => p.call('POST', '/v1/agent/agents', body, token);

describe('agents', () => {
  it('creation answers 201 with the agent document, as a draft, with spec defaults', async () => {
    const r = await create({ name: 'Front desk', config: minimalConfig() });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      name: 'Front desk',
      description: '',
      status: 'active',
      publication_state: 'draft',
      public_enabled: false,
      allowed_origins: [],
      overrides_allowed: [],
    });
    expect(typeof r.body.agent_id).toBe('string');
    expect(typeof r.body.workspace_id).toBe('string');
    expect(Date.parse(r.body.created_at)).not.toBeNaN();
    expect(r.body.config.prompt.system_prompt).toBe('You are a helpful agent for {{company}}.');
    expect(r.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('a full config with unknown fields passes through; get returns it', async () => {
    const config = minimalConfig({
      conversation: {
        max_duration_seconds: 600,
        transfer_destinations: [{ type: 'sip', mode: 'warm', sip_uri: 'sip:a@b' }],
        future_flag: true,
      },
      analysis: { data_fields: [{ name: 'x', type: 'rating', enum_options: ['a'] }] },
      brand_new_section: { anything: [1, 2] },
    });
    const r = await create({ name: 'A', description: 'd', config });
    const got = await p.call('GET', `/v1/agent/agents/${r.body.agent_id}`);
    expect(got.status).toBe(200);
    expect(got.body.config).toEqual(config);
    expect(got.body.description).toBe('d');
  });

  it('a field of the wrong type is a 400 naming the field, in the spec error body', async () => {
    const r = await create({ name: 'A', config: minimalConfig({ voice: { voice_id: 'v', speaking_language: 'en', speed: 'fast' } }) });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ status: 400, reason: 'invalid_config', message: 'config.voice.speed must be a number' });
    const noName = await create({ config: minimalConfig() });
    expect(noName.body).toMatchObject({ status: 400, reason: 'invalid_request' });
    const notJson = await create('{nope');
    expect(notJson.body).toMatchObject({ status: 400, reason: 'invalid_json' });
  });

  it('an unknown agent is a 404 and another token does not see the agent', async () => {
    const r = await create({ name: 'A', config: minimalConfig() });
    expect((await p.call('GET', '/v1/agent/agents/agent_nope')).body).toMatchObject({ status: 404, reason: 'agent_not_found' });
    expect((await p.call('GET', `/v1/agent/agents/${r.body.agent_id}`, undefined, 'other-token')).status).toBe(404);
    expect((await p.call('DELETE', `/v1/agent/agents/${r.body.agent_id}`)).status).toBe(405);
  });

  it('the first publish turns the agent live; every published version is kept', async () => {
    const id = (await create({ name: 'A', config: minimalConfig() })).body.agent_id;
    const v1 = await p.call('POST', `/v1/agent/agents/${id}/publish`);
    expect(v1.body).toMatchObject({ agent_id: id, publication_state: 'live', version: 1 });
    await p.call('PATCH', `/v1/agent/agents/${id}/config`, { prompt: { system_prompt: 'second' } });
    const v2 = await p.call('POST', `/v1/agent/agents/${id}/publish`);
    expect(v2.body.version).toBe(2);
    const versions = await p.call('GET', `/v1/agent/agents/${id}/versions`);
    expect(versions.body.data.map((v: any) => [v.version, v.config.prompt.system_prompt])).toEqual([
      [1, 'You are a helpful agent for {{company}}.'],
      [2, 'second'],
    ]);
  });

  it('publishing a config without prompt and voice is a 422', async () => {
    const id = (await create({ name: 'A' })).body.agent_id;
    const r = await p.call('POST', `/v1/agent/agents/${id}/publish`);
    expect(r.body).toMatchObject({ status: 422, reason: 'config_incomplete' });
  });

  it('PATCH merges sections, null deletes, and accepts the config or {config}', async () => {
    const id = (await create({ name: 'A', config: minimalConfig({ guardrails: { focus: true, manipulation: true } }) })).body.agent_id;
    const r = await p.call('PATCH', `/v1/agent/agents/${id}/config`, { voice: { speed: 1.2 }, guardrails: { manipulation: null } });
    expect(r.status).toBe(200);
    expect(r.body.config.voice).toEqual({ voice_id: 'default', speaking_language: 'en', speed: 1.2 });
    expect(r.body.config.guardrails).toEqual({ focus: true });
    const wrapped = await p.call('PATCH', `/v1/agent/agents/${id}/config`, { config: { tools: { enabled: true } } });
    expect(wrapped.body.config.tools).toEqual({ enabled: true });
    expect(wrapped.body.publication_state).toBe('draft');
  });
});

describe('write-only secrets and post_call normalisation', () => {
  it('secrets are never returned by create, get, patch, publish or versions', async () => {
    const config = minimalConfig({
      webhooks: {
        post_call: [{ url: 'http://127.0.0.1:1/a', secret: 'whsec_A' }],
        conversation_init: { url: 'http://127.0.0.1:1/i', secret: 'whsec_I' },
      },
      llm: { custom: { base_url: 'http://x', model: 'm', api_key: 'sk-secret' } },
    });
    const c = await create({ name: 'A', config });
    const id = c.body.agent_id;
    const reads = [
      c,
      await p.call('GET', `/v1/agent/agents/${id}`),
      await p.call('PATCH', `/v1/agent/agents/${id}/config`, {}),
      await p.call('POST', `/v1/agent/agents/${id}/publish`),
      await p.call('GET', `/v1/agent/agents/${id}/versions`),
    ];
    for (const r of reads) {
      const text = JSON.stringify(r.body);
      expect(text).not.toContain('whsec_');
      expect(text).not.toContain('sk-secret');
    }
    expect(reads[1]!.body.config.webhooks).toEqual({
      post_call: [{ url: 'http://127.0.0.1:1/a' }],
      conversation_init: { url: 'http://127.0.0.1:1/i' },
    });
  });

  it('an entry sent without a secret keeps the secret stored for that url; a new url has none', async () => {
    const id = (
      await create({
        name: 'A',
        config: minimalConfig({
          webhooks: {
            post_call: [
              { url: 'http://h/a', secret: 'sa' },
              { url: 'http://h/b', secret: 'sb' },
            ],
          },
        }),
      })
    ).body.agent_id;
    await p.call('PATCH', `/v1/agent/agents/${id}/config`, {
      webhooks: { post_call: [{ url: 'http://h/b' }, { url: 'http://h/c' }, { url: 'http://h/a', secret: 'sa2' }] },
    });
    const workspace = (await p.call('GET', `/v1/agent/agents/${id}`)).body.workspace_id;
    const agent = p.platform.agent(workspace, id); // the stored (unredacted) draft
    expect(agent.draft['webhooks']).toEqual({
      post_call: [{ url: 'http://h/b', secret: 'sb' }, { url: 'http://h/c' }, { url: 'http://h/a', secret: 'sa2' }],
    });
    await p.call('PATCH', `/v1/agent/agents/${id}/config`, { webhooks: { post_call: [{ url: 'http://h/b', secret: null }] } });
    expect(agent.draft['webhooks']).toEqual({ post_call: [{ url: 'http://h/b' }] });
  });

  it('a single post_call object is a one-element list; null and [] remove the endpoints', async () => {
    const id = (await create({ name: 'A', config: minimalConfig({ webhooks: { post_call: { url: 'http://h/one' } } }) })).body.agent_id;
    const got = await p.call('GET', `/v1/agent/agents/${id}`);
    expect(got.body.config.webhooks.post_call).toEqual([{ url: 'http://h/one' }]);
    const cleared = await p.call('PATCH', `/v1/agent/agents/${id}/config`, { webhooks: { post_call: [] } });
    expect(cleared.body.config.webhooks.post_call).toBeUndefined();
    await p.call('PATCH', `/v1/agent/agents/${id}/config`, { webhooks: { post_call: { url: 'http://h/two' } } });
    const nulled = await p.call('PATCH', `/v1/agent/agents/${id}/config`, { webhooks: { post_call: null } });
    expect(nulled.body.config.webhooks.post_call).toBeUndefined();
  });

  it('a webhook entry without an absolute http(s) url is a 400', async () => {
    const r = await create({ name: 'A', config: minimalConfig({ webhooks: { post_call: [{ secret: 's' }] } }) });
    expect(r.body).toMatchObject({ status: 400, message: 'config.webhooks.post_call[0].url is required' });
    const relative = await create({
      name: 'A',
      config: minimalConfig({ webhooks: { post_call: [{ url: '/hook' }], conversation_init: { url: 'ftp://x' } } }),
    });
    expect(relative.body).toMatchObject({ status: 400, message: 'config.webhooks.conversation_init.url must be an absolute http(s) url' });
  });
});
