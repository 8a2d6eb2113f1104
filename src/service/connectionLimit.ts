/**
 * A cap on the connections the local service serves at once, so that clients which connect and
 * never finish (or never read) cannot exhaust the process's file descriptors and starve the
 * requests that do finish.
 *
 * Up to `max` connections are served. The next ones (up to `max` more) are held just long enough
 * to read a request and answer it `503` with `Connection: close` and `Retry-After`, so a client
 * learns why; one that sends no request within {@link OVER_CAP_GRACE_MS} is dropped. Beyond
 * twice the cap, Node's own `server.maxConnections` refuses a connection at once (accept, then
 * close), so the descriptors held stay bounded whatever the arrival rate.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Connections served at once. @see LocalServiceOptions.maxConnections */
export const DEFAULT_MAX_CONNECTIONS = 1024;
/** How long a connection over the cap may take to send the request that will be answered 503. */
export const OVER_CAP_GRACE_MS = 1_000;
/** Over-cap connections held for a 503, as a multiple of the cap; past that they are refused. */
const OVER_CAP_HELD_FACTOR = 1;

export interface ConnectionLimit {
  /** True for a connection that arrived while the cap was reached: answer it 503 and close. */
  isOverCap(socket: Socket): boolean;
  /** The cap. */
  readonly max: number;
}

/** Installs the cap on `server` (call before it listens). */
export function limitConnections(server: Server, max: number): ConnectionLimit {
  const served = new Set<Socket>();
  const overCap = new WeakSet<Socket>();
  server.maxConnections = max * (1 + OVER_CAP_HELD_FACTOR);
  server.on('connection', (socket: Socket) => {
    if (served.size < max) {
      served.add(socket);
      socket.once('close', () => served.delete(socket));
      return;
    }
    overCap.add(socket);
    const drop = setTimeout(() => socket.destroy(), OVER_CAP_GRACE_MS);
    drop.unref();
    socket.once('close', () => clearTimeout(drop));
  });
  return { isOverCap: (socket) => overCap.has(socket), max };
}
