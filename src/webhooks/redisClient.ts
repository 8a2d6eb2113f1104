/**
 * The ioredis client a {@link RedisDedupStore} makes for itself from a `url`, set up so that a
 * Redis outage costs a delivery a bounded wait and a 503, never a hang, and never a log line per
 * reconnect attempt.
 *
 * ioredis' defaults suit a cache that may wait for Redis, not a webhook endpoint whose sender gives
 * up after 10 s: a command issued while the connection is down is queued and retried over 20
 * reconnect attempts with a back-off capped at 5 s (measured: the 503 came after 73 s), and with no
 * `error` listener every failed attempt prints a stack. The options below are chosen against the
 * ioredis 5/6 option set (`RedisOptions` in the package):
 *
 * - `enableOfflineQueue: false`: a command issued while not connected fails at once. A queued
 *   claim would otherwise run on Redis after its delivery was already answered 503, and that
 *   orphan claim would answer the sender's retry 409 until the claim TTL ran out.
 * - `maxRetriesPerRequest: 0` and `autoResendUnfulfilledCommands: false`: a command already sent
 *   when the connection drops fails at the drop instead of being sent again after a reconnect
 *   (same reason: the delivery has been answered by then).
 * - `connectTimeout`: the store's operation timeout, so a connection attempt to a black-holed host
 *   is given up as soon as the store would stop waiting for it.
 * - `commandTimeout`: {@link LATE_REPLY_WINDOW_MS}, longer than the operation timeout on purpose.
 *   The store answers within its own deadline; a command a hung server has not answered stays
 *   pending a while longer, so that a claim that lands late is seen and released (see
 *   `RedisDedupStore.claim`), and is dropped after the window so a server that never answers
 *   cannot pile up pending commands without bound.
 * - `retryStrategy`: reconnect forever, 50 ms doubling to at most 1 s between attempts, so the store
 *   recovers by itself within about a second of Redis coming back (a strategy that gives up would
 *   leave a client that never reconnects, and the store would have to be recreated).
 * - `lazyConnect: false`: connect at construction, so the first delivery finds the connection ready.
 *
 * A command issued while ioredis is (re)connecting waits for `ready` within the operation's
 * deadline ({@link whenReady}) rather than failing, so a delivery that arrives during start-up or
 * a reconnect that is about to succeed is not answered 503 needlessly.
 */
import { once, type EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { MissingDependencyError } from '../errors.js';
import type { RedisLikeClient } from './RedisDedupStore.js';

const IOREDIS = 'ioredis';
/** ioredis' `status` once a connection can take commands, and once the client is closed for good. */
const STATUS_READY = 'ready';
const STATUS_ENDED = 'end';
/** Between reconnect attempts: no socket, a timer for the next attempt. */
const STATUS_RECONNECTING = 'reconnecting';

/** First reconnect delay; it doubles per failed attempt up to {@link RECONNECT_MAX_DELAY_MS}. */
export const RECONNECT_FIRST_DELAY_MS = 50;
/** Longest gap between reconnect attempts: how long after Redis returns the store may still fail. */
export const RECONNECT_MAX_DELAY_MS = 1000;
/** How long the built-in client keeps a command a hung server has not answered (see above). */
export const LATE_REPLY_WINDOW_MS = 30_000;
/** Longest wait in `close()` for the client to report it has stopped. */
const CLOSE_WAIT_MS = 1000;
/** With no `onError`, connection errors print at most one line per this interval. */
export const LOG_INTERVAL_MS = 60_000;

/** The part of an ioredis client the store drives beyond {@link RedisLikeClient}. */
export interface OwnRedisClient extends RedisLikeClient {
  readonly status: string;
  on(event: 'error', listener: (error: Error) => void): unknown;
  quit(): Promise<unknown>;
  disconnect(): void;
}

/**
 * Finds the installed ioredis synchronously, so a store given a `url` without ioredis installed
 * fails when it is constructed rather than answering 503 to every delivery.
 * `from` is a file path or `file:` URL; resolution starts in its directory.
 */
export function resolveIoredis(from: string | URL): string {
  try {
    return createRequire(from).resolve(IOREDIS);
  } catch (cause) {
    throw new MissingDependencyError(
      IOREDIS,
      'RedisDedupStore({ url }) needs the optional peer dependency "ioredis", which cannot be found: ' +
        'install it (npm install ioredis) or pass your own client as { client }',
      { field: 'url', cause },
    );
  }
}

/** Delay before reconnect attempt `attempt` (1-based); always a number, so ioredis never gives up. */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(RECONNECT_FIRST_DELAY_MS * 2 ** Math.max(0, attempt - 1), RECONNECT_MAX_DELAY_MS);
}

/** The ioredis options described above; `timeoutMs` is the store's operation timeout. */
export function boundedIoredisOptions(timeoutMs: number): Record<string, unknown> {
  return {
    connectTimeout: timeoutMs,
    commandTimeout: Math.max(timeoutMs, LATE_REPLY_WINDOW_MS),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: reconnectDelayMs,
    lazyConnect: false,
  };
}

/**
 * Imports ioredis from `modulePath` (found by {@link resolveIoredis}) and connects to `url`.
 * The `error` listener is attached before any I/O can happen: without one, ioredis prints
 * "Unhandled error event" with a stack on every failed reconnect.
 */
export async function createOwnClient(
  modulePath: string,
  url: string,
  timeoutMs: number,
  onError: (error: Error) => void,
): Promise<OwnRedisClient> {
  const mod = (await import(pathToFileURL(modulePath).href)) as Record<string, unknown>;
  const def = mod['default'] as Record<string, unknown> | undefined;
  const Ctor = (mod['Redis'] ?? def?.['Redis'] ?? def) as new (url: string, options: object) => OwnRedisClient;
  const client = new Ctor(url, boundedIoredisOptions(timeoutMs));
  client.on('error', onError);
  return client;
}

/**
 * Resolves when `client` can take commands: at once when connected, else on its next `ready`.
 * Rejects on the next connection error (a reconnect attempt that failed: no point waiting out the
 * deadline), when `signal` aborts (the listener is removed), or when the client was closed.
 */
export async function whenReady(client: OwnRedisClient, signal: AbortSignal): Promise<void> {
  if (client.status === STATUS_READY) return;
  if (client.status === STATUS_ENDED) throw new Error('the Redis connection was closed (store.close())');
  await once(client as unknown as EventEmitter, STATUS_READY, { signal });
}

/**
 * Closes a client the store made: QUIT when connected, and stops any reconnecting either way.
 * Between attempts (`reconnecting`) ioredis has no socket: disconnect() cancels the pending
 * attempt and the status stays `reconnecting` for good. With a socket open it reaches `end` a tick
 * after disconnect(); that is awaited (bounded, never throws).
 */
export async function closeOwnClient(client: OwnRedisClient): Promise<void> {
  if (client.status === STATUS_READY) await client.quit().catch(() => undefined);
  if (client.status === STATUS_ENDED) return;
  const ended =
    client.status === STATUS_RECONNECTING
      ? undefined
      : once(client as unknown as EventEmitter, STATUS_ENDED, { signal: AbortSignal.timeout(CLOSE_WAIT_MS) }).catch(() => undefined);
  client.disconnect();
  await ended;
}

/**
 * The default error sink: one line (no stack) at most every {@link LOG_INTERVAL_MS}, counting the
 * errors it left out, so an outage of any length prints a bounded number of lines.
 */
export function rateLimitedLog(now: () => number, log: (line: string) => void): (error: Error) => void {
  let quietUntil = -Infinity;
  let skipped = 0;
  return (error) => {
    const t = now();
    if (t < quietUntil) {
      skipped++;
      return;
    }
    quietUntil = t + LOG_INTERVAL_MS;
    const more = skipped > 0 ? ` (${skipped} more errors since the last line)` : '';
    skipped = 0;
    const reason = String(error.message).replace(/\s+/g, ' ');
    log(
      `voicewire RedisDedupStore: Redis unavailable: ${reason}${more}; ` +
        `deliveries are answered 503 and reconnects go on; at most one line a minute (pass onError to see every error)`,
    );
  };
}
