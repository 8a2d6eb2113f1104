import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, unknownFields, type AgentCreateParams } from '../../src/client/index.js';
import { RequestValidationError } from '../../src/errors.js';
import { sendJson, startLoopback, type Loopback } from './platformLoopback.js';

let server: Loopback;
beforeEach(async () => {
  server = await startLoopback();
  server.route('POST /v1/agent/agents', (req, res) =>
    sendJson(res, 201, {
      agent_id: 'ag_1',
      workspace_id: 'ws_1',
      name: (req.json as { name: string }).name,
      status: 'active',
      publication_state: 'draft',
      created_at: '2026-11-22T03:00:00Z',
      updated_at: '2026-11-22T03:00:00Z',
      description: (req.json as { description: string }).description,
      public_enabled: false,
      allowed_origins: [],
      overrides_allowed: ['first_message', 'future_field'],
      brand_new_field: { x: 1 },
    }),
  );
});
afterEach(async () => server.close());

const client = () => createClient({ baseUrl: server.url, apiKey: 'k', maxRetries: 0 });
const minimal: AgentCreateParams = {
  name: 'Front desk',
  config: { prompt: { system_prompt: 'You greet {{customer_name}}.' }, voice: { voice_id: 'v_1', speaking_language: 'en' } },
};

const full: AgentCreateParams = {
  name: 'Full',
  description: 'all sections',
  ...unknownFields({ future_top_level: true }),
  config: {
    prompt: { system_prompt: 'S', first_message: 'Hi {{name}}', first_message_prompt: 'greet' },
    voice: { voice_id: 'v', speaking_language: 'en', expressive: true, keyterms: ['Acme'], speed: 1.1 },
    conversation: {
      max_duration_seconds: 600,
      interruptible: true,
      reengage_enabled: false,
      hangup_after_seconds: 30,
      hangup_farewell_enabled: true,
      record_audio: false,
      timezone: 'Europe/Berlin',
      transfer_destinations: [
        {
          type: 'phone',
          label: 'Ops',
          phone_number: '+15550001',
          description: '',
          mode: 'cold',
          warm_connect: 'confirm',
          warm_briefing_instructions: '',
        },
        { type: 'sip', sip_uri: 'sip:x@y', mode: 'warm_whisper', warm_connect: 'auto' }, // values the spec does not show: accepted
      ],
      outbound: { amd_enabled: false, voicemail: { action: 'leave_message', message: 'call back' } },
    },
    tools: { enabled: true, tool_ids: ['t1'], system_tools: { hang_up_call: true } },
    webhooks: {
      conversation_init: { url: 'https://x/init', secret: 's', timeout_seconds: 5 },
      post_call: [{ url: 'https://x/post', secret: 's2' }],
    },
    knowledge_base: { enabled: true, knowledge_source_ids: ['k1'] },
    analysis: {
      summary: { enabled: true, prompt: 'sum', language: 'en' },
      data_fields: [{ name: 'vip', type: 'boolean_future', description: '', enum_options: [] }],
      criteria: [{ name: 'polite', description: '' }],
    },
    guardrails: { focus: true, manipulation: true },
    llm: { custom: { base_url: 'https://llm', model: 'm', api_key: 'k' } },
    ...unknownFields({ future_section: { anything: [1, 2, 3] } }),
  },
};

async function validationError(p: () => Promise<unknown>): Promise<RequestValidationError> {
  try {
    await p();
  } catch (e) {
    expect(e).toBeInstanceOf(RequestValidationError);
    return e as RequestValidationError;
  }
  throw new Error('expected RequestValidationError');
}

describe('agents', () => {
  it('create sends the minimal request (description defaults to "") and returns the agent, unknown fields kept', async () => {
    const agent = await client().agents.create(minimal);
    const sent = server.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1/agent/agents');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.json).toEqual({ ...minimal, description: '' });
    expect(agent.publication_state).toBe('draft');
    expect(agent.overrides_allowed).toEqual(['first_message', 'future_field']);
    expect(agent['brand_new_field']).toEqual({ x: 1 });
  });

  it('create sends the full config unchanged, including unknown fields and enum values the spec does not show', async () => {
    await client().agents.create(full);
    expect(server.requests[0]!.json).toEqual(full);
  });

  it('create accepts a single post_call object and null webhooks', async () => {
    await client().agents.create({
      ...minimal,
      config: { ...minimal.config, webhooks: { post_call: { url: 'u' }, conversation_init: null } },
    });
    await client().agents.create({ ...minimal, config: { ...minimal.config, webhooks: { post_call: null } } });
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    ['name', { ...minimal, name: undefined }, 'name', 'required'],
    ['config', { name: 'x' }, 'config', 'required'],
    ['system_prompt', { ...minimal, config: { ...minimal.config, prompt: {} } }, 'config.prompt.system_prompt', 'required'],
    ['voice_id', { ...minimal, config: { ...minimal.config, voice: { speaking_language: 'en' } } }, 'config.voice.voice_id', 'required'],
    [
      'speaking_language',
      { ...minimal, config: { ...minimal.config, voice: { voice_id: 'v' } } },
      'config.voice.speaking_language',
      'required',
    ],
  ])('create refuses a request missing %s before any network call', async (_n, params, field, rule) => {
    const err = await validationError(() => client().agents.create(params as AgentCreateParams));
    expect(err.field).toBe(field);
    expect(err.rule).toBe(rule);
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['config.voice.speed', { voice: { voice_id: 'v', speaking_language: 'en', speed: 'fast' } }],
    ['config.conversation.max_duration_seconds', { conversation: { max_duration_seconds: 1.5 } }],
    ['config.conversation.transfer_destinations[1].mode', { conversation: { transfer_destinations: [{}, { mode: 5 }] } }],
    ['config.webhooks.post_call[0].url', { webhooks: { post_call: [{ url: 42 }] } }],
    ['config.tools.tool_ids[0]', { tools: { tool_ids: [1] } }],
    ['config.analysis.data_fields', { analysis: { data_fields: 'x' } }],
    ['config.guardrails.focus', { guardrails: { focus: 'yes' } }],
    ['config.llm.custom', { llm: { custom: [] } }],
  ])('create refuses a wrong type at %s, naming the field', async (field, extra) => {
    const config = { ...minimal.config, ...extra };
    const err = await validationError(() => client().agents.create({ ...minimal, config } as AgentCreateParams));
    expect(err.field).toBe(field);
    expect(err.code).toBe('REQUEST_INVALID');
  });

  it('get fetches one agent', async () => {
    server.route('GET /v1/agent/agents/ag_1', (_r, res) => sendJson(res, 200, { agent_id: 'ag_1', publication_state: 'live' }));
    expect((await client().agents.get('ag_1')).publication_state).toBe('live');
  });

  it('updateConfig PATCHes the config path with the (partial) config', async () => {
    server.route('PATCH /v1/agent/agents/ag_1/config', (req, res) => sendJson(res, 200, { agent_id: 'ag_1', config: req.json }));
    const patch = { webhooks: { post_call: [{ url: 'https://hook' }] }, new_section: 1 };
    const res = await client().agents.updateConfig('ag_1', patch);
    expect(server.requests[0]!.method).toBe('PATCH');
    expect(server.requests[0]!.json).toEqual(patch);
    expect(res.config).toEqual(patch);
  });

  it('updateConfig validates types but requires nothing', async () => {
    const err = await validationError(() => client().agents.updateConfig('ag_1', { voice: { speed: '1' } } as never));
    expect(err.field).toBe('config.voice.speed');
  });

  it('publish POSTs the publish path and returns the result', async () => {
    server.route('POST /v1/agent/agents/ag_1/publish', (_r, res) =>
      sendJson(res, 200, { agent_id: 'ag_1', version: 1, publication_state: 'live' }),
    );
    const res = await client().agents.publish('ag_1');
    expect(res.publication_state).toBe('live');
    expect(res.version).toBe(1);
  });

  it('refuses an empty id', async () => {
    await expect(client().agents.get('')).rejects.toThrow(/agentId/);
  });
});
