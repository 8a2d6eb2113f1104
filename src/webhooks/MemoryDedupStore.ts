/**
 * In-process dedup store, bounded by entry count and TTL, on an injectable clock.
 *
 * Each operation is synchronous inside one tick, so `claim` is an atomic compare-and-set within a
 * process. For several processes behind a load balancer use {@link RedisDedupStore}.
 * When full, the least recently written entries are evicted first (a Map keeps insertion order).
 */
import type { ClaimResult, DedupKey, DedupStore, DedupTtlOptions } from './dedup.js';
import { newClaimToken, positiveOption, ttlsMs } from './dedup.js';

export interface MemoryDedupStoreOptions extends DedupTtlOptions {
  /** Most keys kept. @defaultValue 10000 */
  maxEntries?: number;
  /** Clock in ms. @defaultValue Date.now */
  now?: () => number;
}

export const DEFAULT_MAX_ENTRIES = 10_000;
/** Expired entries swept per write, so cleanup cost stays O(1) amortized. */
const SWEEP_PER_WRITE = 8;

interface Entry {
  state: 'claimed' | 'done';
  version: string | undefined;
  token: string;
  expiresAt: number;
  /** The last done version this claim superseded, restored if the claim is released. */
  prev?: { version: string | undefined; expiresAt: number };
}

/**
 * @example
 * ```ts
 * const receiver = createWebhookReceiver({ secret, store: new MemoryDedupStore({ maxEntries: 50_000 }), onEvent });
 * ```
 */
export class MemoryDedupStore implements DedupStore {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly claimTtlMs: number;
  private readonly doneTtlMs: number;
  private readonly now: () => number;

  constructor(options: MemoryDedupStoreOptions = {}) {
    this.maxEntries = Math.floor(positiveOption('maxEntries', options.maxEntries ?? DEFAULT_MAX_ENTRIES));
    ({ claimTtlMs: this.claimTtlMs, doneTtlMs: this.doneTtlMs } = ttlsMs(options));
    this.now = options.now ?? Date.now;
  }

  /** Live entries (expired ones not yet swept may be counted). */
  get size(): number {
    return this.entries.size;
  }

  private live(id: string, now: number): Entry | undefined {
    const entry = this.entries.get(id);
    if (entry && entry.expiresAt <= now) {
      this.entries.delete(id);
      return undefined;
    }
    return entry;
  }

  private write(id: string, entry: Entry, now: number): void {
    this.entries.delete(id); // re-insert at the end: most recently written
    this.entries.set(id, entry);
    let swept = 0;
    for (const [k, e] of this.entries) {
      if (swept++ >= SWEEP_PER_WRITE) break;
      if (e.expiresAt <= now) this.entries.delete(k);
    }
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  async claim(key: DedupKey): Promise<ClaimResult> {
    const now = this.now();
    const entry = this.live(key.id, now);
    const token = newClaimToken();
    const claimed = (prev?: Entry['prev']): ClaimResult => {
      const next: Entry = { state: 'claimed', version: key.version, token, expiresAt: now + this.claimTtlMs };
      if (prev && prev.expiresAt > now) next.prev = prev;
      this.write(key.id, next, now);
      return { outcome: 'claimed', token };
    };
    if (!entry) return claimed();
    const incoming = key.version ?? '';
    const stored = entry.version ?? '';
    if (incoming < stored) return { outcome: 'stale' };
    if (incoming === stored) return entry.state === 'done' ? { outcome: 'done' } : { outcome: 'in_flight' };
    // A newer version supersedes whatever is stored; remember the last done one for a release.
    return claimed(entry.state === 'done' ? { version: entry.version, expiresAt: entry.expiresAt } : entry.prev);
  }

  async complete(key: DedupKey, token: string): Promise<void> {
    const now = this.now();
    const entry = this.live(key.id, now);
    if (!entry || entry.state !== 'claimed' || entry.token !== token) return;
    this.write(key.id, { state: 'done', version: entry.version, token, expiresAt: now + this.doneTtlMs }, now);
  }

  async release(key: DedupKey, token: string): Promise<void> {
    const now = this.now();
    const entry = this.live(key.id, now);
    if (!entry || entry.state !== 'claimed' || entry.token !== token) return;
    if (entry.prev && entry.prev.expiresAt > now) {
      this.entries.set(key.id, { state: 'done', version: entry.prev.version, token: '', expiresAt: entry.prev.expiresAt });
    } else {
      this.entries.delete(key.id);
    }
  }
}
