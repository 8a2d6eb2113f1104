import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryDedupStore } from '../../src/webhooks/MemoryDedupStore.js';
import { createWebhookReceiver, type WebhookReceiverOptions } from '../../src/webhooks/receiver.js';
import { signWebhookPayload } from '../../src/protocol/webhookSignature.js';
import type { WebhookEvent } from '../../src/webhooks/events.js';
import { expectRefusedAndClosed } from '../support/oversizedPost.js';

const SECRET = 'whsec_receiver';
const NOW_S = 1_784_808_000;
const now = (): number => NOW_S * 1000;

function body(obj: unknown): Buffer {
  return Buffer.from(JSON.stringify(obj));
}
function signed(b: Buffer, t = NOW_S): Record<string, string> {
  return { 'X-Fish-Webhook-Signature': signWebhookPayload({ payload: b, secret: SECRET, timestamp: t }) };
}
const ended = body({ event: 'call.ended', session: { id: 'sess_r1' }, ended_reason: 'user_hangup' });

function receiver(overrides: Partial<WebhookReceiverOptions> = {}, seen: WebhookEvent[] = []) {
  return createWebhookReceiver({ secret: SECRET, now, onEvent: (ev) => void seen.push(ev), ...overrides });
}

describe('createWebhookReceiver().handle (framework-agnostic)', () => {
  it('verifies, parses and calls the handler once; a retry is a 200 duplicate', async () => {
    const seen: WebhookEvent[] = [];
    const r = receiver({}, seen);
    const first = await r.handle(signed(ended), ended);
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toEqual({ status: 'handled' });
    // The sender signs each retry afresh: a new t, the same body.
    const retry = await r.handle(signed(ended, NOW_S + 5), ended);
    expect(retry.status).toBe(200);
    expect(JSON.parse(retry.body)).toEqual({ status: 'duplicate' });
    expect(seen).toHaveLength(1);
  });

  it('answers 401 for a wrong signature and 400 for a malformed or missing header', async () => {
    const r = receiver();
    const wrong = { 'x-fish-webhook-signature': signWebhookPayload({ payload: ended, secret: 'other', timestamp: NOW_S }) };
    expect((await r.handle(wrong, ended)).status).toBe(401);
    expect((await r.handle(signed(ended, NOW_S - 301), ended)).status).toBe(401);
    expect((await r.handle({ 'x-fish-webhook-signature': 't=abc,v1=zz' }, ended)).status).toBe(400);
    expect((await r.handle({}, ended)).status).toBe(400);
  });

  it('answers 400 for a verified body that is not a webhook event', async () => {
    const b = Buffer.from('[1,2]');
    expect((await receiver().handle(signed(b), b)).status).toBe(400);
  });

  it('answers 409 to a retry racing the first attempt, then 200 once done', async () => {
    let release!: () => void;
    const gate = new Promise<void>((res) => (release = res));
    const r = receiver({ onEvent: () => gate });
    const first = r.handle(signed(ended), ended);
    const racing = await r.handle(signed(ended), ended);
    expect(racing.status).toBe(409);
    release();
    expect((await first).status).toBe(200);
    expect((await r.handle(signed(ended), ended)).status).toBe(200);
  });

  it('answers 500 when the handler throws, without leaking its message, and handles the retry', async () => {
    let fail = true;
    const errors: unknown[] = [];
    const r = receiver({
      onEvent: () => {
        if (fail) throw new Error('secret internal detail');
      },
      onError: (e) => errors.push(e),
    });
    const res = await r.handle(signed(ended), ended);
    expect(res.status).toBe(500);
    expect(res.body).not.toContain('internal detail');
    expect((errors[0] as Error).message).toBe('secret internal detail');
    fail = false;
    expect(JSON.parse((await r.handle(signed(ended), ended)).body)).toEqual({ status: 'handled' });
  });

  it('answers 503 when the dedup store fails', async () => {
    const broken = {
      claim: () => Promise.reject(new Error('redis down')),
      complete: async () => undefined,
      release: async () => undefined,
    };
    expect((await receiver({ store: broken }).handle(signed(ended), ended)).status).toBe(503);
  });

  it('applies the call.analyzed supersede rule: older is stale, newer handled', async () => {
    const seen: WebhookEvent[] = [];
    const r = receiver({ store: new MemoryDedupStore({ now }) }, seen);
    const analyzed = (finishedAt: string): Buffer =>
      body({ event: 'call.analyzed', session: { id: 's_a' }, analysis: { status: 'completed', finished_at: finishedAt } });
    const newer = analyzed('2026-11-22T03:00:10Z');
    const older = analyzed('2026-11-22T03:00:00Z');
    expect(JSON.parse((await r.handle(signed(newer), newer)).body).status).toBe('handled');
    expect(JSON.parse((await r.handle(signed(older), older)).body).status).toBe('stale');
    expect(seen).toHaveLength(1);
  });

  it('passes unknown events to the handler, flagged', async () => {
    const seen: WebhookEvent[] = [];
    const b = body({ event: 'call.something_new', session: { id: 'x' } });
    expect((await receiver({}, seen).handle(signed(b), b)).status).toBe(200);
    expect(seen[0]?.type).toBe('unknown');
  });

  it('accepts unsigned deliveries only with allowUnsigned', async () => {
    expect(() => createWebhookReceiver({ onEvent: () => undefined })).toThrow(/secret/);
    const r = createWebhookReceiver({ allowUnsigned: true, onEvent: () => undefined });
    expect((await r.handle({}, ended)).status).toBe(200);
  });

  it('reads the signature from a custom header name and from a fetch Headers object', async () => {
    const r = receiver({ headerName: 'X-My-Signature' });
    const h = new Headers({ 'x-my-signature': signed(ended)['X-Fish-Webhook-Signature']! });
    expect((await r.handle(h, ended)).status).toBe(200);
  });
});

describe('createWebhookReceiver().nodeHandler over real HTTP', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((res) => (server ? server.close(() => res()) : res()));
    server = undefined;
  });

  async function start(opts: Partial<WebhookReceiverOptions>, seen: WebhookEvent[] = []): Promise<string> {
    const r = receiver(opts, seen);
    server = createServer((req, res) => void r.nodeHandler(req, res));
    await new Promise<void>((res) => server!.listen(0, '127.0.0.1', res));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  }

  it('handles a signed POST and refuses other methods', async () => {
    const seen: WebhookEvent[] = [];
    const url = await start({}, seen);
    const res = await fetch(url, { method: 'POST', headers: { ...signed(ended), 'content-type': 'application/json' }, body: ended });
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect((await fetch(url)).status).toBe(405);
  });

  it('two concurrent identical deliveries over HTTP: one handler call, one 409', async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const url = await start({
      onEvent: async () => {
        calls++;
        await gate;
      },
    });
    const send = (): Promise<Response> => fetch(url, { method: 'POST', headers: signed(ended), body: ended });
    const a = send();
    const b = send();
    const statuses: number[] = [];
    const firstDone = await Promise.race([a, b]);
    statuses.push(firstDone.status);
    release();
    const both = await Promise.all([a, b]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(calls).toBe(1);
  });

  it('accepts a body a framework already read as bytes, and diagnoses one parsed into an object', async () => {
    const errors: unknown[] = [];
    const seen: WebhookEvent[] = [];
    const r = receiver({ onError: (e) => errors.push(e) }, seen);
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        // like express.raw() on /raw, express.json() on /parsed
        (req as typeof req & { body?: unknown }).body = req.url === '/raw' ? raw : JSON.parse(raw.toString());
        void r.nodeHandler(req, res);
      });
    });
    await new Promise<void>((res) => server!.listen(0, '127.0.0.1', res));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect((await fetch(`${base}/raw`, { method: 'POST', headers: signed(ended), body: ended })).status).toBe(200);
    expect(seen).toHaveLength(1);
    expect((await fetch(`${base}/parsed`, { method: 'POST', headers: signed(ended), body: ended })).status).toBe(500);
    expect((errors[0] as Error).message).toMatch(/already parsed/);
    expect(errors[0]).toMatchObject({ code: 'WEBHOOK_BAD_PAYLOAD', field: 'body' }); // typed, for onError
  });

  it('answers 413 for a body over the limit', async () => {
    const url = await start({ maxBodyBytes: 100 });
    const big = Buffer.alloc(10_000, 0x20);
    const res = await fetch(url, { method: 'POST', headers: signed(big), body: big });
    expect(res.status).toBe(413);
  });

  it('an oversized body that stalls gets 413 with Connection: close and the socket is closed at once, unread', async () => {
    const url = await start({ maxBodyBytes: 1024 });
    // Announced over the limit: refused before a byte is read (512 bytes sent, then a stall);
    // chunked: refused as soon as the limit is passed.
    await expectRefusedAndClosed(url, {}, [
      [512, 64 * 1024 * 1024],
      [64 * 1024, undefined],
    ]);
  });
});
