/**
 * Example: a webhook receiver for the voice-agent service.
 *
 *   WEBHOOK_SECRET=whsec_... [INIT_SECRET=...] [REDIS_URL=redis://127.0.0.1:6379] [PORT=3000] \
 *     npx tsx examples/webhook-receiver.ts
 *
 * - POST /webhooks/post-call          call.ended, call.analyzed, phone_call.dial_finished:
 *                                     verified, deduplicated (memory, or Redis with REDIS_URL),
 *                                     then logged as one JSON line each on stdout.
 * - POST /webhooks/conversation-init  inbound calls: answers dynamic variables for the prompt.
 *
 * Point `webhooks.post_call[].url` and `webhooks.conversation_init.url` of an agent here, then
 * publish the agent. In your own project import from 'voicewire/webhooks' instead of '../src/…'.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import {
  createConversationInitReceiver,
  createWebhookReceiver,
  MemoryDedupStore,
  RedisDedupStore,
  type DedupStore,
  type WebhookEvent,
} from '../src/webhooks/index.js';

export interface ExampleReceiverOptions {
  /** Secret of the post_call entry. */
  secret: string;
  /** Secret of conversation_init, when it is signed. */
  initSecret?: string;
  store?: DedupStore;
  port?: number;
  host?: string;
  /** Where each handled event goes. @defaultValue one JSON line on stdout */
  onEvent?: (event: WebhookEvent) => void | Promise<void>;
}

export interface ExampleReceiver {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** A customer directory the inbound-call hook looks callers up in. */
const CUSTOMERS = new Map([['+15550001111', { customer_name: 'Ada', tier: 'gold' }]]);

function logEvent(event: WebhookEvent): void {
  const line: Record<string, unknown> = { event: event.event, session: event.sessionId };
  if (event.type === 'call.ended') line['ended_reason'] = event.payload.ended_reason;
  if (event.type === 'call.analyzed') {
    line['analysis_status'] = event.payload.analysis.status;
    line['finished_at'] = event.payload.analysis.finished_at;
  }
  if (event.type === 'phone_call.dial_finished') line['dial_status'] = event.payload.dial_status;
  if (event.unrecognized.length > 0) line['unrecognized'] = event.unrecognized;
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

export async function startExampleReceiver(options: ExampleReceiverOptions): Promise<ExampleReceiver> {
  const postCall = createWebhookReceiver({
    secret: options.secret,
    store: options.store ?? new MemoryDedupStore(),
    onEvent: (event) => (options.onEvent ?? logEvent)(event),
    onError: (err) => process.stderr.write(`webhook: ${(err as Error).message}\n`),
  });
  const conversationInit = createConversationInitReceiver({
    ...(options.initSecret !== undefined ? { secret: options.initSecret } : {}),
    onCall: ({ caller_number }) => ({ dynamic_variables: CUSTOMERS.get(caller_number) ?? { customer_name: 'there' } }),
    onWarning: (w) => process.stderr.write(`conversation_init: ${w.message}\n`),
  });
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/webhooks/post-call') void postCall.nodeHandler(req, res);
    else if (path === '/webhooks/conversation-init') void conversationInit.nodeHandler(req, res);
    else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function main(): Promise<void> {
  const secret = process.env['WEBHOOK_SECRET'];
  if (!secret) {
    process.stderr.write('Set WEBHOOK_SECRET to the post_call secret of your agent.\n');
    process.exitCode = 2;
    return;
  }
  const redisUrl = process.env['REDIS_URL'];
  const store = redisUrl ? new RedisDedupStore({ url: redisUrl }) : new MemoryDedupStore();
  const receiver = await startExampleReceiver({
    secret,
    ...(process.env['INIT_SECRET'] ? { initSecret: process.env['INIT_SECRET'] } : {}),
    store,
    port: Number(process.env['PORT'] ?? 3000),
  });
  process.stderr.write(`listening on ${receiver.url}\n`);
  const stop = (): void => {
    void receiver.close().then(async () => {
      if (store instanceof RedisDedupStore) await store.close();
    });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main();
}
