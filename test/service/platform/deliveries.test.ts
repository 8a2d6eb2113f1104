import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../../src/protocol/webhookSignature.js';
import {
  FAST_DELIVERY,
  liveAgent,
  minimalConfig,
  startPlatform,
  startReceiver,
  steppingClock,
  type PlatformServer,
  type Receiver,
} from './helpers.js';

const HEADER = 'x-fish-webhook-signature';
let cleanup: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c.close();
  cleanup = [];
});

async function setup(
  receivers: Receiver[],
  secrets: Array<string | undefined>,
  delivery: object = FAST_DELIVERY,
): Promise<{ p: PlatformServer; agentId: string }> {
  const p = await startPlatform({ delivery, now: steppingClock() });
  cleanup.push(...receivers, p); // closed in reverse: platform first (it waits for deliveries), then receivers
  const post_call = receivers.map((r, i) => (secrets[i] === undefined ? { url: r.url } : { url: r.url, secret: secrets[i] }));
  const agentId = await liveAgent(p, minimalConfig({ webhooks: { post_call }, analysis: { summary: { enabled: true } } }));
  return { p, agentId };
}

const tOf = (header: string) => Number(/t=(\d+)/.exec(header)![1]);
const events = (r: Receiver) => r.requests.map((q) => q.json.event);

describe('post-call deliveries', () => {
  it('a failing endpoint (500s) and a stalled one neither delay nor affect another', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    const failing = await startReceiver(() => ({ status: 500 }));
    const stalled = await startReceiver(() => ({ status: 200, after: released }));
    const good = await startReceiver();
    const { p, agentId } = await setup([failing, stalled, good], ['s-fail', 's-stall', 's-good'], {
      attempts: 3,
      backoffMs: [30, 60],
      timeoutMs: 5_000,
    });
    const sim = await p.call('POST', `/v1/agent/agents/${agentId}/simulate`, { direction: 'outbound', turns: [{ user: 'hello' }] });
    expect(sim.body.webhooks.events).toEqual(['phone_call.dial_finished', 'call.ended', 'call.analyzed']);
    await good.waitFor(3);
    // The good endpoint has every event while the stalled one still holds its first request.
    const sessionId = sim.body.session.session_id;
    expect(stalled.requests).toHaveLength(1);
    expect(
      p.platform.deliverer
        .reports(sessionId)
        .filter((r) => r.url === stalled.url)
        .map((r) => r.attempts.length),
    ).toEqual([0, 0, 0]);
    expect(events(good)).toEqual(['phone_call.dial_finished', 'call.ended', 'call.analyzed']);
    release();
    await p.platform.settled();
    expect(failing.requests).toHaveLength(9);
    expect(events(stalled)).toEqual(['phone_call.dial_finished', 'call.ended', 'call.analyzed']);
    expect(good.requests).toHaveLength(3);
    const reports = p.platform.deliverer.reports(sessionId);
    expect(reports.filter((r) => r.url === good.url).map((r) => r.state)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(reports.filter((r) => r.url === failing.url).map((r) => r.state)).toEqual(['failed', 'failed', 'failed']);
    expect(reports.filter((r) => r.url === failing.url).flatMap((r) => r.attempts.map((a) => a.status))).toEqual(Array(9).fill(500));
    // Each endpoint is signed with its own secret.
    for (const [r, secret] of [
      [failing, 's-fail'],
      [stalled, 's-stall'],
      [good, 's-good'],
    ] as const) {
      const q = r.requests[0]!;
      expect(
        verifyWebhookSignature({ payload: q.body, header: q.headers[HEADER] as string, secret, now: tOf(q.headers[HEADER] as string) }),
      ).toBe(true);
    }
  });

  it('a receiver that never answers in time is a failed attempt: 3 timeouts, then the next event', async () => {
    const hanging = await startReceiver(() => 'hang');
    const { p, agentId } = await setup([hanging], ['s'], { attempts: 3, backoffMs: [10, 10], timeoutMs: 80 });
    const sim = await p.call('POST', `/v1/agent/agents/${agentId}/simulate`, {
      direction: 'outbound',
      turns: [{ user: 'hi' }],
      wait_for_deliveries: true,
    });
    expect(sim.body.deliveries.map((d: any) => [d.event, d.state, d.attempts.map((a: any) => a.outcome)])).toEqual([
      ['phone_call.dial_finished', 'failed', ['timeout', 'timeout', 'timeout']],
      ['call.ended', 'failed', ['timeout', 'timeout', 'timeout']],
      ['call.analyzed', 'failed', ['timeout', 'timeout', 'timeout']],
    ]);
    expect(events(hanging)).toEqual([
      ...Array(3).fill('phone_call.dial_finished'),
      ...Array(3).fill('call.ended'),
      ...Array(3).fill('call.analyzed'),
    ]);
    expect(new Set(hanging.requests.map((q) => q.body.toString())).size).toBe(3);
  });

  it('a failing delivery gets exactly 3 attempts with byte-identical bodies and fresh valid signatures', async () => {
    const failing = await startReceiver(() => ({ status: 500 }));
    const { p, agentId } = await setup([failing], ['whsec_retry']);
    await p.call('POST', `/v1/agent/agents/${agentId}/simulate`, { direction: 'outbound', dial_status: 'busy' });
    await p.platform.settled();
    expect(failing.requests).toHaveLength(3);
    const [a, b, c] = failing.requests as [any, any, any];
    expect(b.body.equals(a.body) && c.body.equals(a.body)).toBe(true);
    const headers = [a, b, c].map((q) => q.headers[HEADER] as string);
    expect(new Set(headers).size).toBe(3);
    const ts = headers.map(tOf);
    expect(ts[0]! < ts[1]! && ts[1]! < ts[2]!).toBe(true);
    for (const q of [a, b, c]) {
      const header = q.headers[HEADER] as string;
      expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(verifyWebhookSignature({ payload: q.body, header, secret: 'whsec_retry', now: tOf(header) })).toBe(true);
      expect(() => verifyWebhookSignature({ payload: q.body, header, secret: 'other', now: tOf(header) })).toThrow();
    }
  });

  it('an unreachable endpoint is retried like a failing one and does not hold back another', async () => {
    const gone = await startReceiver();
    const goneUrl = gone.url;
    await gone.close(); // connection refused from now on
    const good = await startReceiver();
    const p = await startPlatform({ delivery: FAST_DELIVERY });
    cleanup.push(good, p);
    const agentId = await liveAgent(p, minimalConfig({ webhooks: { post_call: [{ url: goneUrl }, { url: good.url }] } }));
    const sim = await p.call('POST', `/v1/agent/agents/${agentId}/simulate`, {
      direction: 'outbound',
      dial_status: 'busy',
      wait_for_deliveries: true,
    });
    expect(sim.body.deliveries.map((d: any) => [d.state, d.attempts.map((a: any) => a.outcome)])).toEqual([
      ['failed', ['network', 'network', 'network']],
      ['delivered', ['delivered']],
    ]);
  });

  it('an endpoint without a secret gets no signature header; a later success stops the attempts', async () => {
    const flaky = await startReceiver((n) => ({ status: n === 0 ? 503 : 204 }));
    const { p, agentId } = await setup([flaky], [undefined]);
    await p.call('POST', `/v1/agent/agents/${agentId}/simulate`, { direction: 'outbound', dial_status: 'no_answer' });
    await p.platform.settled();
    expect(flaky.requests).toHaveLength(2);
    expect(flaky.requests[0]!.headers[HEADER]).toBeUndefined();
  });

  it('the order dial_finished → call.ended → call.analyzed holds per endpoint through retries', async () => {
    // First attempt of the first event is slow and fails; a second endpoint is fast.
    const retrying = await startReceiver((n) => (n === 0 ? { status: 500, delayMs: 40 } : { status: 200 }));
    const fast = await startReceiver();
    const { p, agentId } = await setup([retrying, fast], ['a', 'b']);
    const sim = await p.call('POST', `/v1/agent/agents/${agentId}/simulate`, { direction: 'outbound', turns: [{ user: 'hi' }] });
    await p.platform.settled();
    expect(events(retrying)).toEqual(['phone_call.dial_finished', 'phone_call.dial_finished', 'call.ended', 'call.analyzed']);
    expect(events(fast)).toEqual(['phone_call.dial_finished', 'call.ended', 'call.analyzed']);
    const reports = p.platform.deliverer.reports(sim.body.session.session_id).filter((r) => r.url === retrying.url);
    expect(reports.map((r) => r.attempts.map((a) => a.status))).toEqual([[500, 200], [200], [200]]);
  });

  it('payloads carry the named session fields and never a transcript', async () => {
    const r = await startReceiver();
    const { p, agentId } = await setup([r], ['s']);
    const created = await p.call('POST', '/v1/agent/sessions', {
      agent_id: agentId,
      end_user_id: 'eu-1',
      metadata: { order: { id: 'A-1', total: 12.5 } },
    });
    await p.call('POST', `/v1/agent/sessions/${created.body.session_id}/simulate`, {
      direction: 'outbound',
      turns: [{ user: 'my secret words' }, { agent: 'agent reply words' }],
      end_reason: 'agent_hangup',
      duration_seconds: 33,
    });
    await p.platform.settled();
    const [dial, ended, analyzed] = r.requests.map((q) => q.json);
    const keys = [
      'id',
      'agent_id',
      'end_user_id',
      'metadata',
      'branch_id',
      'direction',
      'batch_call_id',
      'dial_status',
      'answered_by',
      'conversation_ended_at',
      'duration_seconds',
      'end_reason',
    ];
    for (const payload of [dial, ended, analyzed]) {
      expect(Object.keys(payload.session).sort()).toEqual([...keys].sort());
      expect(payload.session).toMatchObject({
        id: created.body.session_id,
        end_user_id: 'eu-1',
        metadata: { order: { id: 'A-1', total: 12.5 } },
        direction: 'outbound',
        batch_call_id: null,
        dial_status: 'answered',
        answered_by: 'unknown',
      });
      expect(typeof payload.session.branch_id).toBe('string');
    }
    for (const q of r.requests) {
      expect(q.body.toString()).not.toContain('secret words');
      expect(q.body.toString()).not.toContain('reply words');
      expect(q.body.toString()).not.toContain('items');
    }
    expect(dial).toMatchObject({ event: 'phone_call.dial_finished', dial_status: 'answered', answered_by: 'unknown' });
    expect(dial.session).toMatchObject({ conversation_ended_at: null, duration_seconds: null, end_reason: null });
    expect(ended).toMatchObject({
      event: 'call.ended',
      ended_reason: 'agent_hangup',
      session: { end_reason: 'agent_hangup', duration_seconds: 33 },
    });
    expect(Date.parse(ended.session.conversation_ended_at)).not.toBeNaN();
    expect(analyzed.event).toBe('call.analyzed');
    expect(analyzed.analysis).toMatchObject({ status: 'completed', error: null, data: [], criteria_results: [] });
    expect(analyzed.analysis.summary).toBe('The caller spoke 1 time(s) (3 words); the agent spoke 2 time(s); 0 tool call(s).');
    expect(Date.parse(analyzed.analysis.finished_at)).not.toBeNaN();
  });

  it('a re-run queued while the first call.analyzed is still retrying is delivered after it', async () => {
    let failedOnce = false;
    const r = await startReceiver((_n, q) => {
      if (q.json.event === 'call.analyzed' && !failedOnce) {
        failedOnce = true;
        return { status: 500, delayMs: 30 };
      }
      return { status: 200 };
    });
    const { p, agentId } = await setup([r], ['s']);
    const sim = await p.call('POST', `/v1/agent/agents/${agentId}/simulate`, {
      direction: 'inbound',
      turns: [{ user: 'hi' }],
      analysis_error: 'flaky',
    });
    await p.call('POST', `/v1/agent/sessions/${sim.body.session.session_id}/analysis/rerun`, {});
    await p.platform.settled();
    expect(r.requests.map((q) => [q.json.event, q.json.analysis?.status ?? null])).toEqual([
      ['call.ended', null],
      ['call.analyzed', 'error'],
      ['call.analyzed', 'error'],
      ['call.analyzed', 'completed'],
    ]);
  });
});
