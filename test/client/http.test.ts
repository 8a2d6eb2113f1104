import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, type ClientOptions } from '../../src/client/index.js';
import { abortableSleep } from '../../src/internal/http/retry.js';
import {
  AbortError,
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from '../../src/errors.js';
import { sendJson, startLoopback, type Loopback } from './platformLoopback.js';

let server: Loopback;
let sleeps: number[];
beforeEach(async () => {
  server = await startLoopback();
  sleeps = [];
});
afterEach(async () => server.close());

const agentBody = { agent_id: 'ag_1', name: 'A', status: 'active', publication_state: 'draft' };

function client(extra: ClientOptions = {}) {
  return createClient({
    baseUrl: server.url,
    apiKey: 'sk_test',
    sleep: async (ms) => void sleeps.push(ms),
    retry: { baseDelayMs: 100 },
    ...extra,
  });
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

describe('HTTP core', () => {
  it('sends Authorization: Bearer, the client headers and accept json', async () => {
    server.route('GET /v1/agent/agents/ag_1', (_r, res) => sendJson(res, 200, agentBody));
    await client({ headers: { 'x-team': 'blue' } }).agents.get('ag_1');
    const req = server.requests[0]!;
    expect(req.headers['authorization']).toBe('Bearer sk_test');
    expect(req.headers['x-team']).toBe('blue');
    expect(req.headers['accept']).toBe('application/json');
  });

  it('lets per-request headers override the client headers case-insensitively', async () => {
    server.route('GET /v1/agent/agents/ag_1', (_r, res) => sendJson(res, 200, agentBody));
    await client({ headers: { 'X-Team': 'blue' } }).agents.get('ag_1', { headers: { 'x-team': 'red', Accept: 'application/x-custom' } });
    expect(server.requests[0]!.headers['x-team']).toBe('red');
    expect(server.requests[0]!.headers['accept']).toBe('application/x-custom');
  });

  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [413, PayloadTooLargeError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [418, ApiError],
  ])('maps HTTP %i to its typed error with status, reason, message and request id', async (status, Cls) => {
    server.route('GET /v1/agent/agents/ag_1', (_r, res) =>
      sendJson(res, status, { status, message: 'Agent ag_1 is archived', reason: 'agent_archived' }, { 'x-request-id': 'req_abc' }),
    );
    const err = (await rejection(client({ maxRetries: 0 }).agents.get('ag_1'))) as ApiError;
    expect(err).toBeInstanceOf(Cls);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(status);
    expect(err.reason).toBe('agent_archived');
    expect(err.requestId).toBe('req_abc');
    expect(err.message).toContain('Agent ag_1 is archived');
    expect(err.code).toBe('API_ERROR');
  });

  it('keeps a non-JSON error body readable in the message', async () => {
    server.route('GET /v1/agent/agents/ag_1', (_r, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<h1>Bad gateway</h1>');
    });
    const err = (await rejection(client({ maxRetries: 0 }).agents.get('ag_1'))) as ApiError;
    expect(err).toBeInstanceOf(InternalServerError);
    expect(err.message).toContain('Bad gateway');
    expect(err.reason).toBeUndefined();
  });

  it('retries a 429, honouring Retry-After, then succeeds', async () => {
    let n = 0;
    server.route('GET /v1/agent/agents/ag_1', (_r, res) =>
      n++ === 0
        ? sendJson(res, 429, { status: 429, message: 'slow down', reason: 'rate_limited' }, { 'retry-after': '2' })
        : sendJson(res, 200, agentBody),
    );
    const agent = await client().agents.get('ag_1');
    expect(agent.agent_id).toBe('ag_1');
    expect(sleeps).toEqual([2000]);
  });

  it('does not wait for a Retry-After longer than maxRetryAfterMs: the 429 is thrown', async () => {
    server.route('GET /v1/agent/agents/ag_1', (_r, res) =>
      sendJson(res, 429, { status: 429, message: 'm', reason: 'r' }, { 'retry-after': '3600' }),
    );
    expect(await rejection(client().agents.get('ag_1'))).toBeInstanceOf(RateLimitError);
    expect(sleeps).toEqual([]);
  });

  it('retries 5xx on idempotent GET with exponential backoff, up to maxRetries', async () => {
    server.route('GET /v1/agent/agents/ag_1', (_r, res) => sendJson(res, 503, { status: 503, message: 'busy', reason: 'unavailable' }));
    const err = await rejection(client({ maxRetries: 3, retry: { baseDelayMs: 100, maxDelayMs: 10_000 } }).agents.get('ag_1'));
    expect(err).toBeInstanceOf(InternalServerError);
    expect(server.requests).toHaveLength(4);
    expect(sleeps).toHaveLength(3);
    // ±25 % jitter around 100, 200, 400
    [100, 200, 400].forEach((base, i) => {
      expect(sleeps[i]).toBeGreaterThanOrEqual(base * 0.75);
      expect(sleeps[i]).toBeLessThanOrEqual(base * 1.25);
    });
  });

  it('does not retry a 5xx on POST create (a retry could create a duplicate)', async () => {
    server.route('POST /v1/agent/agents', (_r, res) => sendJson(res, 500, { status: 500, message: 'oops', reason: 'internal' }));
    const err = await rejection(
      client().agents.create({ name: 'x', config: { prompt: { system_prompt: 'p' }, voice: { voice_id: 'v', speaking_language: 'en' } } }),
    );
    expect(err).toBeInstanceOf(InternalServerError);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 429 on POST create (it was not processed)', async () => {
    let n = 0;
    server.route('POST /v1/agent/sessions', (_r, res) =>
      n++ === 0
        ? sendJson(res, 429, { status: 429, message: 'm', reason: 'r' }, { 'retry-after': '1' })
        : sendJson(res, 201, { session_id: 's1' }),
    );
    expect((await client().sessions.create({ agent_id: 'ag_1' })).session_id).toBe('s1');
    expect(server.requests).toHaveLength(2);
  });

  it('retries connection refused, even for POST, then throws ApiConnectionError', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const c = createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k', sleep: async (ms) => void sleeps.push(ms), maxRetries: 2 });
    const err = (await rejection(c.sessions.create({ agent_id: 'a' }))) as ApiConnectionError;
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect(err.code).toBe('API_CONNECTION');
    expect(err.message).toContain('ECONNREFUSED');
    expect(sleeps).toHaveLength(2);
  });

  it('times out waiting for the response head (timeoutMs) with ApiTimeoutError', async () => {
    server.route('GET /v1/agent/agents/slow', () => undefined); // never answers
    const err = (await rejection(client({ timeoutMs: 50, maxRetries: 0 }).agents.get('slow'))) as ApiTimeoutError;
    expect(err).toBeInstanceOf(ApiTimeoutError);
    expect(err.code).toBe('API_TIMEOUT');
  });

  it('times out a body that stalls (idleTimeoutMs) with ApiTimeoutError', async () => {
    server.route('GET /v1/agent/agents/stall', (_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"agent_id":'); // and then nothing
    });
    const err = await rejection(client({ idleTimeoutMs: 50 }).agents.get('stall'));
    expect(err).toBeInstanceOf(ApiTimeoutError);
    expect((err as Error).message).toMatch(/idleTimeoutMs/);
  });

  it('aborts a pending request with AbortError', async () => {
    server.route('GET /v1/agent/agents/slow', () => undefined);
    const ac = new AbortController();
    const p = client().agents.get('slow', { signal: ac.signal });
    setImmediate(() => ac.abort());
    const err = await rejection(p);
    expect(err).toBeInstanceOf(AbortError);
  });

  it('aborts during a retry wait with AbortError', async () => {
    server.route('GET /v1/agent/agents/ag_1', (_r, res) => sendJson(res, 503, { status: 503, message: 'm', reason: 'r' }));
    const ac = new AbortController();
    // The wait is a real abortable timer of 60 s; the caller aborts as soon as it starts.
    const sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
      const waiting = abortableSleep(ms, signal);
      ac.abort();
      return waiting;
    };
    const c = createClient({ baseUrl: server.url, apiKey: 'k', retry: { baseDelayMs: 60_000 }, sleep });
    const started = Date.now();
    expect(await rejection(c.agents.get('ag_1', { signal: ac.signal }))).toBeInstanceOf(AbortError);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses a 2xx body that is not JSON with an ApiError', async () => {
    server.route('GET /v1/agent/agents/ag_1', (_r, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('hello');
    });
    const err = await rejection(client().agents.get('ag_1'));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as Error).message).toMatch(/not JSON/);
  });

  it('uses overridden base paths', async () => {
    server.route('GET /gw/agents/ag_1', (_r, res) => sendJson(res, 200, agentBody));
    const agent = await client({ paths: { agents: '/gw/agents' } }).agents.get('ag_1');
    expect(agent.agent_id).toBe('ag_1');
  });

  it('percent-encodes ids so they cannot change the route', async () => {
    server.route('GET /v1/agent/agents/a%2Fb', (_r, res) => sendJson(res, 200, { agent_id: 'a/b' }));
    expect((await client().agents.get('a/b')).agent_id).toBe('a/b');
  });

  it('requires a baseUrl', () => {
    const saved = process.env['VOICEWIRE_BASE_URL'];
    delete process.env['VOICEWIRE_BASE_URL'];
    try {
      expect(() => createClient({})).toThrow(/baseUrl/);
    } finally {
      if (saved !== undefined) process.env['VOICEWIRE_BASE_URL'] = saved;
    }
  });
});
