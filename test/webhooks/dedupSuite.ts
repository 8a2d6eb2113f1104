/**
 * The dedup behaviour every store must have, run against the memory store and a real Redis.
 */
import { describe, expect, it } from 'vitest';
import type { DedupKey, DedupStore } from '../../src/webhooks/dedup.js';
import { dedupKeyOf, runOnce } from '../../src/webhooks/dedup.js';
import { parseWebhookEvent } from '../../src/webhooks/events.js';

export interface StoreFactory {
  (opts: { now: () => number; claimTtlSeconds?: number; doneTtlSeconds?: number }): Promise<DedupStore>;
}

let seq = 0;
function uniqueSession(): string {
  return `sess_${process.pid}_${Date.now()}_${seq++}`;
}

function analyzedKey(sessionId: string, finishedAt: string): DedupKey {
  const ev = parseWebhookEvent({
    event: 'call.analyzed',
    session: { id: sessionId },
    analysis: { status: 'completed', finished_at: finishedAt },
  });
  const key = dedupKeyOf(ev);
  if (!key) throw new Error('no key');
  return key;
}

function endedKey(sessionId: string): DedupKey {
  const key = dedupKeyOf(parseWebhookEvent({ event: 'call.ended', session: { id: sessionId }, ended_reason: 'user_hangup' }));
  if (!key) throw new Error('no key');
  return key;
}

export function defineDedupSuite(name: string, makeStore: () => StoreFactory | undefined): void {
  describe(name, () => {
    const clock = (): { now: () => number; advance: (ms: number) => void } => {
      let t = 1_784_808_000_000;
      return { now: () => t, advance: (ms) => (t += ms) };
    };
    const factory = (): StoreFactory => {
      const f = makeStore();
      if (!f) throw new Error('store unavailable');
      return f;
    };

    it('two concurrent identical deliveries run the handler exactly once', async () => {
      const c = clock();
      const store = await factory()({ now: c.now });
      const key = endedKey(uniqueSession());
      let calls = 0;
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const first = runOnce(store, key, async () => {
        calls++;
        await gate;
      });
      const second = runOnce(store, key, () => {
        calls++;
      });
      const secondResult = await second;
      expect(secondResult.outcome).toBe('in_flight'); // → 409, the sender retries later
      release();
      expect((await first).outcome).toBe('handled');
      expect((await runOnce(store, key, () => calls++)).outcome).toBe('duplicate');
      expect(calls).toBe(1);
    });

    it('many concurrent claims of one key: exactly one wins', async () => {
      const c = clock();
      const store = await factory()({ now: c.now });
      const key = endedKey(uniqueSession());
      const results = await Promise.all(Array.from({ length: 20 }, () => store.claim(key)));
      expect(results.filter((r) => r.outcome === 'claimed')).toHaveLength(1);
      expect(results.filter((r) => r.outcome === 'in_flight')).toHaveLength(19);
    });

    it('a failing handler releases the claim so the retry is handled', async () => {
      const c = clock();
      const store = await factory()({ now: c.now });
      const key = endedKey(uniqueSession());
      const failed = await runOnce(store, key, () => {
        throw new Error('db down');
      });
      expect(failed.outcome).toBe('failed');
      expect((failed.error as Error).message).toBe('db down');
      let calls = 0;
      expect((await runOnce(store, key, () => calls++)).outcome).toBe('handled');
      expect(calls).toBe(1);
    });

    it('a claim whose process died expires after the claim TTL (injected clock)', async () => {
      const c = clock();
      const store = await factory()({ now: c.now, claimTtlSeconds: 60, doneTtlSeconds: 3600 });
      const key = endedKey(uniqueSession());
      expect((await store.claim(key)).outcome).toBe('claimed'); // never completed
      c.advance(59_000);
      expect((await store.claim(key)).outcome).toBe('in_flight');
      c.advance(1_000);
      expect((await store.claim(key)).outcome).toBe('claimed');
    });

    it('a done key is forgotten after the done TTL (injected clock)', async () => {
      const c = clock();
      const store = await factory()({ now: c.now, claimTtlSeconds: 60, doneTtlSeconds: 3600 });
      const key = endedKey(uniqueSession());
      expect((await runOnce(store, key, () => undefined)).outcome).toBe('handled');
      c.advance(3_599_000);
      expect((await runOnce(store, key, () => undefined)).outcome).toBe('duplicate');
      c.advance(1_000);
      expect((await runOnce(store, key, () => undefined)).outcome).toBe('handled');
    });

    it('a late completion of an expired claim does not mark the new claim done', async () => {
      const c = clock();
      const store = await factory()({ now: c.now, claimTtlSeconds: 10 });
      const key = endedKey(uniqueSession());
      const a = await store.claim(key);
      c.advance(10_000);
      const b = await store.claim(key);
      expect(b.outcome).toBe('claimed');
      if (a.outcome !== 'claimed') throw new Error('expected claim');
      await store.complete(key, a.token);
      expect((await store.claim(key)).outcome).toBe('in_flight');
    });

    describe('call.analyzed supersede rule', () => {
      it('an older finished_at after a newer one is stale (2xx, not handled)', async () => {
        const c = clock();
        const store = await factory()({ now: c.now });
        const s = uniqueSession();
        expect((await runOnce(store, analyzedKey(s, '2026-11-22T03:00:05Z'), () => undefined)).outcome).toBe('handled');
        let calls = 0;
        expect((await runOnce(store, analyzedKey(s, '2026-11-22T03:00:04.999Z'), () => calls++)).outcome).toBe('stale');
        expect(calls).toBe(0);
      });

      it('an equal finished_at is a duplicate, compared as instants, not strings', async () => {
        const c = clock();
        const store = await factory()({ now: c.now });
        const s = uniqueSession();
        expect((await runOnce(store, analyzedKey(s, '2026-11-22T03:00:05.500Z'), () => undefined)).outcome).toBe('handled');
        expect((await runOnce(store, analyzedKey(s, '2026-11-22T04:00:05.5+01:00'), () => undefined)).outcome).toBe('duplicate');
      });

      it('a newer finished_at supersedes and is handled; the older then is stale', async () => {
        const c = clock();
        const store = await factory()({ now: c.now });
        const s = uniqueSession();
        // String order would call "…T10:…+09:00" larger; as instants it is older (01:00Z).
        expect((await runOnce(store, analyzedKey(s, '2026-11-22T02:00:00Z'), () => undefined)).outcome).toBe('handled');
        expect((await runOnce(store, analyzedKey(s, '2026-11-22T10:00:00+09:00'), () => undefined)).outcome).toBe('stale');
        expect((await runOnce(store, analyzedKey(s, '2026-11-22T02:00:00.000001Z'), () => undefined)).outcome).toBe('handled');
        expect((await runOnce(store, analyzedKey(s, '2026-11-22T02:00:00Z'), () => undefined)).outcome).toBe('stale');
      });

      it('a newer finished_at supersedes an older one still in flight', async () => {
        const c = clock();
        const store = await factory()({ now: c.now });
        const s = uniqueSession();
        const older = await store.claim(analyzedKey(s, '2026-11-22T03:00:00Z'));
        expect(older.outcome).toBe('claimed');
        expect((await runOnce(store, analyzedKey(s, '2026-11-22T03:05:00Z'), () => undefined)).outcome).toBe('handled');
        if (older.outcome === 'claimed') await store.complete(analyzedKey(s, '2026-11-22T03:00:00Z'), older.token);
        expect((await store.claim(analyzedKey(s, '2026-11-22T03:05:00Z'))).outcome).toBe('done');
      });

      it('a failed newer handler restores the older done version', async () => {
        const c = clock();
        const store = await factory()({ now: c.now });
        const s = uniqueSession();
        await runOnce(store, analyzedKey(s, '2026-11-22T03:00:00Z'), () => undefined);
        const failed = await runOnce(store, analyzedKey(s, '2026-11-22T03:05:00Z'), () => {
          throw new Error('x');
        });
        expect(failed.outcome).toBe('failed');
        expect((await store.claim(analyzedKey(s, '2026-11-22T03:00:00Z'))).outcome).toBe('done');
        expect((await runOnce(store, analyzedKey(s, '2026-11-22T03:05:00Z'), () => undefined)).outcome).toBe('handled');
      });

      it('concurrent deliveries of two versions: both compare-and-set atomically, newest wins', async () => {
        const c = clock();
        const store = await factory()({ now: c.now });
        const s = uniqueSession();
        const versions = ['2026-11-22T03:00:01Z', '2026-11-22T03:00:02Z', '2026-11-22T03:00:03Z'];
        const results = await Promise.all(versions.flatMap((v) => [store.claim(analyzedKey(s, v)), store.claim(analyzedKey(s, v))]));
        // Exactly one in-flight claim per version that got one; the newest always gets one.
        const claimedNewest = results.slice(4).filter((r) => r.outcome === 'claimed');
        expect(claimedNewest).toHaveLength(1);
        expect((await store.claim(analyzedKey(s, versions[0]!))).outcome).toBe('stale');
      });
    });
  });
}
