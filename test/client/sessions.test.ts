import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createClient,
  isMessageItem,
  isToolCallItem,
  isToolResultItem,
  isUnknownItem,
  unknownFields,
  type Session,
} from '../../src/client/index.js';
import { InvalidOptionError, NotFoundError } from '../../src/errors.js';
import { sendJson, startLoopback, type Loopback } from './platformLoopback.js';

let server: Loopback;
beforeEach(async () => {
  server = await startLoopback();
});
afterEach(async () => server.close());

const client = (warnings: string[] = []) =>
  createClient({ baseUrl: server.url, apiKey: 'k', maxRetries: 0, onWarning: (m) => void warnings.push(m) });

// The wire text: decimals with trailing zeros and more digits than a double keeps.
const DETAIL = `{
  "session_id": "sess_1", "agent_id": "ag_1", "agent_name": "Desk", "status": "completed", "source": "phone",
  "created_at": "2026-11-22T03:00:00Z", "name": "call", "end_reason": "user_hangup", "direction": "inbound",
  "dial_status": null, "answered_by": "unknown", "caller_number": "+1555", "dialed_number": "+1666",
  "timezone": "UTC", "started_at": "2026-11-22T03:00:01Z", "ended_at": "2026-11-22T03:01:00Z", "duration_seconds": 59,
  "metadata": {"order": 7, "nested": {"a": [1, "2"]}},
  "unattributed_llm_usage": [{"status": "complete", "billing_mode": "tokens", "cost_usd": "0.000000000000000001",
                              "billable_cost_usd": "0.10", "known_cost_usd": "0"}],
  "items": [
    {"type": "message", "role": "user", "content": "hi", "id": "i1", "turn_id": 1, "created_at": "2026-11-22T03:00:02Z",
     "llm_usage": {"status": "complete", "billing_mode": "tokens", "cost_usd": "0.001230", "billable_cost_usd": "0.00123000",
                   "known_cost_usd": "0", "call_count": 1, "usage_complete": true, "call_ids": ["c1"],
                   "tokens": [{"model": "m", "rate_version": "r1", "category": "input", "tokens": 12,
                               "rate_per_million": "0.150000", "cost_usd": "0.0000018"}]}},
    {"type": "tool_call", "id": "i2", "tool_call_id": "tc1", "name": "lookup", "arguments": {"q": "x"}},
    {"type": "tool_result", "id": "i3", "tool_call_id": "tc1", "result": {"ok": true}},
    {"type": "handoff", "id": "i4", "target": "human", "weird": [1, 2]},
    {"type": "message", "role": "assistant", "content": "hello", "id": "i5"}
  ],
  "analysis": {"status": "queued", "summary": "s", "data": [{"name": "vip", "type": "boolean", "value": true, "rationale": ""}],
               "criteria_results": [{"name": "polite", "result": "success", "rationale": ""}]}
}`;

describe('sessions.get', () => {
  it('returns typed detail: items in order, unknown variants kept, decimal strings intact', async () => {
    server.route('GET /v1/agent/sessions/sess_1', (_r, res) => sendJson(res, 200, DETAIL));
    const s: Session = await client().sessions.get('sess_1');
    expect(s.items?.map((i) => i.type)).toEqual(['message', 'tool_call', 'tool_result', 'handoff', 'message']);
    const [m, call, result, unknown] = s.items!;
    expect(isMessageItem(m!) && m.llm_usage?.cost_usd).toBe('0.001230');
    expect(isMessageItem(m!) && m.llm_usage?.billable_cost_usd).toBe('0.00123000');
    expect(isMessageItem(m!) && m.llm_usage?.tokens?.[0]?.rate_per_million).toBe('0.150000');
    expect(isToolCallItem(call!) && call.arguments).toEqual({ q: 'x' });
    expect(isToolResultItem(result!) && result.result).toEqual({ ok: true });
    expect(isUnknownItem(unknown!)).toBe(true);
    expect(unknown).toEqual({ type: 'handoff', id: 'i4', target: 'human', weird: [1, 2] });
    expect(s.unattributed_llm_usage?.[0]?.cost_usd).toBe('0.000000000000000001');
    expect(s.metadata).toEqual({ order: 7, nested: { a: [1, '2'] } });
    expect(s.answered_by).toBe('unknown');
    expect(s.analysis?.criteria_results?.[0]?.result).toBe('success');
  });

  it('throws NotFoundError with the reason for an unknown session', async () => {
    server.route('GET /v1/agent/sessions/nope', (_r, res) =>
      sendJson(res, 404, { status: 404, message: 'no such session', reason: 'session_not_found' }),
    );
    await expect(client().sessions.get('nope')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('sessions.list', () => {
  function routePages(): void {
    const pages: Record<string, { data: unknown[]; next_cursor: string | null }> = {
      '': {
        data: [
          { session_id: 's1', status: 'failed' },
          { session_id: 's2', status: 'failed' },
        ],
        next_cursor: 'c2',
      },
      c2: { data: [{ session_id: 's3', status: 'failed' }], next_cursor: 'c3' },
      c3: { data: [{ session_id: 's4', status: 'failed', end_reason: 'dial_failed' }], next_cursor: null },
    };
    server.route('GET /v1/agent/sessions', (req, res) => sendJson(res, 200, pages[req.query.get('cursor') ?? '']));
  }

  it('awaits to one page with its cursor, sending the filters as query parameters', async () => {
    routePages();
    const page = await client().sessions.list({ status: 'failed', agent_id: 'ag_1', limit: 2 });
    expect(page.data.map((s) => s.session_id)).toEqual(['s1', 's2']);
    expect(page.nextCursor).toBe('c2');
    expect(page.hasNextPage()).toBe(true);
    const q = server.requests[0]!.query;
    expect([q.get('status'), q.get('agent_id'), q.get('limit'), q.get('cursor')]).toEqual(['failed', 'ag_1', '2', null]);
  });

  it('still takes the deprecated agentId filter, and refuses it next to agent_id', async () => {
    routePages();
    await client().sessions.list({ agentId: 'ag_legacy' });
    expect(server.requests[0]!.query.get('agent_id')).toBe('ag_legacy');
    await expect(client().sessions.list({ agent_id: 'a', agentId: 'b' })).rejects.toThrow(/agent_id or the deprecated agentId/);
    expect(server.requests).toHaveLength(1);
  });

  it('iterates over every session of every page, fetching pages lazily', async () => {
    routePages();
    const ids: string[] = [];
    for await (const s of client().sessions.list({ status: 'failed', limit: 2 })) ids.push(s.session_id);
    expect(ids).toEqual(['s1', 's2', 's3', 's4']);
    expect(server.requests.map((r) => r.query.get('cursor'))).toEqual([null, 'c2', 'c3']);
    expect(server.requests.every((r) => r.query.get('status') === 'failed' && r.query.get('limit') === '2')).toBe(true);
  });

  it('stops fetching when iteration stops early', async () => {
    routePages();
    for await (const s of client().sessions.list()) {
      if (s.session_id === 's1') break;
    }
    expect(server.requests).toHaveLength(1);
  });

  it('a page is itself iterable from there on, and getNextPage walks on', async () => {
    routePages();
    const first = await client().sessions.list({ cursor: 'c2' });
    const second = await first.getNextPage();
    expect(second.data[0]?.end_reason).toBe('dial_failed');
    expect(second.hasNextPage()).toBe(false);
    const all: string[] = [];
    for await (const s of first) all.push(s.session_id);
    expect(all).toEqual(['s3', 's4']);
  });

  it('refuses a cursor that does not advance instead of looping forever', async () => {
    server.route('GET /v1/agent/sessions', (_r, res) => sendJson(res, 200, { data: [{ session_id: 'x' }], next_cursor: 'same' }));
    const ids: string[] = [];
    await expect(async () => {
      for await (const s of client().sessions.list({ cursor: 'same' })) ids.push(s.session_id);
    }).rejects.toThrow(/same cursor/);
    expect(ids).toEqual(['x']);
  });

  it('refuses a cursor cycle (A → B → A) after delivering each page once', async () => {
    const cycle: Record<string, { data: unknown[]; next_cursor: string }> = {
      '': { data: [{ session_id: 'a' }], next_cursor: 'B' },
      B: { data: [{ session_id: 'b' }], next_cursor: 'A' },
      A: { data: [{ session_id: 'c' }], next_cursor: 'B' },
    };
    server.route('GET /v1/agent/sessions', (req, res) => sendJson(res, 200, cycle[req.query.get('cursor') ?? '']));
    const ids: string[] = [];
    await expect(async () => {
      for await (const s of client().sessions.list({})) ids.push(s.session_id);
    }).rejects.toThrow(/same cursor \(B\) again/);
    expect(ids).toEqual(['a', 'b', 'c']);
  });

  it('refuses a bad limit', async () => {
    await expect(client().sessions.list({ limit: 0 })).rejects.toThrow(/limit/);
  });
});

describe('sessions.create', () => {
  it('sends agent_id, end_user_id, metadata and valid dynamic variables; drops invalid ones with a warning', async () => {
    server.route('POST /v1/agent/sessions', (req, res) =>
      sendJson(res, 201, { session_id: 'sess_9', status: 'pending', ...(req.json as object) }),
    );
    const warnings: string[] = [];
    const metadata = { order: 7, price: '19.90', nested: { deep: [true] } };
    const s = await client(warnings).sessions.create({
      agent_id: 'ag_1',
      end_user_id: 'user_42',
      metadata,
      dynamic_variables: { customer_name: 'Ada', visits: 3, vip: true, 'bad-name': 'x', tooLong: 'y'.repeat(1001), obj: {} },
    });
    expect(s.session_id).toBe('sess_9');
    expect(server.requests[0]!.json).toEqual({
      agent_id: 'ag_1',
      end_user_id: 'user_42',
      metadata,
      dynamic_variables: { customer_name: 'Ada', visits: 3, vip: true },
    });
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/sessions.create: dynamic variable "bad-name" dropped/);
  });

  it('refuses a missing agent_id and non-object metadata before any network call', async () => {
    await expect(client().sessions.create({ agent_id: '' })).rejects.toThrow(/agent_id/);
    await expect(client().sessions.create({ agent_id: 'a', metadata: [] as never })).rejects.toThrow(/metadata/);
    expect(server.requests).toHaveLength(0);
  });

  it('sends a field the types do not know yet, spread in through unknownFields', async () => {
    server.route('POST /v1/agent/sessions', (_req, res) => sendJson(res, 201, { session_id: 'sess_x' }));
    await client().sessions.create({ agent_id: 'ag_1', ...unknownFields({ channel: 'web', labels: ['a'] }) });
    expect(server.requests[0]!.json).toEqual({ agent_id: 'ag_1', channel: 'web', labels: ['a'] });
  });

  it('still takes the deprecated camelCase form and sends the same wire body', async () => {
    server.route('POST /v1/agent/sessions', (_req, res) => sendJson(res, 201, { session_id: 'sess_old' }));
    const aborted = new AbortController();
    const legacy = { agentId: 'ag_1', endUserId: 'user_42', dynamicVariables: { name: 'Ada' }, signal: aborted.signal };
    await client().sessions.create(legacy);
    expect(server.requests[0]!.json).toEqual({ agent_id: 'ag_1', end_user_id: 'user_42', dynamic_variables: { name: 'Ada' } });
    await expect(client().sessions.create({ agentId: '' })).rejects.toThrow(/agentId must be a non-empty string/);
    aborted.abort();
    await expect(client().sessions.create(legacy)).rejects.toThrow(/abort/i);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses one field given in both forms', async () => {
    const both = { agent_id: 'a', agentId: 'a' } as unknown as Parameters<ReturnType<typeof client>['sessions']['create']>[0];
    const err = await client()
      .sessions.create(both)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect((err as InvalidOptionError).message).toMatch(/agent_id or the deprecated agentId/);
    expect(server.requests).toHaveLength(0);
  });
});
