/**
 * The `/v1/agent/*` hook: authenticated requests go to the platform handler with the token, the
 * request id and a `synthesize` function; unhandled ones are 404.
 */
import { describe, expect, it } from 'vitest';
import { startLocalService, type PlatformHandler, type ServiceRequestContext } from '../../src/service/index.js';

describe('platform hook', () => {
  it('gets authenticated /v1/agent/* requests with token, request id and synthesize', async () => {
    const seen: ServiceRequestContext[] = [];
    const handler: PlatformHandler = async (req, res, ctx) => {
      seen.push(ctx);
      if (req.url !== '/v1/agent/hello') return false;
      const spoken = await ctx.synthesize({ text: 'Hi, caller.', format: 'pcm', sample_rate: 8000 });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ words: spoken.words.map((w) => w.text), bytes: spoken.audio.length, events: spoken.events.length }));
      return true;
    };
    const svc = await startLocalService({ platform: handler, token: 'tok' });
    try {
      const auth = { authorization: 'Bearer tok' };
      const ok = await fetch(`${svc.baseUrl}/v1/agent/hello`, { headers: auth });
      expect(ok.status).toBe(200);
      const body = (await ok.json()) as { words: string[]; bytes: number; events: number };
      expect(body.words).toEqual(['Hi', 'caller']);
      expect(body.bytes).toBeGreaterThan(8000);
      expect(seen[0]).toMatchObject({ token: 'tok', requestId: ok.headers.get('x-request-id'), baseUrl: svc.baseUrl });
      const unhandled = await fetch(`${svc.baseUrl}/v1/agent/other`, { headers: auth });
      expect(unhandled.status).toBe(404);
      expect(await unhandled.json()).toMatchObject({ status: 404, reason: 'not_found' });
      const anonymous = await fetch(`${svc.baseUrl}/v1/agent/hello`);
      expect(anonymous.status).toBe(401);
      expect(seen).toHaveLength(2);
    } finally {
      await svc.close();
    }
  });

  it('platform: false answers 404 for every /v1/agent/* path', async () => {
    const svc = await startLocalService({ platform: false });
    try {
      const r = await fetch(`${svc.baseUrl}/v1/agent/agents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${svc.token}` },
        body: '{}',
      });
      expect(r.status).toBe(404);
    } finally {
      await svc.close();
    }
  });

  it('ctx.synthesize applies the same validation as the endpoint', async () => {
    let err: unknown = null;
    const svc = await startLocalService({
      platform: async (_req, res, ctx) => {
        err = await ctx.synthesize({ text: '' }).catch((e: unknown) => e);
        res.end();
        return true;
      },
    });
    try {
      await fetch(`${svc.baseUrl}/v1/agent/x`, { headers: { authorization: `Bearer ${svc.token}` } });
      expect(err).toMatchObject({ code: 'REQUEST_INVALID', field: 'text' });
    } finally {
      await svc.close();
    }
  });
});
