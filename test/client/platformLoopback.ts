/**
 * A small loopback HTTP server for client tests: routes by "METHOD /path", records every request.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  json: unknown;
}

export type Route = (req: Recorded, res: ServerResponse) => void | Promise<void>;

export interface Loopback {
  url: string;
  requests: Recorded[];
  route(key: string, handler: Route): void;
  close(): Promise<void>;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_${status}`, ...headers });
  res.end(text);
}

export async function startLoopback(): Promise<Loopback> {
  const routes = new Map<string, Route>();
  const requests: Recorded[] = [];
  // A fault in a handler stays an unhandled rejection, so the test run reports it.
  const server: Server = createServer((req, res) => void serve(req, res));
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://x');
    let json: unknown;
    try {
      json = body ? JSON.parse(body) : undefined;
    } catch {
      json = undefined;
    }
    const rec: Recorded = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body, json };
    requests.push(rec);
    const handler = routes.get(`${rec.method} ${rec.path}`);
    if (!handler) return sendJson(res, 404, { status: 404, message: `no route ${rec.method} ${rec.path}`, reason: 'not_found' });
    await handler(rec, res);
  }
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    route: (key, handler) => routes.set(key, handler),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
