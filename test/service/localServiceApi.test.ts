/**
 * The local-only methods of the `startLocalService()` handle, end to end: a real local service
 * (real espeak speech), agents made with the real client, and real loopback webhook receivers
 * whose deliveries are checked with the webhook toolkit's signature verification.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../src/client/index.js';
import {
  ApiTimeoutError,
  ConflictError,
  InvalidOptionError,
  NotFoundError,
  InternalServerError,
  StreamInterruptedError,
} from '../../src/errors.js';
import { startLocalService, type LocalService } from '../../src/service/index.js';
import { createPlatformHandler } from '../../src/service/platform/index.js';
import { verifyWebhookSignature } from '../../src/webhooks/index.js';
import { FAST_DELIVERY, startReceiver, type Receiver } from './platform/helpers.js';

const SECRET = 'whsec_local_api';
const SIGNATURE_HEADER = 'x-fish-webhook-signature';

let svc: LocalService;
let client: Client;
let hook: Receiver;
/** Answers 500 to its first request, then 200: one failed attempt, then a retry that lands. */
let flaky: Receiver;
const handler = createPlatformHandler({ delivery: FAST_DELIVERY });

beforeAll(async () => {
  hook = await startReceiver();
  flaky = await startReceiver((n) => ({ status: n === 0 ? 500 : 200 }));
  svc = await startLocalService({ platform: handler });
  client = createClient({ baseUrl: svc.baseUrl, apiKey: svc.token });
});
afterAll(async () => {
  await handler.platform.settled();
  await svc.close();
  await Promise.all([hook.close(), flaky.close()]);
});

/** A published agent whose post-call webhooks go to `urls`, signed with {@link SECRET}. */
async function liveAgent(urls: string[]): Promise<string> {
  const agent = await client.agents.create({
    name: 'Desk',
    config: {
      prompt: { system_prompt: 'You help {{name}}.', first_message: 'Hello {{name}}.' },
      voice: { voice_id: 'default', speaking_language: 'en' },
      webhooks: { post_call: urls.map((url) => ({ url, secret: SECRET })) },
      analysis: { summary: { enabled: true }, criteria: [{ name: 'refund_requested' }] },
    },
  });
  await client.agents.publish(agent.agent_id);
  return agent.agent_id;
}

function verified(r: Receiver): boolean[] {
  return r.requests.map((q) => {
    try {
      return verifyWebhookSignature({ payload: q.body, header: q.headers[SIGNATURE_HEADER] as string, secret: SECRET });
    } catch {
      return false;
    }
  });
}

describe('svc.simulateCall', () => {
  it('simulates a call for a real agent: the session is stored and signed webhooks reach the receiver', async () => {
    const agentId = await liveAgent([hook.url]);
    const before = hook.requests.length;
    const sim = await svc.simulateCall(
      { agentId },
      {
        direction: 'outbound',
        dynamic_variables: { name: 'Ada' },
        turns: [{ user: 'I want a refund please.' }, { agent: 'Of course.' }],
        wait_for_deliveries: true,
      },
    );
    expect(sim.session.status).toBe('completed');
    expect(sim.rendered).toEqual({ system_prompt: 'You help Ada.', first_message: 'Hello Ada.' });
    expect(sim.webhooks).toEqual({ endpoints: [hook.url], events: ['phone_call.dial_finished', 'call.ended', 'call.analyzed'] });
    expect(sim.deliveries?.map((d) => [d.event, d.state])).toEqual([
      ['phone_call.dial_finished', 'delivered'],
      ['call.ended', 'delivered'],
      ['call.analyzed', 'delivered'],
    ]);
    // The session the simulation made is the one the public API serves.
    const stored = await client.sessions.get(sim.session.session_id);
    expect(stored.items?.map((i) => i.type)).toEqual(['message', 'message', 'message']);
    expect(stored.analysis?.status).toBe('completed');
    const received = hook.requests.slice(before);
    expect(received.map((q) => q.json.event)).toEqual(['phone_call.dial_finished', 'call.ended', 'call.analyzed']);
    expect(verified(hook).slice(before)).toEqual([true, true, true]);
  });

  it('runs a created, pending session as a call', async () => {
    const agentId = await liveAgent([]);
    const session = await client.sessions.create({ agentId, dynamicVariables: { name: 'Lin' } });
    const sim = await svc.simulateCall({ sessionId: session.session_id }, { direction: 'web', turns: [{ user: 'Hi' }] });
    expect(sim.session.session_id).toBe(session.session_id);
    expect(sim.session.status).toBe('completed');
    expect(sim.rendered.first_message).toBe('Hello Lin.');
    expect(sim.deliveries).toBeUndefined();
    // It already ran: a second run is refused with the client's typed 409.
    const again = await svc.simulateCall({ sessionId: session.session_id }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ConflictError);
    expect(again).toMatchObject({ status: 409, reason: 'session_not_pending' });
  });
});

describe('svc.deliveries', () => {
  it('reads the delivery log: every attempt, as the receiver saw it, each one signed', async () => {
    const agentId = await liveAgent([flaky.url]);
    const sim = await svc.simulateCall({ agentId }, { direction: 'web', turns: [{ user: 'Hello' }], wait_for_deliveries: true });
    const log = await svc.deliveries(sim.session.session_id);
    expect(log.map((d) => [d.event, d.url, d.state])).toEqual([
      ['call.ended', flaky.url, 'delivered'],
      ['call.analyzed', flaky.url, 'delivered'],
    ]);
    expect(log[0]!.attempts.map((a) => [a.attempt, a.status, a.outcome])).toEqual([
      [1, 500, 'rejected'],
      [2, 200, 'delivered'],
    ]);
    expect(log[1]!.attempts.map((a) => a.outcome)).toEqual(['delivered']);
    expect(log.every((d) => d.sessionId === sim.session.session_id)).toBe(true);
    // Three attempts in the log, three signed requests at the receiver, same order.
    expect(flaky.requests.map((q) => [q.json.event, Number(/t=(\d+)/.exec(String(q.headers[SIGNATURE_HEADER]))?.[1])])).toEqual(
      log.flatMap((d) => d.attempts.map((a) => [d.event, a.signedAt])),
    );
    expect(verified(flaky)).toEqual([true, true, true]);
  });

  it('is empty for a session without webhook endpoints', async () => {
    const sim = await svc.simulateCall({ agentId: await liveAgent([]) }, { direction: 'web' });
    expect(await svc.deliveries(sim.session.session_id)).toEqual([]);
  });
});

describe('svc.rerunAnalysis', () => {
  it('re-runs the analysis: a newer finished_at and a new signed call.analyzed', async () => {
    const agentId = await liveAgent([hook.url]);
    const sim = await svc.simulateCall({ agentId }, { direction: 'web', turns: [{ user: 'I want a refund.' }], wait_for_deliveries: true });
    const first = sim.session.analysis as { finished_at: string };
    const before = hook.requests.length;
    const rerun = await svc.rerunAnalysis(sim.session.session_id, { wait_for_deliveries: true });
    expect(rerun.session_id).toBe(sim.session.session_id);
    expect(rerun.analysis?.status).toBe('completed');
    expect(rerun.analysis?.criteria_results).toEqual([expect.objectContaining({ name: 'refund_requested', result: 'unknown' })]);
    expect(Date.parse(rerun.analysis!.finished_at!)).toBeGreaterThan(Date.parse(first.finished_at));
    expect(hook.requests.slice(before).map((q) => q.json.event)).toEqual(['call.analyzed']);
    expect(verified(hook).slice(before)).toEqual([true]);
    const log = await svc.deliveries(sim.session.session_id);
    expect(log.map((d) => d.event)).toEqual(['call.ended', 'call.analyzed', 'call.analyzed']);
  });

  it('analysis_error settles the run to error with that cause', async () => {
    const sim = await svc.simulateCall({ agentId: await liveAgent([]) }, { direction: 'web', turns: [{ user: 'Hello' }] });
    const rerun = await svc.rerunAnalysis(sim.session.session_id, { analysis_error: 'model overloaded' });
    expect(rerun.analysis).toMatchObject({ status: 'error', error: 'model overloaded' });
  });
});

describe('svc.agentVersions', () => {
  it('lists the published versions, oldest first', async () => {
    const agentId = await liveAgent([]);
    await client.agents.updateConfig(agentId, { prompt: { system_prompt: 'Second.' } });
    await client.agents.publish(agentId);
    const versions = await svc.agentVersions(agentId);
    expect(versions.map((v) => [v.version, v.config.prompt?.system_prompt])).toEqual([
      [1, 'You help {{name}}.'],
      [2, 'Second.'],
    ]);
    // Secrets are write-only, in versions too.
    expect(JSON.stringify(versions)).not.toContain(SECRET);
  });
});

describe('svc.faultHeaders', () => {
  it('injects a typed fault into a speech request made with the client', async () => {
    const headers = svc.faultHeaders({ cutAfter: 2 });
    expect(headers).toEqual({ 'x-voicewire-fault': 'cut-after=2' });
    const { stream } = await client.tts.streamWithTimestamps(
      { text: 'One two three four five six.', format: 'pcm', sample_rate: 8000 },
      { headers },
    );
    const error = await (async () => {
      for await (const _ of stream) {
        /* drain */
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamInterruptedError);
  });

  it('counts attempts by the attempt key: fail=503 once, then the same key succeeds', async () => {
    const headers = svc.faultHeaders({ fail: { status: 503, attempts: 1 }, retryAfterSec: 0 }, { attemptKey: `k-${Date.now()}` });
    const once = createClient({ baseUrl: svc.baseUrl, apiKey: svc.token, maxRetries: 0 });
    const request = { text: 'Hi.', format: 'pcm' as const, sample_rate: 8000 };
    const failed = await once.tts.streamWithTimestamps(request, { headers }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(InternalServerError);
    expect(failed).toMatchObject({ status: 503 });
    const { stream } = await once.tts.streamWithTimestamps(request, { headers });
    for await (const _ of stream) {
      /* drain */
    }
  });

  it('a bad fault is an InvalidOptionError before any request', () => {
    expect(() => svc.faultHeaders({ fail: { status: 200, attempts: 1 } })).toThrow(InvalidOptionError);
    expect(() => svc.faultHeaders('cut-after=3; segment-bytes=7')).toThrow(InvalidOptionError);
  });
});

describe('errors', () => {
  it('an unknown id is a NotFoundError with status 404 and the service reason', async () => {
    for (const attempt of [
      () => svc.deliveries('sess_missing'),
      () => svc.rerunAnalysis('sess_missing'),
      () => svc.simulateCall({ sessionId: 'sess_missing' }),
    ]) {
      const err = await attempt().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NotFoundError);
      expect(err).toMatchObject({ status: 404, reason: 'session_not_found' });
      expect((err as NotFoundError).requestId).toMatch(/[0-9a-f-]{36}/);
    }
    const agent = await svc.agentVersions('agent_missing').catch((e: unknown) => e);
    expect(agent).toMatchObject({ status: 404, reason: 'agent_not_found' });
    expect(agent).toBeInstanceOf(NotFoundError);
  });

  it('per-call options reach the request: a timeoutMs shorter than the wait for deliveries is ApiTimeoutError', async () => {
    const hanging = await startReceiver(() => 'hang');
    try {
      const agentId = await liveAgent([hanging.url]);
      const err = await svc
        .simulateCall({ agentId }, { direction: 'web', turns: [{ user: 'Hi' }], wait_for_deliveries: true }, { timeoutMs: 100 })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiTimeoutError);
      await handler.platform.settled();
    } finally {
      await hanging.close();
    }
  });

  it('an empty id is an InvalidOptionError, with no request sent', async () => {
    await expect(svc.deliveries('')).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(svc.simulateCall({ agentId: '' })).rejects.toBeInstanceOf(InvalidOptionError);
  });

  it('a service started without the platform answers NotFoundError', async () => {
    const bare = await startLocalService({ platform: false });
    try {
      await expect(bare.deliveries('sess_1')).rejects.toMatchObject({ status: 404, reason: 'not_found' });
    } finally {
      await bare.close();
    }
  });
});
