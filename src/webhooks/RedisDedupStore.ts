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
 * The Redis client is an optional peer dependency: pass your own client (ioredis, or an adapter
 * with the two methods of {@link RedisLikeClient}), or give `url` and the store imports `ioredis`.
 */
import { InvalidOptionError } from '../errors.js';
import type { ClaimResult, DedupKey, DedupStore, DedupTtlOptions } from './dedup.js';
import { newClaimToken, ttlsMs } from './dedup.js';

/**
 * The two commands the store uses, in ioredis' calling convention. For node-redis, adapt:
 * `{ set: (k, v, px, ms, nx) => c.sendCommand(['SET', k, v, px, String(ms), nx]), eval: (s, n, ...a) => c.sendCommand(['EVAL', s, String(n), ...a]) }`.
 */
export interface RedisLikeClient {
  /** `SET key value PX ms NX`: resolves `'OK'` when set, null when the key exists. */
  set(key: string, value: string, pxToken: 'PX', milliseconds: number, nx: 'NX'): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: string[]): Promise<unknown>;
  quit?(): Promise<unknown>;
}

export interface RedisDedupStoreOptions extends DedupTtlOptions {
  /** Your Redis client. Without it, `url` is used with a dynamically imported `ioredis`. */
  client?: RedisLikeClient;
  /** Connection URL for the built-in ioredis client. @defaultValue `'redis://127.0.0.1:6379'` */
  url?: string;
  /** Prefix of every key. @defaultValue `'voicewire:webhook:'` */
  keyPrefix?: string;
  /** Clock in ms. @defaultValue Date.now */
  now?: () => number;
}

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
redis.call('SET', KEYS[1], cjson.encode({s = 'd', v = e.v, t = '', x = ARGV[3]}), 'PX', math.floor(tonumber(ARGV[3]) - now + tonumber(ARGV[4])))
return 1
`;

const RELEASE_SCRIPT = `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local e = cjson.decode(raw)
local now = tonumber(ARGV[2])
if e.s ~= 'c' or e.t ~= ARGV[1] then return 0 end
if e.pv ~= nil and tonumber(e.px) > now then
  redis.call('SET', KEYS[1], cjson.encode({s = 'd', v = e.pv, t = '', x = e.px}), 'PX', math.floor(tonumber(e.px) - now + tonumber(ARGV[3])))
else
  redis.call('DEL', KEYS[1])
end
return 1
`;

const CLAIM_OUTCOMES = new Set(['done', 'in_flight', 'stale']);

async function importIoredis(url: string): Promise<RedisLikeClient> {
  const name = 'ioredis'; // a variable: the package is an optional peer, resolved only when used
  let mod: Record<string, unknown>;
  try {
    mod = (await import(name)) as Record<string, unknown>;
  } catch (cause) {
    throw new InvalidOptionError('client', `RedisDedupStore needs a Redis client: pass { client } or install ioredis (${String(cause)})`);
  }
  const def = mod['default'] as Record<string, unknown> | undefined;
  const Ctor = (mod['Redis'] ?? def?.['Redis'] ?? def) as new (url: string) => RedisLikeClient;
  return new Ctor(url);
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
  readonly #client: Promise<RedisLikeClient>;
  readonly #ownsClient: boolean;
  readonly #prefix: string;
  readonly #claimTtlMs: number;
  readonly #doneTtlMs: number;
  readonly #now: () => number;

  constructor(options: RedisDedupStoreOptions = {}) {
    ({ claimTtlMs: this.#claimTtlMs, doneTtlMs: this.#doneTtlMs } = ttlsMs(options));
    this.#now = options.now ?? Date.now;
    this.#prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.#ownsClient = options.client === undefined;
    this.#client = options.client
      ? Promise.resolve(options.client)
      : importIoredis(options.url ?? 'redis://127.0.0.1:6379');
    this.#client.catch(() => undefined); // surfaced on first use
  }

  #key(key: DedupKey): string {
    return this.#prefix + key.id;
  }

  async claim(key: DedupKey): Promise<ClaimResult> {
    const client = await this.#client;
    const now = Math.floor(this.#now());
    const token = newClaimToken();
    const version = key.version ?? '';
    const expires = String(now + this.#claimTtlMs);
    const value = JSON.stringify({ s: 'c', v: version, t: token, x: expires });
    const fast = await client.set(this.#key(key), value, 'PX', this.#claimTtlMs + PHYSICAL_TTL_MARGIN_MS, 'NX');
    if (fast === 'OK') return { outcome: 'claimed', token };
    const outcome = String(
      await client.eval(CLAIM_SCRIPT, 1, this.#key(key), token, version, String(now), expires, String(PHYSICAL_TTL_MARGIN_MS)),
    );
    if (outcome === 'claimed') return { outcome, token };
    if (CLAIM_OUTCOMES.has(outcome)) return { outcome: outcome as 'done' | 'in_flight' | 'stale' };
    throw new Error(`RedisDedupStore: unexpected script answer ${JSON.stringify(outcome)}`);
  }

  async complete(key: DedupKey, token: string): Promise<void> {
    const client = await this.#client;
    const now = Math.floor(this.#now());
    await client.eval(COMPLETE_SCRIPT, 1, this.#key(key), token, String(now), String(now + this.#doneTtlMs), String(PHYSICAL_TTL_MARGIN_MS));
  }

  async release(key: DedupKey, token: string): Promise<void> {
    const client = await this.#client;
    const now = Math.floor(this.#now());
    await client.eval(RELEASE_SCRIPT, 1, this.#key(key), token, String(now), String(PHYSICAL_TTL_MARGIN_MS));
  }

  /** Closes the client if the store created it (a client you passed in stays yours). */
  async close(): Promise<void> {
    if (!this.#ownsClient) return;
    const client = await this.#client.catch(() => undefined);
    await client?.quit?.();
  }
}
