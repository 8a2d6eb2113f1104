import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import IORedis from 'ioredis';
import { RedisDedupStore } from '../../src/webhooks/RedisDedupStore.js';
import { defineDedupSuite } from './dedupSuite.js';
import { redisServerAvailable, startRedisServer, type RedisServer } from './redisServer.js';

const available = redisServerAvailable();
const inCi = Boolean(process.env['CI']);
if (!available) {
  // Loud on purpose: CI installs redis-server (Debian package) and must run these.
  console.warn('\n*** redis-server not found: SKIPPING the Redis dedup tests (apt-get install redis-server) ***\n');
}

describe.runIf(!available && inCi)('RedisDedupStore in CI', () => {
  it('needs redis-server (CI installs it; a skip is not allowed there)', () => {
    throw new Error('redis-server is missing in CI: install the Debian package redis-server');
  });
});

const { Redis } = IORedis as unknown as { Redis: typeof import('ioredis').Redis };

describe.skipIf(!available)('RedisDedupStore against a real redis-server', () => {
  let server: RedisServer;
  let client: InstanceType<typeof Redis>;
  const stores: RedisDedupStore[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
    client = new Redis(server.url, { lazyConnect: false, maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await client?.quit();
    await server?.stop();
  });

  defineDedupSuite('shared suite', () => async (opts) => new RedisDedupStore({ client, keyPrefix: 'test:', ...opts }));

  it('stores keys under the prefix with a physical TTL', async () => {
    const store = new RedisDedupStore({ client, keyPrefix: 'ttlcheck:' });
    await store.claim({ id: 'abc' });
    const ttl = await client.pttl('ttlcheck:abc');
    expect(ttl).toBeGreaterThan(0);
  });

  it('imports ioredis itself when given only a url', async () => {
    const store = new RedisDedupStore({ url: server.url, keyPrefix: 'own:' });
    stores.push(store);
    expect((await store.claim({ id: 'x' })).outcome).toBe('claimed');
    expect((await store.claim({ id: 'x' })).outcome).toBe('in_flight');
  });
});
