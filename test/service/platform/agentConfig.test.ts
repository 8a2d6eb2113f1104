import { describe, expect, it } from 'vitest';
import {
  applyConfigPatch,
  mergePatch,
  postCallEndpoints,
  redactConfig,
  validateConfig,
} from '../../../src/service/platform/agentConfig.js';
import { analyzeCall, analysisEnabled } from '../../../src/service/platform/analysis.js';
import type { SessionItem } from '../../../src/service/platform/types.js';

describe('agent config rules', () => {
  it('merge patch: objects merge, null deletes, arrays replace', () => {
    expect(mergePatch({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { c: [3], e: null }, d: null, f: 'x' })).toEqual({
      a: { b: 1, c: [3] },
      f: 'x',
    });
  });

  it('enum-like strings the spec shows one value of are never rejected', () => {
    expect(() =>
      validateConfig({
        conversation: {
          transfer_destinations: [{ type: 'sip', mode: 'warm', warm_connect: 'whisper' }],
          outbound: { voicemail: { action: 'leave_message' } },
        },
        analysis: { data_fields: [{ name: 'x', type: 'date' }] },
      }),
    ).not.toThrow();
  });

  it('names the first field of a wrong type, however deep', () => {
    expect(() => validateConfig({ conversation: { transfer_destinations: [{}, { label: 3 }] } })).toThrow(
      'config.conversation.transfer_destinations[1].label must be a string',
    );
    expect(() => validateConfig({ webhooks: { conversation_init: { url: 'http://x', timeout_seconds: 1.5 } } })).toThrow(
      'config.webhooks.conversation_init.timeout_seconds must be an integer',
    );
    expect(() => validateConfig({ webhooks: { post_call: 'http://x' } })).toThrow(
      'config.webhooks.post_call must be an object or an array of objects',
    );
  });

  it('conversation_init keeps its secret for the same url only', () => {
    const stored = applyConfigPatch(undefined, { webhooks: { conversation_init: { url: 'http://a', secret: 'S', timeout_seconds: 3 } } });
    const same = applyConfigPatch(stored, { webhooks: { conversation_init: { url: 'http://a' } } });
    expect(same['webhooks']).toEqual({ conversation_init: { url: 'http://a', secret: 'S' } });
    const moved = applyConfigPatch(stored, { webhooks: { conversation_init: { url: 'http://b' } } });
    expect(moved['webhooks']).toEqual({ conversation_init: { url: 'http://b' } });
    expect(redactConfig(stored)['webhooks']).toEqual({ conversation_init: { url: 'http://a', timeout_seconds: 3 } });
  });

  it('postCallEndpoints reads a stored list with secrets', () => {
    const stored = applyConfigPatch(undefined, { webhooks: { post_call: { url: 'http://a', secret: 'S' } } });
    expect(postCallEndpoints(stored)).toEqual([{ url: 'http://a', secret: 'S' }]);
  });
});

describe('analysis rules', () => {
  const msg = (role: string, content: string): SessionItem => ({ type: 'message', id: 'i', turn_id: 1, role, content });
  const cfg = {
    analysis: { summary: { enabled: true }, criteria: [{ name: 'a' }], data_fields: [{ name: 'reason_for_call', type: 'text' }] },
  };

  it('is enabled by a summary, data fields or criteria', () => {
    expect(analysisEnabled({})).toBe(false);
    expect(analysisEnabled({ analysis: { summary: { enabled: false } } })).toBe(false);
    expect(analysisEnabled({ analysis: { criteria: [{ name: 'x' }] } })).toBe(true);
  });

  it('a criterion without keywords is unknown; a text field takes the sentence mentioning it', () => {
    const r = analyzeCall(cfg, [msg('user', 'Hello. The reason is my bill! Thanks.')], '2026-01-01T00:00:00.000Z', null);
    expect(r.criteria_results).toEqual([{ name: 'a', result: 'unknown', rationale: '0 of 0 keyword(s) of "a" said by the caller' }]);
    expect(r.data[0]).toMatchObject({ name: 'reason_for_call', value: 'The reason is my bill!' });
  });

  it('a message or name that is not a string is read as its JSON text, never as "[object Object]"', () => {
    const item = { type: 'message', id: 'i', turn_id: 1, role: 'user', content: { text: 'my bill' } } as unknown as SessionItem;
    const r = analyzeCall(
      { analysis: { criteria: [{ name: { en: 'bill' } }], data_fields: [{ name: 'bill', type: 'text' }] } },
      [item],
      't',
      null,
    );
    expect(r.data[0]).toMatchObject({ name: 'bill', value: '{"text":"my bill"}' });
    expect(r.criteria_results[0]).toMatchObject({ name: '{"en":"bill"}' });
  });

  it('the agent speaking alone is skipped; a failure cause is an error', () => {
    expect(analyzeCall(cfg, [msg('assistant', 'hi')], 't', null).status).toBe('skipped');
    expect(analyzeCall(cfg, [msg('user', 'hi')], 't', 'boom')).toEqual({
      status: 'error',
      finished_at: 't',
      error: 'boom',
      summary: null,
      data: [],
      criteria_results: [],
    });
  });
});
