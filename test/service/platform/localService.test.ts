/**
 * The platform inside the real local service: same auth and error body, and agent messages
 * spoken by the real speech engine (espeak-ng), so speech usage is real.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalService, type LocalService } from '../../../src/service/index.js';
import { createPlatformHandler } from '../../../src/service/platform/index.js';
import { FAST_DELIVERY, startReceiver, type Receiver } from './helpers.js';

let svc: LocalService;
let hook: Receiver;
const handler = createPlatformHandler({ delivery: FAST_DELIVERY });

beforeAll(async () => {
  hook = await startReceiver();
  svc = await startLocalService({ platform: handler });
});
afterAll(async () => {
  await handler.platform.settled();
  await svc.close();
  await hook.close();
});

async function call(method: string, path: string, body?: unknown, token: string | null = svc.token) {
  const r = await fetch(svc.baseUrl + path, {
    method,
    headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: r.status, body: (await r.json()) as any, requestId: r.headers.get('x-request-id') };
}

describe('the platform in the local service', () => {
  it("shares the service's auth and error body", async () => {
    const noToken = await call('POST', '/v1/agent/agents', { name: 'x' }, null);
    expect(noToken.status).toBe(401);
    expect(Object.keys(noToken.body).sort()).toEqual(['message', 'reason', 'status']);
    const wrong = await call('GET', '/v1/agent/sessions', undefined, 'nope');
    expect(wrong.status).toBe(403);
    const missing = await call('GET', '/v1/agent/agents/agent_missing');
    expect(missing.body).toMatchObject({ status: 404, reason: 'agent_not_found' });
    expect(missing.requestId).toMatch(/[0-9a-f-]{36}/);
  });

  it('speaks the filled first message with the real engine, so speech usage is real', async () => {
    const created = await call('POST', '/v1/agent/agents', {
      name: 'Speaker',
      description: '',
      config: {
        prompt: { system_prompt: 'You help {{name}}.', first_message: 'Hello {{name}}, thank you for calling Acme. How can I help?' },
        voice: { voice_id: 'en-us-female', speaking_language: 'en' },
        webhooks: { post_call: [{ url: hook.url, secret: 'whsec_svc' }] },
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.agent_id;
    expect((await call('POST', `/v1/agent/agents/${id}/publish`)).body.publication_state).toBe('live');
    const sim = await call('POST', `/v1/agent/agents/${id}/simulate`, {
      direction: 'outbound',
      dynamic_variables: { name: 'Ada' },
      turns: [{ user: 'I need help with my order.' }, { agent: 'Sure.' }],
      wait_for_deliveries: true,
    });
    expect(sim.status).toBe(200);
    const greeting = sim.body.session.items[0];
    expect(greeting.content).toBe('Hello Ada, thank you for calling Acme. How can I help?');
    const usage = greeting.tts_usage;
    expect(usage.tokens[0]).toMatchObject({ model: 'espeak-ng', category: 'characters', tokens: greeting.content.length });
    // ~11 words of espeak speech at its default rate: a few seconds of real audio.
    expect(usage.audio_seconds).toBeGreaterThan(1.5);
    expect(usage.audio_seconds).toBeLessThan(8);
    expect(sim.body.session.usage.tts_audio_seconds).toBeGreaterThan(usage.audio_seconds);
    expect(sim.body.deliveries.map((d: any) => [d.event, d.state])).toEqual([
      ['phone_call.dial_finished', 'delivered'],
      ['call.ended', 'delivered'],
      ['call.analyzed', 'delivered'],
    ]);
    expect(hook.requests.map((q) => q.json.event)).toEqual(['phone_call.dial_finished', 'call.ended', 'call.analyzed']);
  });

  it('an agent voice the local engine does not know is spoken with the default voice', async () => {
    const id = (
      await call('POST', '/v1/agent/agents', {
        name: 'Real voice id',
        config: {
          prompt: { system_prompt: 'x', first_message: 'Hi there.' },
          voice: { voice_id: '8ef4a238714b45718ce04243307c57a7', speaking_language: 'en' },
        },
      })
    ).body.agent_id;
    await call('POST', `/v1/agent/agents/${id}/publish`);
    const sim = await call('POST', `/v1/agent/agents/${id}/simulate`, { direction: 'web' });
    expect(sim.status).toBe(200);
    expect(sim.body.session.items[0].tts_usage.audio_seconds).toBeGreaterThan(0.2);
  });
});

describe("the service's default platform wiring", () => {
  it('loads this module and keeps agents per server', async () => {
    const plain = await startLocalService();
    try {
      const r = await fetch(`${plain.baseUrl}/v1/agent/agents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${plain.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Default',
          config: { prompt: { system_prompt: 'x' }, voice: { voice_id: 'default', speaking_language: 'en' } },
        }),
      });
      expect(r.status).toBe(201);
      const { agent_id } = (await r.json()) as { agent_id: string };
      const got = await fetch(`${plain.baseUrl}/v1/agent/agents/${agent_id}`, { headers: { authorization: `Bearer ${plain.token}` } });
      expect(got.status).toBe(200);
      const elsewhere = await call('GET', `/v1/agent/agents/${agent_id}`);
      expect(elsewhere.status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
