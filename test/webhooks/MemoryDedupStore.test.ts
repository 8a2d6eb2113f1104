import { describe, expect, it } from 'vitest';
import { MemoryDedupStore } from '../../src/webhooks/MemoryDedupStore.js';
import { defineDedupSuite } from './dedupSuite.js';

defineDedupSuite('MemoryDedupStore', () => async (opts) => new MemoryDedupStore(opts));

describe('MemoryDedupStore bounds', () => {
  it('never holds more than maxEntries keys, evicting the oldest written', async () => {
    let t = 0;
    const store = new MemoryDedupStore({ maxEntries: 3, now: () => t });
    for (let i = 0; i < 10; i++) await store.claim({ id: `k${i}` });
    expect(store.size).toBe(3);
    expect((await store.claim({ id: 'k9' })).outcome).toBe('in_flight');
    expect((await store.claim({ id: 'k0' })).outcome).toBe('claimed'); // evicted, so new again
    t += 1;
  });

  it('sweeps expired entries as it writes', async () => {
    let t = 0;
    const store = new MemoryDedupStore({ claimTtlSeconds: 1, now: () => t });
    for (let i = 0; i < 5; i++) await store.claim({ id: `k${i}` });
    t = 5_000;
    await store.claim({ id: 'fresh' });
    expect(store.size).toBe(1);
  });

  it('rejects non-positive bounds', () => {
    expect(() => new MemoryDedupStore({ maxEntries: 0 })).toThrow(/maxEntries/);
    expect(() => new MemoryDedupStore({ claimTtlSeconds: -1 })).toThrow(/claimTtlSeconds/);
  });
});
