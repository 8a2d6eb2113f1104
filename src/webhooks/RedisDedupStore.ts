/**
 * Redis dedup store: shared by every process behind a load balancer.
 *
 * - A first delivery claims with one `SET key value PX ttl NX` (atomic, one round trip).
 * - When the key exists, one Lua script decides done / in-flight / stale / supersede and writes
 *   the new claim in the same step: the `call.analyzed` supersede rule is a single atomic
 *   compare-and-set on the server.
 * - `complete` and `release` are scripts that only act while the caller's token holds the claim.
 *
 * Expiry follows the store's clock (`now`, injectable) stored in the value, so TTL behaviour is
 * the same as the memory store's and testable; Redis' own `PX` (the logical TTL plus a margin)
 * only reclaims memory.
 *
 * Outages: every operation either finishes or fails with `DedupStoreUnavailableError` within
 * `operationTimeoutMs` (the receiver then answers 503 `store_unavailable` and the sender retries),
 * and the store reconnects by itself when Redis is back (see redisClient.ts for the ioredis
 * options behind that). Dedup is as durable as Redis: a Redis restarted without persistence
 * (no AOF/RDB) has forgotten the ids it held, so a retry of a delivery handled before the restart
 * is handled again, as at-least-once delivery allows. Run Redis with `appendonly yes` to keep them.
 *
 * The Redis client is an optional peer dependency: pass your own client (ioredis, or an adapter
 * with the two methods of {@link RedisLikeClient}), or give `url` and the store uses `ioredis`.
 */
import { DedupStoreUnavailableError } from '../errors.js';
import type { ClaimResult, DedupKey, DedupStore, DedupTtlOptions } from './dedup.js';
import { newClaimToken, positiveOption, ttlsMs } from './dedup.js';
import { closeOwnClient, createOwnClient, rateLimitedLog, resolveIoredis, whenReady, type OwnRedisClient } from './redisClient.js';

/**
 * The two commands the store uses, in ioredis' calling convention. For node-redis, adapt:
 * `{ set: (k, v, px, ms, nx) => c.sendCommand(['SET', k, v, px, String(ms), nx]),`
 * `eval: (s, n, ...a) => c.sendCommand(['EVAL', s, String(n), ...a]) }`.
 */
export interface RedisLikeClient {
  /** `SET key value PX ms NX`: resolves `'OK'` when set, null when the key exists. */
  set(key: string, value: string, pxToken: 'PX', milliseconds: number, nx: 'NX'): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: string[]): Promise<unknown>;
  quit?(): Promise<unknown>;
}

export interface RedisDedupStoreOptions extends DedupTtlOptions {
  /**
   * Your Redis client. Without it, `url` is used with the optional peer `ioredis` (construction
   * throws `MissingDependencyError` when it is not installed). Your client keeps its own options
   * and error listeners; with ioredis, `enableOfflineQueue: false` keeps a command that timed out
   * here from running on Redis later.
   */
  client?: RedisLikeClient;
  /** Connection URL for the built-in ioredis client. @defaultValue `'redis://127.0.0.1:6379'` */
  url?: string;
  /** Prefix of every key. @defaultValue `'voicewire:webhook:'` */
  keyPrefix?: string;
  /** Clock in ms (TTLs, and the pace of the default error log). @defaultValue Date.now */
  now?: () => number;
  /**
   * Longest time one store operation (claim, complete, release) may take, waiting for a
   * connection included, before it fails with `DedupStoreUnavailableError`: the receiver then
   * answers 503 well inside the sender's 10 s. Also the built-in client's connect and command
   * timeout. @defaultValue 1000
   */
  operationTimeoutMs?: number;
  /**
   * Told about the built-in client's connection errors (about one per reconnect attempt while
   * Redis is down) and about a late claim that could not be released. Without it they are logged
   * with `console.warn`, one line at most a minute, never a stack. Failed operations are not sent
   * here: they reach the receiver's `onError` with their delivery.
   */
  onError?: (error: Error) => void;
}

/** Not part of the public options: where `ioredis` is resolved from (tests point it elsewhere). */
interface InternalOptions extends RedisDedupStoreOptions {
  resolveFrom?: string | URL;
}

export const DEFAULT_OPERATION_TIMEOUT_MS = 1000;
const DEFAULT_URL = 'redis://127.0.0.1:6379';

/** Redis keeps a key this long past its logical expiry, so clock skew never loses state early. */
const PHYSICAL_TTL_MARGIN_MS = 60_000;
const DEFAULT_KEY_PREFIX = 'voicewire:webhook:';

// Value: JSON {s: 'c'|'d', v: version ('' if none), t: token, x: expiry ms as string,
//              pv/px: the last done version and its expiry, kept while a newer claim is open}
// Versions are fixed-width strings (instant.ts), so Lua's string comparison orders them.
const CLAIM_SCRIPT = `
local raw = redis.call('GET', KEYS[1])
local token, version, now, claimX, margin = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
local e = nil
if raw then
  e = cjson.decode(raw)
  if tonumber(e.x) <= now then e = nil end
end
local function claim(pv, px)
  local rec = {s = 'c', v = version, t = token, x = claimX}
  local keep = tonumber(claimX) - now
  if pv ~= nil and tonumber(px) > now then
    rec.pv = pv
    rec.px = px
    keep = math.max(keep, tonumber(px) - now)
  end
  redis.call('SET', KEYS[1], cjson.encode(rec), 'PX', math.floor(keep + margin))
  return 'claimed'
end
if e == nil then return claim(nil, nil) end
if version < e.v then return 'stale' end
if version == e.v then
  if e.s == 'd' then return 'done' end
  return 'in_flight'
end
if e.s == 'd' then return claim(e.v, e.x) end
return claim(e.pv, e.px)
`;

const COMPLETE_SCRIPT = `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local e = cjson.decode(raw)
local now = tonumber(ARGV[2])
if e.s ~= 'c' or e.t ~= ARGV[1] or tonumber(e.x) <= now then return 0 end
redis.call('SET', KEYS[1], cjson.encode({s = 'd', v = e.v, t = '', x = ARGV[3]}),
  'PX', math.floor(tonumber(ARGV[3]) - now + tonumber(ARGV[4])))
return 1
`;

const RELEASE_SCRIPT = `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local e = cjson.decode(raw)
local now = tonumber(ARGV[2])
if e.s ~= 'c' or e.t ~= ARGV[1] then return 0 end
if e.pv ~= nil and tonumber(e.px) > now then
  redis.call('SET', KEYS[1], cjson.encode({s = 'd', v = e.pv, t = '', x = e.px}),
    'PX', math.floor(tonumber(e.px) - now + tonumber(ARGV[3])))
else
  redis.call('DEL', KEYS[1])
end
return 1
`;

const CLAIM_OUTCOMES = new Set(['done', 'in_flight', 'stale']);

/**
 * Settles with `work`, or rejects with the deadline's reason once `signal` aborts. When `work`
 * succeeds only after the deadline, its value goes to `onLate` (the caller has already failed).
 */
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal, onLate?: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) onLate?.(value);
        else resolve(value);
      },
      (error: unknown) => {
        // After the deadline this rejection has no one to reach: it must not go unhandled.
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * const store = new RedisDedupStore({ client: new Redis(process.env.REDIS_URL!) });
 * const receiver = createWebhookReceiver({ secret, store, onEvent });
 * ```
 */
export class RedisDedupStore implements DedupStore {
  private readonly client: Promise<RedisLikeClient>;
  /** The client the store made from `url` (connection state, close); undefined for yours. */
  private own: OwnRedisClient | undefined;
  private readonly prefix: string;
  private readonly claimTtlMs: number;
  private readonly doneTtlMs: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  /** Where connection errors and failed late releases go (`onError`, or the rate-limited log). */
  private readonly onError: (error: Error) => void;

  constructor(options: RedisDedupStoreOptions = {}) {
    ({ claimTtlMs: this.claimTtlMs, doneTtlMs: this.doneTtlMs } = ttlsMs(options));
    this.timeoutMs = positiveOption('operationTimeoutMs', options.operationTimeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS);
    this.now = options.now ?? Date.now;
    this.prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.onError = options.onError ?? rateLimitedLog(this.now, (line) => console.warn(line));
    if (options.client) {
      this.client = Promise.resolve(options.client);
      return;
    }
    // Synchronous: a missing ioredis throws here, not on every delivery. The import stays lazy.
    const modulePath = resolveIoredis((options as InternalOptions).resolveFrom ?? import.meta.url);
    this.client = createOwnClient(modulePath, options.url ?? DEFAULT_URL, this.timeoutMs, this.onError).then((client) => {
      this.own = client;
      return client;
    });
    this.client.catch(() => undefined); // a broken install surfaces on first use, as a 503
  }

  private key(key: DedupKey): string {
    return this.prefix + key.id;
  }

  /**
   * Runs one store operation under the deadline: waits for a connection (the built-in client),
   * then the commands. Any failure becomes a `DedupStoreUnavailableError` naming the operation.
   */
  private async run<T>(operation: string, work: (client: RedisLikeClient) => Promise<T>, onLate?: (value: T) => void): Promise<T> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(`no answer within operationTimeoutMs (${this.timeoutMs} ms)`)), this.timeoutMs);
    try {
      const client = await beforeDeadline(this.client, deadline.signal);
      if (this.own) await whenReady(this.own, deadline.signal);
      return await beforeDeadline(work(client), deadline.signal, onLate);
    } catch (error) {
      const cause = deadline.signal.aborted ? deadline.signal.reason : error;
      throw new DedupStoreUnavailableError(`RedisDedupStore ${operation} failed: ${(cause as Error)?.message ?? String(cause)}`, cause);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A claim whose answer comes after its deadline (a hung or slow Redis) was already answered 503;
   * if it took the key, it is released at once so the sender's retry is not answered 409 until
   * the claim TTL. (A claim the built-in client gave up on, after `LATE_REPLY_WINDOW_MS`, cannot
   * be seen landing: it blocks retries for the claim TTL at most.)
   */
  claim(key: DedupKey): Promise<ClaimResult> {
    return this.run(
      'claim',
      (client) => this.claimOn(client, key),
      (late) => {
        if (late.outcome === 'claimed') this.release(key, late.token).catch((error: Error) => this.onError(error));
      },
    );
  }

  private async claimOn(client: RedisLikeClient, key: DedupKey): Promise<ClaimResult> {
    const now = Math.floor(this.now());
    const token = newClaimToken();
    const version = key.version ?? '';
    const expires = String(now + this.claimTtlMs);
    const value = JSON.stringify({ s: 'c', v: version, t: token, x: expires });
    const fast = await client.set(this.key(key), value, 'PX', this.claimTtlMs + PHYSICAL_TTL_MARGIN_MS, 'NX');
    if (fast === 'OK') return { outcome: 'claimed', token };
    const outcome = String(
      await client.eval(CLAIM_SCRIPT, 1, this.key(key), token, version, String(now), expires, String(PHYSICAL_TTL_MARGIN_MS)),
    );
    if (outcome === 'claimed') return { outcome, token };
    if (CLAIM_OUTCOMES.has(outcome)) return { outcome: outcome as 'done' | 'in_flight' | 'stale' };
    throw new Error(`unexpected script answer ${JSON.stringify(outcome)}`);
  }

  async complete(key: DedupKey, token: string): Promise<void> {
    await this.run('complete', (client) => {
      const now = Math.floor(this.now());
      return client.eval(
        COMPLETE_SCRIPT,
        1,
        this.key(key),
        token,
        String(now),
        String(now + this.doneTtlMs),
        String(PHYSICAL_TTL_MARGIN_MS),
      );
    });
  }

  async release(key: DedupKey, token: string): Promise<void> {
    await this.run('release', (client) => {
      const now = Math.floor(this.now());
      return client.eval(RELEASE_SCRIPT, 1, this.key(key), token, String(now), String(PHYSICAL_TTL_MARGIN_MS));
    });
  }

  /**
   * Closes the client if the store created it, and stops its reconnecting even while Redis is
   * down (a client you passed in stays yours).
   */
  async close(): Promise<void> {
    const client = await this.client.catch(() => undefined);
    if (this.own && client) await closeOwnClient(this.own);
  }
}
