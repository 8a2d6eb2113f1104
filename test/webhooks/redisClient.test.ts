import type { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  LOG_INTERVAL_MS,
  RECONNECT_FIRST_DELAY_MS,
  RECONNECT_MAX_DELAY_MS,
  boundedIoredisOptions,
  closeOwnClient,
  createOwnClient,
  rateLimitedLog,
  reconnectDelayMs,
  resolveIoredis,
  whenReady,
} from '../../src/webhooks/redisClient.js';
import { freePort } from './redisServer.js';

const CLOSE_MARGIN_MS = 200;

describe('the built-in ioredis client options', () => {
  it('reconnects forever: 50 ms doubling, never more than 1 s apart', () => {
    const delays = Array.from({ length: 40 }, (_, i) => reconnectDelayMs(i + 1));
    expect(delays.slice(0, 5)).toEqual([50, 100, 200, 400, 800]);
    expect(delays[0]).toBe(RECONNECT_FIRST_DELAY_MS);
    for (const d of delays) expect(typeof d === 'number' && d <= RECONNECT_MAX_DELAY_MS).toBe(true);
    expect(delays.at(-1)).toBe(RECONNECT_MAX_DELAY_MS);
  });

  it('never queues offline, never resends, and connects within the operation timeout', () => {
    expect(boundedIoredisOptions(750)).toMatchObject({
      connectTimeout: 750,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      lazyConnect: false,
    });
  });
});

describe('rateLimitedLog (the default error sink)', () => {
  it('prints one line per interval, then counts the errors it left out', () => {
    let t = 0;
    const lines: string[] = [];
    const report = rateLimitedLog(
      () => t,
      (line) => lines.push(line),
    );
    const error = new Error('connect ECONNREFUSED 127.0.0.1:6379\n    at a stack frame');
    for (let i = 0; i < 100; i++) {
      report(error);
      t += 100; // 100 errors over 10 s
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('ECONNREFUSED 127.0.0.1:6379');
    expect(lines[0]).not.toContain('\n');
    t = LOG_INTERVAL_MS;
    report(error);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('(99 more errors since the last line)');
  });
});

describe('whenReady on a real ioredis client', () => {
  it('rejects at the next failed connection attempt and leaves no listener behind', async () => {
    const port = await freePort();
    const errors: Error[] = [];
    const client = await createOwnClient(resolveIoredis(import.meta.url), `redis://127.0.0.1:${port}`, 1000, (e) => void errors.push(e));
    try {
      const emitter = client as unknown as EventEmitter;
      const errorListeners = emitter.listenerCount('error');
      const waits = Array.from({ length: 20 }, () =>
        whenReady(client, AbortSignal.timeout(5_000)).then(
          () => 'ready',
          (e: Error) => e.message,
        ),
      );
      const outcomes = await Promise.all(waits);
      for (const outcome of outcomes) expect(outcome).toMatch(/ECONNREFUSED/);
      // At most ioredis' own listener of the current connection attempt: none of the 20 waits.
      expect(emitter.listenerCount('ready')).toBeLessThanOrEqual(1);
      expect(emitter.listenerCount('error')).toBe(errorListeners);
      expect(errors.length).toBeGreaterThan(0);
    } finally {
      await closeOwnClient(client);
    }
    // Closed between attempts or mid-attempt: either way no attempt follows (real time: one
    // longest reconnect gap, plus margin).
    const errorsAtClose = errors.length;
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_MAX_DELAY_MS + CLOSE_MARGIN_MS));
    expect(errors.length).toBe(errorsAtClose);
    expect(['end', 'reconnecting']).toContain(client.status);
  });

  it('rejects when the deadline aborts first, removing its listener', async () => {
    const port = await freePort();
    const client = await createOwnClient(resolveIoredis(import.meta.url), `redis://127.0.0.1:${port}`, 1000, () => undefined);
    try {
      const emitter = client as unknown as EventEmitter;
      const readyListeners = emitter.listenerCount('ready');
      const controller = new AbortController();
      const wait = whenReady(client, controller.signal);
      expect(emitter.listenerCount('ready')).toBe(readyListeners + 1);
      controller.abort(new Error('deadline'));
      await expect(wait).rejects.toThrow();
      expect(emitter.listenerCount('ready')).toBe(readyListeners);
    } finally {
      await closeOwnClient(client);
    }
  });
});
