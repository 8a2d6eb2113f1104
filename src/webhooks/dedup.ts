/**
 * Webhook deduplication: claim, then handle, then mark done.
 *
 * Delivery is at least once, and retries carry an identical body (spec "Delivery" 3–4). Keys are
 * `(event, session.id)`; `call.analyzed` adds `analysis.finished_at` as a *version*:
 *
 * | stored for the key          | delivery                | outcome     | answer            |
 * |-----------------------------|-------------------------|-------------|-------------------|
 * | nothing (or expired)        | any                     | `claimed`   | run the handler   |
 * | done, same version          | retry                   | `done`      | 2xx, not handled  |
 * | claimed, same version       | retry racing attempt 1  | `in_flight` | 409, sender retries later |
 * | newer version               | older `finished_at`     | `stale`     | 2xx, not handled  |
 * | older version (any state)   | newer `finished_at`     | `claimed`   | supersede, handle |
 *
 * On handler success the claim becomes `done`; on failure it is released (the previous done
 * version, if any, comes back) and the answer is 5xx so the sender retries. Each claim carries a
 * random token: a late completion of a superseded or expired claim changes nothing.
 * Every store makes `claim` a single atomic compare-and-set.
 */
import { randomUUID } from 'node:crypto';
import { InvalidOptionError } from '../errors.js';
import { comparableInstant } from './instant.js';
import { CALL_ANALYZED, type WebhookEvent } from './events.js';

export interface DedupKey {
  /** `event` + `session.id` (+ the raw `finished_at` when it is not a parsable instant). */
  id: string;
  /** Comparable instant (see instant.ts) for the supersede rule; absent for exact-match keys. */
  version?: string;
}

export type ClaimResult = { outcome: 'claimed'; token: string } | { outcome: 'done' } | { outcome: 'in_flight' } | { outcome: 'stale' };

export interface DedupStore {
  /** Atomically claims the key (or reports why not). */
  claim(key: DedupKey): Promise<ClaimResult>;
  /** Marks a claim done (kept for the store's done TTL). No-op when the token no longer holds it. */
  complete(key: DedupKey, token: string): Promise<void>;
  /** Releases a claim after a handler failure. No-op when the token no longer holds it. */
  release(key: DedupKey, token: string): Promise<void>;
}

export interface DedupTtlOptions {
  /**
   * How long a claim blocks retries (409) if its process dies before finishing. Longer than the
   * sender's 10 s timeout. @defaultValue 60
   */
  claimTtlSeconds?: number;
  /** How long a done key is remembered. @defaultValue 86400 (24 h) */
  doneTtlSeconds?: number;
}

export const DEFAULT_CLAIM_TTL_SECONDS = 60;
export const DEFAULT_DONE_TTL_SECONDS = 24 * 60 * 60;
const MS_PER_SECOND = 1000;

/** A store option that must be a finite number > 0 (InvalidOptionError naming it otherwise). */
export function positiveOption(name: string, value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) throw new InvalidOptionError(name, `${name} must be a positive number`);
  return value;
}

/** The stores' two TTLs in ms, defaults applied and checked (one rule for every store). */
export function ttlsMs(options: DedupTtlOptions): { claimTtlMs: number; doneTtlMs: number } {
  return {
    claimTtlMs: positiveOption('claimTtlSeconds', options.claimTtlSeconds ?? DEFAULT_CLAIM_TTL_SECONDS) * MS_PER_SECOND,
    doneTtlMs: positiveOption('doneTtlSeconds', options.doneTtlSeconds ?? DEFAULT_DONE_TTL_SECONDS) * MS_PER_SECOND,
  };
}

/** The dedup key of a parsed event, or undefined when it has no session id (nothing to key on). */
export function dedupKeyOf(event: WebhookEvent): DedupKey | undefined {
  if (event.sessionId === undefined) return undefined;
  // JSON of the parts: unambiguous whatever characters the ids hold.
  if (event.type !== CALL_ANALYZED) return { id: JSON.stringify([event.event, event.sessionId]) };
  const id = JSON.stringify([event.event, event.sessionId]);
  const finishedAt = event.payload.analysis.finished_at;
  const version = comparableInstant(finishedAt);
  if (version !== undefined) return { id, version };
  // Not an instant we can compare: dedupe on the exact value, without the supersede rule.
  return { id: JSON.stringify([event.event, event.sessionId, finishedAt ?? null]) };
}

export function newClaimToken(): string {
  return randomUUID();
}

export type DedupOutcome = 'handled' | 'duplicate' | 'stale' | 'in_flight' | 'failed';

/**
 * Runs `handler` under the claim → handle → done protocol.
 * Returns `failed` (with the error) when the handler threw; the claim is then released.
 */
export async function runOnce(
  store: DedupStore,
  key: DedupKey,
  handler: () => unknown,
): Promise<{ outcome: DedupOutcome; error?: unknown }> {
  const claim = await store.claim(key);
  if (claim.outcome === 'done') return { outcome: 'duplicate' };
  if (claim.outcome === 'stale') return { outcome: 'stale' };
  if (claim.outcome === 'in_flight') return { outcome: 'in_flight' };
  try {
    await handler();
  } catch (error) {
    await store.release(key, claim.token);
    return { outcome: 'failed', error };
  }
  await store.complete(key, claim.token);
  return { outcome: 'handled' };
}
