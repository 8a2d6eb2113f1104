/**
 * Deeply nested or oversized client JSON is refused before the platform stores it, so no write
 * can break a later read (issue 19, item 10).
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertStorableJson, jsonDepth, MAX_STORED_JSON_BYTES, MAX_STORED_JSON_DEPTH } from '../../../src/service/platform/storableJson.js';
import { liveAgent, minimalConfig, startPlatform, type PlatformServer } from './helpers.js';

/** `{"a":{"a":…}}` nested `depth` deep, built as text (building it as an object would recurse). */
function nestedText(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

let p: PlatformServer;
beforeEach(async () => {
  p = await startPlatform();
});
afterEach(async () => {
  await p.close();
});

describe('storable JSON over HTTP', () => {
  it('a config PATCH 2,500 deep is a 422 and the agent still reads, publishes and lists its versions', async () => {
    const id = await liveAgent(p, minimalConfig());
    const patch = `{"brand_new_section":${nestedText(2500)}}`;
    const r = await p.call('PATCH', `/v1/agent/agents/${id}/config`, patch);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ status: 422, reason: 'json_too_deep' });
    expect(r.body.message).toContain(String(MAX_STORED_JSON_DEPTH));
    expect((await p.call('GET', `/v1/agent/agents/${id}`)).status).toBe(200);
    expect((await p.call('POST', `/v1/agent/agents/${id}/publish`)).status).toBe(200);
    expect((await p.call('GET', `/v1/agent/agents/${id}/versions`)).status).toBe(200);
  });

  it('an agent created with a deep config or deep extra field is refused and not stored', async () => {
    const deepConfig = `{"name":"A","config":{"prompt":{"system_prompt":"x"},"x":${nestedText(3000)}}}`;
    expect((await p.call('POST', '/v1/agent/agents', deepConfig)).body).toMatchObject({ status: 422, reason: 'json_too_deep' });
    const deepExtra = `{"name":"A","labels":${nestedText(3000)}}`;
    expect((await p.call('POST', '/v1/agent/agents', deepExtra)).body).toMatchObject({ status: 422, reason: 'json_too_deep' });
  });

  it('a session with metadata 6,000 deep is a 422, is not stored, and listing still answers 200', async () => {
    const id = await liveAgent(p, minimalConfig());
    const r = await p.call('POST', '/v1/agent/sessions', `{"agent_id":${JSON.stringify(id)},"metadata":${nestedText(6000)}}`);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ status: 422, reason: 'json_too_deep' });
    const list = await p.call('GET', '/v1/agent/sessions');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
  });

  it('dynamic variables holding a deep value are refused (only scalars are kept) and listing still answers 200', async () => {
    const id = await liveAgent(p, minimalConfig());
    const r = await p.call(
      'POST',
      '/v1/agent/sessions',
      `{"agent_id":${JSON.stringify(id)},"dynamic_variables":{"x":${nestedText(6000)}}}`,
    );
    expect(r.body).toMatchObject({ status: 422, reason: 'invalid_dynamic_variables' });
    expect((await p.call('GET', '/v1/agent/sessions')).status).toBe(200);
  });

  it('a simulated tool result nested too deep is refused before the session exists', async () => {
    const id = await liveAgent(p, minimalConfig());
    const body = `{"turns":[{"user":"hi"},{"tool":"lookup","arguments":{},"result":${nestedText(5000)}}]}`;
    const r = await p.call('POST', `/v1/agent/agents/${id}/simulate`, body);
    expect(r.body).toMatchObject({ status: 422, reason: 'json_too_deep' });
    expect(r.body.message).toContain('turns[1].result');
    expect((await p.call('GET', '/v1/agent/sessions')).body.data).toEqual([]);
  });

  it('a config grown over the size limit by patches is refused; the stored draft is the last good one', async () => {
    const id = await liveAgent(p, minimalConfig());
    const piece = 'x'.repeat(100 * 1024);
    expect((await p.call('PATCH', `/v1/agent/agents/${id}/config`, { notes: { a: piece } })).status).toBe(200);
    expect((await p.call('PATCH', `/v1/agent/agents/${id}/config`, { notes: { b: piece } })).status).toBe(200);
    const r = await p.call('PATCH', `/v1/agent/agents/${id}/config`, { notes: { c: piece } });
    expect(r.body).toMatchObject({ status: 422, reason: 'json_too_large' });
    expect(r.body.message).toContain(String(MAX_STORED_JSON_BYTES));
    const got = await p.call('GET', `/v1/agent/agents/${id}`);
    expect(Object.keys(got.body.config.notes)).toEqual(['a', 'b']);
  });

  it('values at the depth limit are stored and read back', async () => {
    const id = await liveAgent(p, minimalConfig());
    // metadata itself is level 1, so this is exactly MAX_STORED_JSON_DEPTH deep.
    const metadata = JSON.parse(nestedText(MAX_STORED_JSON_DEPTH - 1));
    const r = await p.call('POST', '/v1/agent/sessions', { agent_id: id, metadata: { a: metadata } });
    expect(r.status).toBe(201);
    expect(r.body.metadata).toEqual({ a: metadata });
  });
});

describe('jsonDepth', () => {
  it('scalars are depth 0, empty containers 1', () => {
    expect(jsonDepth('x')).toBe(0);
    expect(jsonDepth(null)).toBe(0);
    expect(jsonDepth({})).toBe(1);
    expect(jsonDepth([[], { a: [1] }])).toBe(3);
  });

  it('is the nesting of any value, and stops early past the limit without recursing through it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 }), fc.boolean(), (depth, arrays) => {
        const text = arrays ? '['.repeat(depth) + '0' + ']'.repeat(depth) : nestedText(depth);
        const d = jsonDepth(JSON.parse(text));
        expect(d).toBe(depth > MAX_STORED_JSON_DEPTH ? Number.POSITIVE_INFINITY : depth);
      }),
    );
    expect(jsonDepth(JSON.parse(nestedText(200_000)))).toBe(Number.POSITIVE_INFINITY);
  });

  it('assertStorableJson names the field', () => {
    expect(() => assertStorableJson(JSON.parse(nestedText(100)), 'metadata')).toThrow(/metadata is nested deeper than 64/);
    expect(() => assertStorableJson({ a: 1 }, 'metadata')).not.toThrow();
  });
});
