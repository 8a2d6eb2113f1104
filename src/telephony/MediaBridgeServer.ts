/**
 * A WebSocket server that turns each connection into a call on one provider's media stream
 * (`provider: 'twilio' | 'telnyx' | 'plivo' | 'vonage' | 'exotel'`). Thin: it owns the `ws`
 * WebSocketServer and the set of live calls, nothing else. `createTwilioBridge` stays as it was
 * (`createMediaBridge({ provider: 'twilio' })` does the same with the upgrade request passed on).
 */
import { once } from 'node:events';
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import { WebSocketServer } from 'ws';
import type { CallOptions } from './callOptions.js';
import type { MediaSocketServer } from './mediaSocket.js';
import { attachMediaStream, type ProviderCalls, type ProviderName } from './mediaStream.js';

export interface MediaBridgeOptions<P extends ProviderName> extends CallOptions {
  /** Whose media streams connect here. */
  provider: P;
  /** Listen here (ignored with `server`). @defaultValue '127.0.0.1' */
  host?: string;
  /** 0 picks a free port (ignored with `server`). @defaultValue 0 */
  port?: number;
  /** Share an existing HTTP server (e.g. the one serving the answer document). */
  server?: HttpServer;
  /** Only upgrade requests for this path. @defaultValue every path */
  path?: string;
  /** Called for every new call, before its start arrives, with the upgrade request (its URL and headers). */
  onCall(call: ProviderCalls[P], request: IncomingMessage): void;
}

export interface MediaBridge<P extends ProviderName> {
  readonly provider: P;
  /** The `ws` WebSocketServer underneath (typed by what the bridge promises of it). */
  readonly wss: MediaSocketServer;
  /** `ws://host:port` (with `path`), when the bridge listens on its own port. */
  readonly url: string | null;
  readonly calls: ReadonlySet<ProviderCalls[P]>;
  /** Ends every call and stops listening. */
  close(): Promise<void>;
}

/**
 * @example
 * ```ts
 * const bridge = await createMediaBridge({ provider: 'vonage', port: 8080, source, onCall(call) {
 *   call.on('start', () => void call.speak('Hello!'));
 * } });
 * ```
 */
export async function createMediaBridge<P extends ProviderName>(options: MediaBridgeOptions<P>): Promise<MediaBridge<P>> {
  const { provider, host = '127.0.0.1', port = 0, server, path, onCall, ...callOptions } = options;
  const wss =
    server !== undefined
      ? new WebSocketServer({ server, ...(path !== undefined ? { path } : {}) })
      : new WebSocketServer({ host, port, ...(path !== undefined ? { path } : {}) });
  if (server === undefined) await once(wss, 'listening');
  const calls = new Set<ProviderCalls[P]>();
  wss.on('connection', (ws, request) => {
    const call = attachMediaStream(ws, { ...callOptions, provider });
    calls.add(call);
    call.once('close', () => calls.delete(call));
    onCall(call, request);
  });
  let url: string | null = null;
  if (server === undefined) {
    const address = wss.address();
    if (typeof address === 'object' && address !== null) {
      const h = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      url = `ws://${h}:${address.port}${path ?? ''}`;
    }
  }
  return {
    provider,
    wss,
    url,
    calls,
    async close() {
      for (const call of [...calls]) call.close();
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
