/**
 * Receivers built with the webhook toolkit (voicewire/webhooks) against the platform's real
 * deliveries: retries are absorbed (each event handled once), and the inbound helper's answers
 * fill the prompt.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createConversationInitReceiver, createWebhookReceiver, MemoryDedupStore, type WebhookEvent } from '../../../src/webhooks/index.js';
import { liveAgent, minimalConfig, startPlatform, type PlatformServer } from './helpers.js';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function serve(listener: (req: any, res: any) => void): Promise<string> {
  const server: Server = createServer(listener);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(() => r()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

async function platform(delivery: object): Promise<PlatformServer> {
  const p = await startPlatform({ delivery });
  cleanup.push(() => p.close());
  return p;
}

describe('receivers built with the toolkit', () => {
  it('absorb a retry that races a slow first attempt: each event is handled exactly once', async () => {
    const handled: WebhookEvent[] = [];
    const statuses: number[] = [];
    let sawConflict!: () => void;
    const conflictAnswered = new Promise<void>((r) => {
      sawConflict = r;
    });
    const receiver = createWebhookReceiver({
      secret: 'whsec_toolkit',
      store: new MemoryDedupStore(),
      onEvent: async (ev) => {
        handled.push(ev);
        // The first event's handler outlives the sender's timeout and runs until the retry has
        // been answered 409 ("still in flight"); the third attempt then finds it done.
        if (handled.length === 1) await conflictAnswered;
      },
    });
    const url = await serve((req, res) => {
      res.on('finish', () => {
        statuses.push(res.statusCode);
        if (res.statusCode === 409) sawConflict();
      });
      void receiver.nodeHandler(req, res);
    });
    const p = await platform({ attempts: 3, backoffMs: [50, 400], timeoutMs: 150 });
    const id = await liveAgent(p, minimalConfig({ webhooks: { post_call: [{ url, secret: 'whsec_toolkit' }] } }));
    const sim = await p.call('POST', `/v1/agent/agents/${id}/simulate`, {
      direction: 'outbound',
      turns: [{ user: 'hi' }],
      wait_for_deliveries: true,
    });
    expect(handled.map((e) => e.type)).toEqual(['phone_call.dial_finished', 'call.ended', 'call.analyzed']);
    const first = sim.body.deliveries[0];
    expect(first.attempts.map((a: any) => a.outcome)).toEqual(['timeout', 'rejected', 'delivered']);
    expect(first.attempts[1].status).toBe(409); // still claimed: "retry later"
    expect(sim.body.deliveries.every((d: any) => d.state === 'delivered')).toBe(true);
    expect(statuses).toContain(409);
  });

  it('absorb a retry after a failing handler, and take a re-run analysis as a newer call.analyzed', async () => {
    const handled: string[] = [];
    let failOnce = true;
    const receiver = createWebhookReceiver({
      secret: 'whsec_toolkit',
      onEvent: (ev) => {
        if (ev.type === 'call.ended' && failOnce) {
          failOnce = false;
          throw new Error('database down');
        }
        handled.push(ev.type === 'call.analyzed' ? `${ev.type}:${(ev.payload as any).analysis.status}` : ev.type);
      },
    });
    const url = await serve((req, res) => void receiver.nodeHandler(req, res));
    const p = await platform({ attempts: 3, backoffMs: [20, 40], timeoutMs: 500 });
    const id = await liveAgent(
      p,
      minimalConfig({ webhooks: { post_call: { url, secret: 'whsec_toolkit' } }, analysis: { summary: { enabled: true } } }),
    );
    const sim = await p.call('POST', `/v1/agent/agents/${id}/simulate`, {
      direction: 'inbound',
      turns: [{ user: 'hi' }],
      analysis_error: 'timeout',
      wait_for_deliveries: true,
    });
    expect(sim.body.deliveries[0].attempts.map((a: any) => a.status)).toEqual([500, 200]);
    await p.call('POST', `/v1/agent/sessions/${sim.body.session.session_id}/analysis/rerun`, { wait_for_deliveries: true });
    expect(handled).toEqual(['call.ended', 'call.analyzed:error', 'call.analyzed:completed']);
  });

  it('the conversation_init helper verifies the signed request and its variables fill the prompt', async () => {
    const seen: unknown[] = [];
    const init = createConversationInitReceiver({
      secret: 'whsec_init',
      onCall: (request) => {
        seen.push(request);
        return { dynamic_variables: { name: 'Grace', company: 'Hopper Inc', 'bad-name': 'dropped' } };
      },
    });
    const url = await serve((req, res) => void init.nodeHandler(req, res));
    const p = await platform({});
    const id = await liveAgent(p, minimalConfig({ webhooks: { conversation_init: { url, secret: 'whsec_init' } } }));
    const sim = await p.call('POST', `/v1/agent/agents/${id}/simulate`, {
      direction: 'inbound',
      caller_number: '',
      dialed_number: '+3225550000',
    });
    expect(seen).toEqual([expect.objectContaining({ event: 'call.inbound', caller_number: '', dialed_number: '+3225550000' })]);
    expect(sim.body.conversation_init).toMatchObject({ outcome: 'ok', variables: { name: 'Grace', company: 'Hopper Inc' } });
    expect(sim.body.rendered.first_message).toBe('Hello Grace, this is Hopper Inc.');
    // With the wrong secret the helper refuses (401) and the call goes on without variables.
    await p.call('PATCH', `/v1/agent/agents/${id}/config`, { webhooks: { conversation_init: { url, secret: 'wrong' } } });
    await p.call('POST', `/v1/agent/agents/${id}/publish`);
    const refused = await p.call('POST', `/v1/agent/agents/${id}/simulate`, { direction: 'inbound' });
    expect(refused.body.conversation_init).toMatchObject({ outcome: 'http_error', status: 401, variables: {} });
    expect(refused.body.session.status).toBe('completed');
  });
});
