import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseMicros, formatMicros } from '../../../src/service/platform/money.js';
import { liveAgent, minimalConfig, startPlatform, type PlatformServer } from './helpers.js';

let p: PlatformServer;
beforeEach(async () => {
  p = await startPlatform();
});
afterEach(async () => {
  await p.close();
});

describe('sessions', () => {
  it('are refused for a draft agent', async () => {
    const id = (await p.call('POST', '/v1/agent/agents', { name: 'A', config: minimalConfig() })).body.agent_id;
    const r = await p.call('POST', '/v1/agent/sessions', { agent_id: id });
    expect(r.body).toMatchObject({ status: 409, reason: 'agent_not_published' });
    const sim = await p.call('POST', `/v1/agent/agents/${id}/simulate`, {});
    expect(sim.body).toMatchObject({ status: 409, reason: 'agent_not_published' });
  });

  it('creation echoes end_user_id and metadata exactly and keeps the dynamic variables', async () => {
    const id = await liveAgent(p, minimalConfig());
    const metadata = { crm: { id: 42, tags: ['vip', 'ü'] }, note: 'a "quoted" \u2028 line', n: 1.5e-7, flag: false, nothing: null };
    const r = await p.call('POST', '/v1/agent/sessions', {
      agent_id: id,
      end_user_id: 'user-7',
      metadata,
      dynamic_variables: { name: 'Ada', count: 3, ok: true },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ agent_id: id, status: 'pending', source: 'api_key', end_user_id: 'user-7', items: [] });
    expect(r.body.metadata).toEqual(metadata);
    expect(r.body.dynamic_variables).toEqual({ name: 'Ada', count: 3, ok: true });
    const got = await p.call('GET', `/v1/agent/sessions/${r.body.session_id}`);
    expect(got.body.metadata).toEqual(metadata);
  });

  it('an invalid dynamic variable is a 422 naming it; a non-object metadata is a 400', async () => {
    const id = await liveAgent(p, minimalConfig());
    const bad = await p.call('POST', '/v1/agent/sessions', { agent_id: id, dynamic_variables: { '1st': 'x', ok: 'y' } });
    expect(bad.body).toMatchObject({ status: 422, reason: 'invalid_dynamic_variables' });
    expect(bad.body.message).toContain('"1st"');
    const meta = await p.call('POST', '/v1/agent/sessions', { agent_id: id, metadata: [1] });
    expect(meta.body).toMatchObject({ status: 400, reason: 'invalid_request' });
    expect((await p.call('GET', '/v1/agent/sessions/sess_nope')).body).toMatchObject({ status: 404, reason: 'session_not_found' });
  });

  it('a created session runs as a call that fills the prompt from its variables', async () => {
    const id = await liveAgent(p, minimalConfig());
    const created = await p.call('POST', '/v1/agent/sessions', { agent_id: id, dynamic_variables: { name: 'Ada', company: 'Acme' } });
    const sim = await p.call('POST', `/v1/agent/sessions/${created.body.session_id}/simulate`, { turns: [{ user: 'hi' }] });
    expect(sim.status).toBe(200);
    expect(sim.body.rendered).toEqual({ system_prompt: 'You are a helpful agent for Acme.', first_message: 'Hello Ada, this is Acme.' });
    expect(sim.body.session.status).toBe('completed');
    const again = await p.call('POST', `/v1/agent/sessions/${created.body.session_id}/simulate`, {});
    expect(again.body).toMatchObject({ status: 409, reason: 'session_not_pending' });
  });

  it('detail has the items in order with usage and decimal-string costs that add up exactly', async () => {
    const id = await liveAgent(p, minimalConfig({ llm: { custom: { base_url: 'http://llm', model: 'my-model', api_key: 'k' } } }));
    const sim = await p.call('POST', `/v1/agent/agents/${id}/simulate`, {
      direction: 'inbound',
      turns: [
        { user: 'I would like to book a table for two.' },
        { tool: 'check_availability', arguments: { people: 2 }, result: { free: true } },
        { agent: 'Done, see you at eight.' },
        { user: 'Thanks, bye.' },
      ],
    });
    const s = (await p.call('GET', `/v1/agent/sessions/${sim.body.session.session_id}`)).body;
    expect(s.items.map((i: any) => [i.type, i.role ?? i.name, i.turn_id])).toEqual([
      ['message', 'assistant', 0],
      ['message', 'user', 1],
      ['tool_call', 'check_availability', 1],
      ['tool_result', 'check_availability', 1],
      ['message', 'assistant', 1],
      ['message', 'user', 2],
    ]);
    const call = s.items[2];
    const result = s.items[3];
    expect(result.tool_call_id).toBe(call.tool_call_id);
    expect(call.arguments).toEqual({ people: 2 });
    expect(result).toMatchObject({ result: { free: true }, is_error: false });
    const user = s.items[1];
    expect(user.llm_usage).toMatchObject({ status: 'complete', billing_mode: 'tokens', turn_id: 1, usage_complete: true });
    expect(user.llm_usage.tokens.map((t: any) => [t.model, t.category])).toEqual([
      ['my-model', 'input'],
      ['my-model', 'output'],
    ]);
    const strings: string[] = [];
    const walk = (v: any, key = ''): void => {
      if (key.endsWith('cost_usd') || key === 'rate_per_million') {
        expect(typeof v).toBe('string');
        strings.push(v);
      } else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
    };
    walk(s);
    expect(strings.length).toBeGreaterThan(10);
    for (const str of strings) expect(str).toMatch(/^\d+(\.\d+)?$/);
    for (const usage of [user.llm_usage, s.items[0].tts_usage]) {
      const sum = usage.tokens.reduce((acc: bigint, t: any) => acc + parseMicros(t.cost_usd), 0n);
      expect(formatMicros(sum)).toBe(usage.cost_usd);
    }
    const llm = s.items.filter((i: any) => i.llm_usage).reduce((acc: bigint, i: any) => acc + parseMicros(i.llm_usage.cost_usd), 0n);
    const tts = s.items.filter((i: any) => i.tts_usage).reduce((acc: bigint, i: any) => acc + parseMicros(i.tts_usage.cost_usd), 0n);
    expect(s.usage.llm_cost_usd).toBe(formatMicros(llm));
    expect(s.usage.tts_cost_usd).toBe(formatMicros(tts));
    expect(s.usage.cost_usd).toBe(formatMicros(llm + tts));
    expect(s.items[0].tts_usage.tokens[0]).toMatchObject({ category: 'characters', tokens: 'Hello {{name}}, this is {{company}}.'.length });
  });

  it('listing filters by status and agent and pages with a cursor until the end', async () => {
    const a = await liveAgent(p, minimalConfig());
    const b = await liveAgent(p, minimalConfig(), 'B');
    for (let i = 0; i < 5; i++)
      await p.call('POST', `/v1/agent/agents/${a}/simulate`, { direction: 'outbound', dial_status: i % 2 ? 'busy' : 'answered' });
    await p.call('POST', '/v1/agent/sessions', { agent_id: b });
    const failed = await p.call('GET', '/v1/agent/sessions?status=failed');
    expect(failed.body.data.map((s: any) => [s.status, s.end_reason])).toEqual([
      ['failed', 'dial_failed'],
      ['failed', 'dial_failed'],
    ]);
    expect(failed.body.next_cursor).toBeNull();
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await p.call('GET', `/v1/agent/sessions?agent_id=${a}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((s: any) => s.session_id));
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(5);
    expect((await p.call('GET', '/v1/agent/sessions?limit=0')).body.reason).toBe('invalid_request');
    expect((await p.call('GET', '/v1/agent/sessions?cursor=%%%')).body.reason).toBe('invalid_cursor');
  });

  it('an opening generated from first_message_prompt is billed as unattributed LLM usage', async () => {
    const id = await liveAgent(p, {
      prompt: { system_prompt: 'Be brief.', first_message_prompt: 'Greet warmly.' },
      voice: { voice_id: 'v', speaking_language: 'en' },
    });
    const sim = await p.call('POST', `/v1/agent/agents/${id}/simulate`, { direction: 'web' });
    expect(sim.body.session.items[0]).toMatchObject({ role: 'assistant', content: 'Hello! How can I help you today?' });
    expect(sim.body.session.unattributed_llm_usage).toHaveLength(1);
    expect(sim.body.session.unattributed_llm_usage[0]).toMatchObject({ billing_mode: 'tokens', turn_id: 0 });
    expect(sim.body.session).toMatchObject({ direction: null, source: 'api_key', dial_status: null });
  });

  it('the hang_up_call system tool ends the call from the agent side; later turns never happen', async () => {
    const id = await liveAgent(p, minimalConfig({ tools: { system_tools: { hang_up_call: true } } }));
    const sim = await p.call('POST', `/v1/agent/agents/${id}/simulate`, {
      direction: 'inbound',
      turns: [{ user: 'bye' }, { tool: 'hang_up_call' }, { user: 'never said' }],
    });
    expect(sim.body.session.end_reason).toBe('agent_hangup');
    expect(sim.body.session.items.map((i: any) => i.type)).toEqual(['message', 'message', 'tool_call', 'tool_result']);
  });

  it('a simulation body that breaks a rule is a 400 naming the field', async () => {
    const id = await liveAgent(p, minimalConfig());
    const cases: Array<[object, string]> = [
      [{ direction: 'sideways' }, 'direction must be "inbound", "outbound" or "web"'],
      [{ direction: 'inbound', dial_status: 'busy' }, 'dial_status applies to outbound calls only'],
      [{ direction: 'outbound', connected: false }, 'an outbound call that never connects is a dial_status other than answered'],
      [{ end_reason: 'dial_failed' }, expect.stringContaining('end_reason must be one of') as unknown as string],
      [{ turns: [{ shout: 'x' }] }, 'turns[0] must hold "user", "agent" or "tool"'],
      [{ duration_seconds: -1 }, 'duration_seconds must be a non-negative integer'],
    ];
    for (const [body, message] of cases) {
      const r = await p.call('POST', `/v1/agent/agents/${id}/simulate`, body);
      expect(r.body).toEqual({ status: 400, reason: 'invalid_request', message });
    }
  });
});
