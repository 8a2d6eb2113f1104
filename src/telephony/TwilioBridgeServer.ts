/**
 * A WebSocket server that turns each Twilio Media Stream connection into a {@link TwilioCall}.
 * Thin: it owns the `ws` WebSocketServer and the set of live calls, nothing else.
 */
import { once } from 'node:events';
import type { Server as HttpServer } from 'node:http';
import { WebSocketServer } from 'ws';
import type { MediaSocketServer } from './mediaSocket.js';
import { attachTwilioMediaStream, type TwilioCall, type TwilioCallOptions } from './TwilioCall.js';

export interface TwilioBridgeOptions extends TwilioCallOptions {
  /** Listen here (ignored with `server`). @defaultValue '127.0.0.1' */
  host?: string;
  /** 0 picks a free port (ignored with `server`). @defaultValue 0 */
  port?: number;
  /** Share an existing HTTP server (e.g. the one answering Twilio's TwiML webhook). */
  server?: HttpServer;
  /** Only upgrade requests for this path. @defaultValue every path */
  path?: string;
  /** Called for every new call, before its `start` arrives. */
  onCall(call: TwilioCall): void;
}

export interface TwilioBridge {
  /** The `ws` WebSocketServer underneath (typed by what the bridge promises of it). */
  readonly wss: MediaSocketServer;
  /** `ws://host:port` (with `path`), when the bridge listens on its own port. */
  readonly url: string | null;
  readonly calls: ReadonlySet<TwilioCall>;
  /** Ends every call and stops listening. */
  close(): Promise<void>;
}

/**
 * @example
 * ```ts
 * const bridge = await createTwilioBridge({ port: 8080, source, onCall(call) {
 *   call.on('start', (s) => void call.speak(s.customParameters.greeting ?? 'Hello!'));
 * } });
 * ```
 */
export async function createTwilioBridge(options: TwilioBridgeOptions): Promise<TwilioBridge> {
  const { host = '127.0.0.1', port = 0, server, path, onCall, ...callOptions } = options;
  const wss =
    server !== undefined
      ? new WebSocketServer({ server, ...(path !== undefined ? { path } : {}) })
      : new WebSocketServer({ host, port, ...(path !== undefined ? { path } : {}) });
  if (server === undefined) await once(wss, 'listening');
  const calls = new Set<TwilioCall>();
  wss.on('connection', (ws) => {
    const call = attachTwilioMediaStream(ws, callOptions);
    calls.add(call);
    call.once('close', () => calls.delete(call));
    onCall(call);
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
