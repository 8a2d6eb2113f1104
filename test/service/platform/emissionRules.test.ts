import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseWebhookEvent } from '../../../src/webhooks/index.js';
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

let p: PlatformServer;
let r: Receiver;
beforeEach(async () => {
  r = await startReceiver();
  p = await startPlatform({ delivery: FAST_DELIVERY, now: steppingClock() });
});
afterEach(async () => {
  await p.close();
  await r.close();
});

const ANALYSIS = {
  summary: { enabled: true },
  data_fields: [
    { name: 'wants_refund', type: 'boolean' },
    { name: 'party_size', type: 'number' },
    { name: 'seating', type: 'text', enum_options: ['indoor', 'terrace'] },
  ],
  criteria: [{ name: 'booking_confirmed' }, { name: 'upsell_dessert' }],
};
const hooks = () => ({ webhooks: { post_call: [{ url: r.url, secret: 's' }] } });
const simulate = (agentId: string, body: object) => p.call('POST', `/v1/agent/agents/${agentId}/simulate`, body);
/** Every delivered body, after checking the toolkit's parser recognises all of it. */
const received = async () => {
  await p.platform.settled();
  for (const q of r.requests) expect(parseWebhookEvent(q.body).unrecognized).toEqual([]);
  return r.requests.map((q) => q.json);
};

describe('emission rules', () => {
  it.each(['busy', 'no_answer', 'failed'])(
    'an unanswered outbound call (%s) gets only dial_finished, is not billed and not analysed',
    async (dial) => {
      const id = await liveAgent(p, minimalConfig({ ...hooks(), analysis: ANALYSIS }));
      const sim = await simulate(id, { direction: 'outbound', dial_status: dial, turns: [{ user: 'ignored' }] });
      expect(sim.body.session).toMatchObject({
        status: 'failed',
        end_reason: 'dial_failed',
        dial_status: dial,
        answered_by: null,
        items: [],
        analysis: null,
      });
      expect(sim.body.session.usage.cost_usd).toBe('0');
      const got = await received();
      expect(got.map((e) => e.event)).toEqual(['phone_call.dial_finished']);
      // Never-connected reasons are visible only by session retrieval or listing.
      expect(got[0]).toMatchObject({
        dial_status: dial,
        answered_by: null,
        session: { dial_status: dial, end_reason: null, conversation_ended_at: null },
      });
    },
  );

  it.each([
    ['inbound', 'cancelled'],
    ['web', 'room_join_timeout'],
  ])('a never-connected %s session has no call.ended (nor anything else)', async (direction, reason) => {
    const id = await liveAgent(p, minimalConfig({ ...hooks(), analysis: ANALYSIS }));
    const sim = await simulate(id, { direction, connected: false, end_reason: reason });
    expect(sim.body.session).toMatchObject({ status: 'failed', end_reason: reason, analysis: null });
    expect(await received()).toEqual([]);
    const listed = await p.call('GET', '/v1/agent/sessions?status=failed');
    expect(listed.body.data[0].end_reason).toBe(reason);
  });

  it('an answered inbound call gets call.ended then call.analyzed, with null dial fields', async () => {
    const id = await liveAgent(p, minimalConfig({ ...hooks(), analysis: ANALYSIS }));
    await simulate(id, { direction: 'inbound', turns: [{ user: 'Hi' }] });
    const got = await received();
    expect(got.map((e) => e.event)).toEqual(['call.ended', 'call.analyzed']);
    expect(got[0].session).toMatchObject({ direction: 'inbound', dial_status: null, answered_by: null, batch_call_id: null });
  });

  it('builder-preview calls get no deliveries, run on the unpublished draft and skip conversation_init', async () => {
    const init = await startReceiver(() => ({ status: 200, body: '{"dynamic_variables":{"company":"Hooked"}}' }));
    try {
      const created = await p.call('POST', '/v1/agent/agents', {
        name: 'Draft',
        config: minimalConfig({ ...hooks(), webhooks: { post_call: { url: r.url }, conversation_init: { url: init.url } } }),
      });
      const id = created.body.agent_id;
      const sim = await simulate(id, {
        preview: true,
        direction: 'inbound',
        turns: [{ user: 'Hi' }],
        dynamic_variables: { company: 'Preview Co', name: 'Bo' },
      });
      expect(sim.status).toBe(200);
      expect(sim.body.session).toMatchObject({ preview: true, source: 'dashboard', status: 'completed', version: null });
      expect(sim.body.rendered.first_message).toBe('Hello Bo, this is Preview Co.');
      expect(sim.body.webhooks).toEqual({ endpoints: [], events: [] });
      await p.call('POST', `/v1/agent/agents/${id}/publish`);
      await p.call('PATCH', `/v1/agent/agents/${id}/config`, { prompt: { first_message: 'Draft-only greeting' } });
      const preview2 = await simulate(id, { preview: true });
      expect(preview2.body.rendered.first_message).toBe('Draft-only greeting');
      expect(await received()).toEqual([]);
      expect(init.requests).toHaveLength(0);
    } finally {
      await init.close();
    }
  });

  it('a re-run analysis delivers a new call.analyzed with a newer finished_at', async () => {
    const id = await liveAgent(p, minimalConfig({ ...hooks(), analysis: ANALYSIS }));
    const sim = await simulate(id, { direction: 'inbound', turns: [{ user: 'Hello' }], analysis_error: 'model overloaded' });
    expect(sim.body.session.analysis).toMatchObject({
      status: 'error',
      error: 'model overloaded',
      summary: null,
      data: [],
      criteria_results: [],
    });
    const sessionId = sim.body.session.session_id;
    const rerun = await p.call('POST', `/v1/agent/sessions/${sessionId}/analysis/rerun`, {});
    expect(rerun.body.analysis.status).toBe('completed');
    const got = await received();
    expect(got.map((e) => [e.event, e.analysis?.status])).toEqual([
      ['call.ended', undefined],
      ['call.analyzed', 'error'],
      ['call.analyzed', 'completed'],
    ]);
    expect(Date.parse(got[2].analysis.finished_at)).toBeGreaterThan(Date.parse(got[1].analysis.finished_at));
    expect(got[1].analysis.error).toBe('model overloaded');
    const detail = await p.call('GET', `/v1/agent/sessions/${sessionId}`);
    expect(detail.body.analysis.finished_at).toBe(got[2].analysis.finished_at);
  });

  it('re-running a never-connected session is a 409', async () => {
    const id = await liveAgent(p, minimalConfig(hooks()));
    const sim = await simulate(id, { direction: 'outbound', dial_status: 'busy' });
    const rerun = await p.call('POST', `/v1/agent/sessions/${sim.body.session.session_id}/analysis/rerun`, {});
    expect(rerun.body).toMatchObject({ status: 409, reason: 'nothing_to_analyze' });
  });
});

describe('publish gating', () => {
  it("a config change without a publish does not change the next call's webhooks; publishing does", async () => {
    const other = await startReceiver();
    try {
      const id = await liveAgent(p, minimalConfig(hooks()));
      await p.call('PATCH', `/v1/agent/agents/${id}/config`, {
        webhooks: { post_call: [{ url: other.url }] },
        prompt: { first_message: 'Changed' },
      });
      const before = await simulate(id, { direction: 'inbound', turns: [{ user: 'hi' }] });
      expect(before.body.rendered.first_message).toBe('Hello {{name}}, this is {{company}}.');
      await p.platform.settled();
      expect(r.requests).toHaveLength(2);
      expect(other.requests).toHaveLength(0);
      await p.call('POST', `/v1/agent/agents/${id}/publish`);
      const after = await simulate(id, { direction: 'inbound', turns: [{ user: 'hi' }] });
      expect(after.body.rendered.first_message).toBe('Changed');
      await p.platform.settled();
      expect(r.requests).toHaveLength(2);
      expect(other.requests.map((q) => q.json.event)).toEqual(['call.ended', 'call.analyzed']);
      expect(other.requests[0]!.json.session.branch_id).not.toBe(r.requests[0]!.json.session.branch_id);
    } finally {
      await other.close();
    }
  });

  it('removing post_call and publishing stops deliveries', async () => {
    const id = await liveAgent(p, minimalConfig(hooks()));
    await p.call('PATCH', `/v1/agent/agents/${id}/config`, { webhooks: { post_call: null } });
    await p.call('POST', `/v1/agent/agents/${id}/publish`);
    await simulate(id, { direction: 'outbound', turns: [{ user: 'hi' }] });
    expect(await received()).toEqual([]);
  });
});

describe('analysis outcomes', () => {
  it('settles to skipped when the caller never spoke or analysis is disabled, and call.analyzed still follows', async () => {
    const withAnalysis = await liveAgent(p, minimalConfig({ ...hooks(), analysis: ANALYSIS }));
    const silent = await simulate(withAnalysis, { direction: 'inbound', turns: [{ agent: 'Anyone there?' }] });
    expect(silent.body.session.analysis).toMatchObject({ status: 'skipped', summary: null, data: [], criteria_results: [] });
    const disabled = await liveAgent(p, minimalConfig({ ...hooks(), analysis: { summary: { enabled: false } } }));
    const talk = await simulate(disabled, { direction: 'inbound', turns: [{ user: 'Hello' }] });
    expect(talk.body.session.analysis.status).toBe('skipped');
    const got = await received();
    expect(got.map((e) => [e.event, e.analysis?.status ?? null])).toEqual([
      ['call.ended', null],
      ['call.analyzed', 'skipped'],
      ['call.ended', null],
      ['call.analyzed', 'skipped'],
    ]);
  });

  it('completes with deterministic summary, data fields and criteria', async () => {
    const id = await liveAgent(p, minimalConfig({ ...hooks(), analysis: ANALYSIS }));
    const sim = await simulate(id, {
      direction: 'inbound',
      turns: [{ user: 'A table for 4 please, on the terrace.' }, { agent: 'Booked!' }, { user: 'Great, the booking is confirmed then.' }],
    });
    const a = sim.body.session.analysis;
    expect(a.status).toBe('completed');
    expect(a.summary).toBe('The caller spoke 2 time(s) (14 words); the agent spoke 2 time(s); 0 tool call(s).');
    expect(a.data.map((d: any) => [d.name, d.value])).toEqual([
      ['wants_refund', false],
      ['party_size', 4],
      ['seating', 'terrace'],
    ]);
    expect(a.criteria_results.map((c: any) => [c.name, c.result])).toEqual([
      ['booking_confirmed', 'success'],
      ['upsell_dessert', 'failure'],
    ]);
    const got = await received();
    expect(got[1].analysis).toMatchObject({ status: 'completed', summary: a.summary, data: a.data, criteria_results: a.criteria_results });
  });
});

describe('a speech engine failure mid-call', () => {
  it('ends the call with internal_error, keeps what was said, and still emits call.ended and call.analyzed', async () => {
    const rr = await startReceiver();
    let spoken = 0;
    const broken = await startPlatform({ delivery: FAST_DELIVERY }, async (text) => {
      if (++spoken > 1) throw new Error('engine crashed');
      return { characters: text.length, audioSeconds: 1 };
    });
    try {
      const id = await liveAgent(broken, minimalConfig({ webhooks: { post_call: [{ url: rr.url }] } }));
      const sim = await broken.call('POST', `/v1/agent/agents/${id}/simulate`, {
        direction: 'inbound',
        turns: [{ user: 'Hi' }, { agent: 'never spoken' }],
        wait_for_deliveries: true,
      });
      expect(sim.status).toBe(200);
      expect(sim.body.error).toBe('speech engine failed: engine crashed');
      expect(sim.body.session).toMatchObject({ status: 'failed', end_reason: 'internal_error' });
      expect(sim.body.session.items.map((i: any) => i.role)).toEqual(['assistant', 'user']);
      expect(rr.requests.map((q) => [q.json.event, q.json.ended_reason ?? null])).toEqual([
        ['call.ended', 'internal_error'],
        ['call.analyzed', null],
      ]);
    } finally {
      await broken.close();
      await rr.close();
    }
  });
});
