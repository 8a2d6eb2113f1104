/**
 * The app side of a media stream with nothing in it but a `ws` server on loopback: it takes one
 * connection at a time and hands the test each text message (parsed) and binary frame in order.
 * Peers are tested against this before any bridge exists.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

type Item = { text: Record<string, unknown> } | { binary: Buffer };

export class AppConnection {
  private items: Item[] = [];
  private waiters: ((item: Item) => void)[] = [];
  closed = false;

  constructor(
    readonly ws: WebSocket,
    readonly headers: IncomingHttpHeaders,
  ) {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      const item: Item = isBinary ? { binary: Buffer.from(data) } : { text: JSON.parse(data.toString('utf8')) as Record<string, unknown> };
      const waiter = this.waiters.shift();
      if (waiter) waiter(item);
      else this.items.push(item);
    });
    ws.on('close', () => (this.closed = true));
  }

  private nextItem(): Promise<Item> {
    const item = this.items.shift();
    if (item) return Promise.resolve(item);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The next text message (a binary frame first is a test failure). */
  async next(): Promise<Record<string, unknown>> {
    const item = await this.nextItem();
    if (!('text' in item)) throw new Error(`expected a text message, got ${item.binary.length} binary bytes`);
    return item.text;
  }
  async nextBinary(): Promise<Buffer> {
    const item = await this.nextItem();
    if (!('binary' in item)) throw new Error(`expected a binary frame, got ${JSON.stringify(item.text)}`);
    return item.binary;
  }
  /** Messages already in and not yet taken. */
  get queued(): number {
    return this.items.length;
  }

  send(message: Record<string, unknown> | string): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }
  sendBinary(bytes: Uint8Array): void {
    this.ws.send(bytes, { binary: true });
  }
}

export class RawApp {
  private pending: AppConnection[] = [];
  private waiters: ((c: AppConnection) => void)[] = [];

  private constructor(private readonly server: WebSocketServer) {
    server.on('connection', (ws, req) => {
      const c = new AppConnection(ws, req.headers);
      const waiter = this.waiters.shift();
      if (waiter) waiter(c);
      else this.pending.push(c);
    });
  }

  static async listen(): Promise<RawApp> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', resolve));
    return new RawApp(server);
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}/media`;
  }

  accept(): Promise<AppConnection> {
    const c = this.pending.shift();
    if (c) return Promise.resolve(c);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async close(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
