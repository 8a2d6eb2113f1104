import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { VoicewireError } from '../../src/errors.js';
import { createConversationInitReceiver } from '../../src/webhooks/inbound.js';
import { signWebhookPayload } from '../../src/protocol/webhookSignature.js';
import type { DynamicVariableWarning } from '../../src/protocol/dynamicVariables.js';

const SECRET = 'whsec_init';
const NOW_S = 1_784_808_000;
const request = Buffer.from(
  JSON.stringify({
    event: 'call.inbound',
    caller_number: '+15550001111',
    dialed_number: '+15550002222',
    carrier_call_sid: 'CA1',
    extra: 1,
  }),
);
const sign = (b: Buffer): Record<string, string> => ({
  'x-fish-webhook-signature': signWebhookPayload({ payload: b, secret: SECRET, timestamp: NOW_S }),
});

describe('createConversationInitReceiver', () => {
  it('passes the call to the handler and answers its validated variables', async () => {
    const warnings: DynamicVariableWarning[] = [];
    const init = createConversationInitReceiver({
      secret: SECRET,
      now: () => NOW_S * 1000,
      onCall: (req) => {
        expect(req.caller_number).toBe('+15550001111');
        expect(req.carrier_call_sid).toBe('CA1');
        expect(req['extra']).toBe(1);
        return { dynamic_variables: { customer_name: 'Ada', tier: 2, 'bad name': 'x', vip: true } };
      },
      onWarning: (w) => warnings.push(w),
    });
    const res = await init.handle(sign(request), request);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ dynamic_variables: { customer_name: 'Ada', tier: 2, vip: true } });
    expect(warnings.map((w) => w.name)).toEqual(['bad name']);
  });

  it('verifies when a secret is configured (401 wrong, 400 missing)', async () => {
    const init = createConversationInitReceiver({ secret: SECRET, now: () => NOW_S * 1000, onCall: () => undefined });
    const wrong = { 'x-fish-webhook-signature': signWebhookPayload({ payload: request, secret: 'nope', timestamp: NOW_S }) };
    expect((await init.handle(wrong, request)).status).toBe(401);
    expect((await init.handle({}, request)).status).toBe(400);
  });

  it('accepts unsigned requests when no secret is configured', async () => {
    const init = createConversationInitReceiver({ onCall: () => ({ dynamic_variables: { a: 1 } }) });
    expect(JSON.parse((await init.handle({}, request)).body)).toEqual({ dynamic_variables: { a: 1 } });
  });

  it('never blocks the call: a throwing handler answers 200 with no variables', async () => {
    const errors: unknown[] = [];
    const init = createConversationInitReceiver({
      onCall: () => {
        throw new Error('crm down');
      },
      onError: (e) => errors.push(e),
    });
    const res = await init.handle({}, request);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ dynamic_variables: {} });
    expect(errors).toHaveLength(1);
  });

  it('never blocks the call: a slow handler is cut off at handlerTimeoutMs with a typed WEBHOOK_HANDLER_TIMEOUT', async () => {
    const errors: unknown[] = [];
    const init = createConversationInitReceiver({
      handlerTimeoutMs: 20,
      onCall: () => new Promise(() => undefined), // never settles
      onError: (e) => errors.push(e),
    });
    const res = await init.handle({}, request);
    expect(JSON.parse(res.body)).toEqual({ dynamic_variables: {} });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(VoicewireError);
    expect(errors[0]).toMatchObject({ code: 'WEBHOOK_HANDLER_TIMEOUT', field: 'handlerTimeoutMs' });
    expect((errors[0] as Error).message).toContain('20 ms');
  });

  it('answers 400 to a body that is not a JSON object and reports WEBHOOK_BAD_PAYLOAD on the body', async () => {
    const errors: unknown[] = [];
    const init = createConversationInitReceiver({ onCall: () => undefined, onError: (e) => errors.push(e) });
    expect((await init.handle({}, 'nope')).status).toBe(400);
    expect((await init.handle({}, '[1]')).status).toBe(400);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({ code: 'WEBHOOK_BAD_PAYLOAD', field: 'body' });
  });

  it('accepts a Map from the handler; __proto__ in the request is just a field', async () => {
    const init = createConversationInitReceiver({
      onCall: (req) => {
        expect(Object.getPrototypeOf(req)).toBe(Object.prototype);
        return { dynamic_variables: new Map<string, unknown>([['constructor', 'c']]) };
      },
    });
    const b = Buffer.from('{"caller_number":"","dialed_number":"+1","carrier_call_sid":"","__proto__":{"polluted":1}}');
    const res = await init.handle({}, b);
    expect(JSON.parse(res.body)).toEqual({ dynamic_variables: { constructor: 'c' } });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('over node:http answers like the post-call receiver: 405 for GET, 413 for an oversized body', async () => {
    const errors: unknown[] = [];
    const init = createConversationInitReceiver({ onCall: () => undefined, onError: (e) => errors.push(e) });
    const server = createServer((req, res) => void init.nodeHandler(req, res));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/init`;
      expect((await fetch(url)).status).toBe(405);
      const big = Buffer.alloc(128 * 1024, 0x20);
      expect((await fetch(url, { method: 'POST', body: big })).status).toBe(413);
      expect(errors[0]).toMatchObject({ code: 'WEBHOOK_BAD_PAYLOAD' });
      expect((await fetch(url, { method: 'POST', body: request })).status).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  });
});
