import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../../src/protocol/webhookSignature.js';
import {
  FAST_DELIVERY,
  liveAgent,
  minimalConfig,
  startPlatform,
  startReceiver,
  type PlatformServer,
  type Receiver,
  type ReceiverScript,
} from './helpers.js';

let cleanup: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c.close();
  cleanup = [];
});

const MS_PER_SECOND_IN_TESTS = 40;
const initTimeouts: number[] = [];

async function setup(
  script: ReceiverScript,
  init: Record<string, unknown> = {},
): Promise<{ p: PlatformServer; agentId: string; hook: Receiver }> {
  const hook = await startReceiver(script, '/init');
  const p = await startPlatform({
    delivery: FAST_DELIVERY,
    conversationInit: {
      timeoutMs: (s) => {
        initTimeouts.push(s);
        return s * MS_PER_SECOND_IN_TESTS;
      },
    },
  });
  cleanup.push(hook, p);
  const agentId = await liveAgent(p, minimalConfig({ webhooks: { conversation_init: { url: hook.url, ...init } } }));
  return { p, agentId, hook };
}

const answer =
  (body: unknown, status = 200): ReceiverScript =>
  () => ({ status, body: typeof body === 'string' ? body : JSON.stringify(body) });
const inbound = (p: PlatformServer, agentId: string, extra: object = {}) =>
  p.call('POST', `/v1/agent/agents/${agentId}/simulate`, {
    direction: 'inbound',
    caller_number: '+14155550100',
    dialed_number: '+14155550199',
    carrier_call_sid: 'CA0123',
    turns: [{ user: 'hi' }],
    ...extra,
  });

describe('inbound calls: conversation_init', () => {
  it('is called first with the call fields, signed, and its variables fill the published placeholders', async () => {
    const { p, agentId, hook } = await setup(answer({ dynamic_variables: { name: 'Ada', company: 'Acme' } }), { secret: 'whsec_init' });
    const sim = await inbound(p, agentId);
    expect(hook.requests).toHaveLength(1);
    const q = hook.requests[0]!;
    expect(q.json).toMatchObject({
      event: 'call.inbound',
      caller_number: '+14155550100',
      dialed_number: '+14155550199',
      carrier_call_sid: 'CA0123',
    });
    const header = q.headers['x-fish-webhook-signature'] as string;
    expect(verifyWebhookSignature({ payload: q.body, header, secret: 'whsec_init' })).toBe(true);
    expect(sim.body.conversation_init).toEqual({ outcome: 'ok', status: 200, variables: { name: 'Ada', company: 'Acme' }, warnings: [] });
    expect(sim.body.rendered).toEqual({ system_prompt: 'You are a helpful agent for Acme.', first_message: 'Hello Ada, this is Acme.' });
    const greeting = sim.body.session.items[0];
    expect(greeting).toMatchObject({ role: 'assistant', content: 'Hello Ada, this is Acme.' });
    expect(greeting.tts_usage.tokens[0].tokens).toBe('Hello Ada, this is Acme.'.length);
    expect(sim.body.session).toMatchObject({
      caller_number: '+14155550100',
      dialed_number: '+14155550199',
      dynamic_variables: { name: 'Ada', company: 'Acme' },
    });
  });

  it('is unsigned without a secret, and uses timeout_seconds 5 by default', async () => {
    initTimeouts.length = 0;
    const { p, agentId, hook } = await setup(answer({}));
    const sim = await inbound(p, agentId);
    expect(hook.requests[0]!.headers['x-fish-webhook-signature']).toBeUndefined();
    expect(initTimeouts).toEqual([5]);
    expect(sim.body.conversation_init.outcome).toBe('ok');
  });

  it('on a timeout the call goes on without variables', async () => {
    const { p, agentId } = await setup(() => 'hang', { timeout_seconds: 2 });
    const sim = await inbound(p, agentId);
    expect(sim.status).toBe(200);
    expect(sim.body.conversation_init).toMatchObject({ outcome: 'timeout', variables: {} });
    expect(sim.body.rendered.first_message).toBe('Hello {{name}}, this is {{company}}.');
    expect(sim.body.session.status).toBe('completed');
  });

  it.each([
    ['a non-JSON body', answer('<html>oops</html>'), 'invalid_body'],
    ['a JSON array', answer([1, 2]), 'invalid_body'],
    ['dynamic_variables that is not an object', answer({ dynamic_variables: 'name=Ada' }), 'invalid_body'],
    ['a 500 answer', answer({ dynamic_variables: { name: 'Ada' } }, 500), 'http_error'],
  ] as const)('on %s the call goes on without variables', async (_label, script, outcome) => {
    const { p, agentId } = await setup(script);
    const sim = await inbound(p, agentId);
    expect(sim.body.conversation_init).toMatchObject({ outcome, variables: {} });
    expect(sim.body.rendered.system_prompt).toBe('You are a helpful agent for {{company}}.');
    expect(sim.body.session.status).toBe('completed');
  });

  it('an invalid variable is dropped with a warning and the valid ones are kept', async () => {
    const { p, agentId } = await setup(
      answer({
        dynamic_variables: {
          '1bad': 'x',
          name: 'Ada',
          long: 'x'.repeat(1001),
          nested: { a: 1 },
          company: 'Acme',
          __proto__x: 'dropped',
          count: 3,
          vip: true,
        },
      }),
    );
    const sim = await inbound(p, agentId);
    expect(sim.body.conversation_init.outcome).toBe('ok');
    expect(sim.body.conversation_init.variables).toEqual({ name: 'Ada', company: 'Acme', count: 3, vip: true });
    expect(sim.body.conversation_init.warnings).toHaveLength(4);
    expect(sim.body.rendered.first_message).toBe('Hello Ada, this is Acme.');
  });

  it('names like constructor and toString are just names; __proto__ is dropped by the name rule', async () => {
    const { p, agentId } = await setup(
      answer('{"dynamic_variables":{"__proto__":{"polluted":1},"constructor":"c","toString":"t","name":"Ada"}}'),
    );
    const sim = await inbound(p, agentId);
    expect(sim.body.conversation_init.variables).toEqual({ constructor: 'c', toString: 't', name: 'Ada' });
    expect(sim.body.conversation_init.warnings).toHaveLength(1);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('outbound calls never call conversation_init', async () => {
    const { p, agentId, hook } = await setup(answer({}));
    await p.call('POST', `/v1/agent/agents/${agentId}/simulate`, { direction: 'outbound' });
    expect(hook.requests).toHaveLength(0);
  });
});
