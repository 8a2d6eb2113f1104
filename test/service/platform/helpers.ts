/**
 * Test helpers: the platform behind a real loopback HTTP server, and real loopback webhook
 * receivers that record every request (raw bytes, headers) and answer as each test scripts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createAgentPlatform,
  handlePlatformRequest,
  type AgentPlatform,
  type PlatformOptions,
  type SpeakFunction,
} from '../../../src/service/platform/index.js';

export const TOKEN = 'test-token';

export interface PlatformServer {
  url: string;
  platform: AgentPlatform;
  call(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Counts characters and estimates audio like a speech engine would (used where speech is not under test). */
export const countingSpeak: SpeakFunction = async (text) => ({
  characters: text.length,
  audioSeconds: text.length / 15,
  model: 'counting',
});

export async function startPlatform(
  options: PlatformOptions = {},
  speak: SpeakFunction | undefined = countingSpeak,
): Promise<PlatformServer> {
  const platform = createAgentPlatform(options);
  let n = 0;
  const server = createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    const token = auth.startsWith('Bearer ') ? auth.slice(7) : undefined;
    void handlePlatformRequest(req, res, { requestId: `req_${++n}`, token, speak, platform }).then((handled) => {
      if (!handled) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 404, message: 'not here', reason: 'not_found' }));
      }
    });
  });
  const url = await listen(server);
  return {
    url,
    platform,
    async call(method, path, body, token = TOKEN) {
      const r = await fetch(url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      const text = await r.text();
      return { status: r.status, body: text ? JSON.parse(text) : undefined, headers: r.headers };
    },
    async close() {
      await platform.settled();
      await close(server);
    },
  };
}

export interface ReceivedRequest {
  body: Buffer;
  json: any;
  headers: IncomingMessage['headers'];
  /** Milliseconds since the receiver started. */
  at: number;
}

/** What the receiver does with the n-th request (0-based): a status, optionally after a delay, or `hang` (never answers). */
export type ReceiverScript = (
  n: number,
  req: ReceivedRequest,
) => { status: number; body?: string; delayMs?: number; /** answer only once this settles */ after?: Promise<unknown> } | 'hang';

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Resolves when at least `count` requests arrived. */
  waitFor(count: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(script: ReceiverScript = () => ({ status: 200 }), path = '/hook'): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const started = performance.now();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      let json: unknown;
      try {
        json = JSON.parse(body.toString('utf8'));
      } catch {
        json = undefined;
      }
      const received: ReceivedRequest = { body, json, headers: req.headers, at: performance.now() - started };
      const n = requests.length;
      requests.push(received);
      for (const w of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const answer = script(n, received);
      if (answer === 'hang') return;
      const send = () => {
        if (res.destroyed || res.headersSent) return;
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(answer.body ?? '{}');
      };
      if (answer.after) {
        void answer.after.then(send, send);
      } else if (answer.delayMs) {
        const t = setTimeout(() => {
          timers.delete(t);
          send();
        }, answer.delayMs);
        timers.add(t);
      } else send();
    });
  });
  const base = await listen(server);
  return {
    url: base + path,
    requests,
    waitFor(count) {
      if (requests.length >= count) return Promise.resolve(requests);
      return new Promise((resolve) => waiters.push({ count, resolve: () => resolve(requests) }));
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      await close(server);
    },
  };
}

/** A minimal publishable config. */
export function minimalConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    prompt: { system_prompt: 'You are a helpful agent for {{company}}.', first_message: 'Hello {{name}}, this is {{company}}.' },
    voice: { voice_id: 'default', speaking_language: 'en' },
    ...extra,
  };
}

/** Creates and publishes an agent; returns its id. */
export async function liveAgent(p: PlatformServer, config: Record<string, unknown>, name = 'Test agent'): Promise<string> {
  const created = await p.call('POST', '/v1/agent/agents', { name, description: '', config });
  if (created.status !== 201) throw new Error(`create failed: ${JSON.stringify(created.body)}`);
  const id = created.body.agent_id as string;
  const published = await p.call('POST', `/v1/agent/agents/${id}/publish`);
  if (published.status !== 200) throw new Error(`publish failed: ${JSON.stringify(published.body)}`);
  return id;
}

/** Fast delivery timings for tests. */
export const FAST_DELIVERY = { attempts: 3, backoffMs: [30, 60], timeoutMs: 300 } as const;

/** A clock that moves one second every time it is read (so each signature gets a new `t`). */
export function steppingClock(start = Date.UTC(2026, 10, 22, 3, 0, 0)): () => number {
  let t = start;
  return () => (t += 1000);
}
