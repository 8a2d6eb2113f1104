/**
 * Fault injection (x-voicewire-fault), at the HTTP level: what the wire looks like.
 * (faultsClient.test.ts checks the error each fault produces in voicewire's client.)
 */
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FAULT_DELAY_MS } from '../../src/service/faults.js';
import { formatFaults, parseFaults, startLocalService, type LocalService } from '../../src/service/index.js';
import { finalTimeline, parseSse, postTts } from './helpers.js';

let svc: LocalService;
beforeAll(async () => {
  svc = await startLocalService();
});
afterAll(async () => {
  await svc.close();
});

const BODY = { text: 'One two three four five six seven eight nine ten.', format: 'pcm', sample_rate: 8000 };

/** Raw HTTP: every body read (with its size), and how the body ended. */
function rawPost(
  headers: Record<string, string>,
  body: unknown = BODY,
): Promise<{ status: number; reads: number[]; text: string; ended: 'end' | 'error' }> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${svc.baseUrl}/v1/tts/stream/with-timestamp`);
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { authorization: `Bearer ${svc.token}`, 'content-type': 'application/json', ...headers },
      },
      (res) => {
        const reads: number[] = [];
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          reads.push(c.length);
          parts.push(c);
        });
        const finish = (ended: 'end' | 'error'): void =>
          resolve({ status: res.statusCode!, reads, text: Buffer.concat(parts).toString(), ended });
        res.on('end', () => finish('end'));
        res.on('error', () => finish('error'));
        res.on('aborted', () => undefined);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** A second service on a virtual clock: sleeps are recorded and return at once (tests never sleep). */
async function withVirtualClock<T>(
  fn: (clock: { sleeps: number[] }, post: (h: Record<string, string>) => ReturnType<typeof rawPost>) => Promise<T>,
): Promise<T> {
  const clock = { sleeps: [] as number[], t: 0 };
  const virtual = await startLocalService({
    clock: {
      now: () => clock.t,
      sleep: async (ms) => {
        clock.sleeps.push(ms);
        clock.t += ms;
      },
    },
  });
  const saved = svc;
  svc = virtual;
  try {
    return await fn(clock, (h) => rawPost(h, { ...BODY, text: 'Tiny.' }));
  } finally {
    svc = saved;
    await virtual.close();
  }
}

describe('fault header syntax', () => {
  it('parses every documented item', () => {
    expect(
      parseFaults(
        'cut-after=3, cut-inside=2, delay-first-byte=50, stall-after=2:100, ' +
          'segment-bytes=7, malformed=1, malformed-kind=base64, fail=429:2, retry-after=0',
      ),
    ).toEqual({
      cutAfter: 3,
      cutInside: 2,
      delayFirstByteMs: 50,
      stallAfter: { events: 2, ms: 100 },
      segmentBytes: 7,
      malformedAt: 1,
      malformedKind: 'base64',
      fail: { status: 429, attempts: 2 },
      retryAfterSec: 0,
    });
    expect(parseFaults('fail=503')).toEqual({ fail: { status: 503, attempts: 1 } });
  });

  it('formatFaults writes the text parseFaults reads back to the same spec (every item, any valid value)', () => {
    const n = (min: number) => fc.integer({ min, max: 1_000_000 });
    const spec = fc.record(
      {
        cutAfter: n(0),
        cutInside: n(0),
        delayFirstByteMs: n(0),
        stallAfter: fc.record({ events: n(0), ms: n(0) }),
        segmentBytes: n(1),
        malformedAt: n(0),
        malformedKind: fc.constantFrom('json' as const, 'base64' as const, 'field' as const),
        fail: fc.record({ status: fc.integer({ min: 400, max: 599 }), attempts: n(0) }),
        retryAfterSec: n(0),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(spec, (s) => {
        expect(parseFaults(formatFaults(s))).toEqual(s);
      }),
    );
    expect(formatFaults({ cutAfter: 3, segmentBytes: 7 })).toBe('cut-after=3, segment-bytes=7');
  });

  it('an unknown fault is 400 invalid_fault', async () => {
    const r = await postTts(svc, BODY, { 'x-voicewire-fault': 'explode=1' });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status: 400, reason: 'invalid_fault' });
  });

  it('a delay over 2^31 − 1 ms (which Node would run after ~1 ms) is 400 invalid_fault naming the limit', async () => {
    for (const fault of ['delay-first-byte=2147483648', 'stall-after=1:4294967296']) {
      const r = await postTts(svc, BODY, { 'x-voicewire-fault': fault });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ status: 400, reason: 'invalid_fault' });
      expect((r.json as { message: string }).message).toContain(String(MAX_FAULT_DELAY_MS));
    }
    expect(parseFaults(`delay-first-byte=${MAX_FAULT_DELAY_MS}`)).toEqual({ delayFirstByteMs: MAX_FAULT_DELAY_MS });
  });

  it('a fault object with a delay over the limit is refused when the service starts', async () => {
    await expect(startLocalService({ faults: { stallAfter: { events: 1, ms: 2 ** 32 } } })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      field: 'faults.stallAfter.ms',
    });
  });
});

describe('faults on the wire', () => {
  it('cut-after=N: exactly N whole events, then the connection breaks', async () => {
    const r = await rawPost({ 'x-voicewire-fault': 'cut-after=3' });
    expect(r.status).toBe(200);
    expect(r.ended).toBe('error');
    expect(r.text.endsWith('\n\n')).toBe(true);
    expect(parseSse(r.text)).toHaveLength(3);
  });

  it('cut-inside=N: N whole events and half of the next, then the connection breaks', async () => {
    const r = await rawPost({ 'x-voicewire-fault': 'cut-inside=2' });
    expect(r.ended).toBe('error');
    const blocks = r.text.split('\n\n');
    expect(blocks).toHaveLength(3);
    expect(blocks[2]!.startsWith('data: {')).toBe(true);
    expect(() => JSON.parse(blocks[2]!.slice(6))).toThrow();
  });

  it('delay-first-byte=MS: the service waits MS on its clock before the status line', async () => {
    const r = await withVirtualClock(async (clock, post) => {
      const res = await post({ 'x-voicewire-fault': 'delay-first-byte=300' });
      expect(clock.sleeps).toEqual([300]);
      return res;
    });
    expect(r.status).toBe(200);
    expect(parseSse(r.text).length).toBeGreaterThan(0);
  });

  it('segment-bytes=N: the body arrives in reads of at most N bytes, and is the same stream', async () => {
    const r = await rawPost({ 'x-voicewire-fault': 'segment-bytes=5' }, { ...BODY, text: 'Tiny.' });
    expect(r.ended).toBe('end');
    expect(Math.max(...r.reads)).toBeLessThanOrEqual(64);
    expect(r.reads.length).toBeGreaterThan(r.text.length / 64);
    const plain = await rawPost({}, { ...BODY, text: 'Tiny.' });
    // espeak's timings can move by a millisecond from one call to the next; the words cannot.
    expect(finalTimeline(parseSse(r.text)).map((w) => w.text)).toEqual(finalTimeline(parseSse(plain.text)).map((w) => w.text));
  });

  it('malformed=N: one extra invalid event before event N; all real events still come', async () => {
    const plain = await rawPost({});
    const r = await rawPost({ 'x-voicewire-fault': 'malformed=1' });
    const blocks = r.text.split('\n\n').filter((b) => b !== '');
    expect(blocks).toHaveLength(parseSse(plain.text).length + 1);
    expect(() => JSON.parse(blocks[1]!.slice(6))).toThrow();
    const kinds = await rawPost({ 'x-voicewire-fault': 'malformed=0, malformed-kind=field' });
    expect(JSON.parse(kinds.text.split('\n\n')[0]!.slice(6))).toMatchObject({ chunk_seq: -1 });
  });

  it('fail=429:2: the first two attempts get 429 with Retry-After and the error body, the third succeeds', async () => {
    const headers = { 'x-voicewire-fault': 'fail=429:2, retry-after=3', 'x-voicewire-attempt-key': `k-${Math.random()}` };
    for (let attempt = 1; attempt <= 2; attempt++) {
      const r = await postTts(svc, BODY, headers);
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('3');
      expect(r.json).toMatchObject({ status: 429, reason: 'rate_limited' });
      expect(r.headers.get('x-request-id')).toBeTruthy();
    }
    const ok = await postTts(svc, BODY, headers);
    expect(ok.status).toBe(200);
    expect(ok.events.length).toBeGreaterThan(0);
  });

  it('fail=500 and fail=503:1 key attempts by the body when no attempt key is sent', async () => {
    const body = { ...BODY, text: `Unique ${Math.random()}.` };
    expect((await postTts(svc, body, { 'x-voicewire-fault': 'fail=500' })).status).toBe(500);
    expect((await postTts(svc, body, { 'x-voicewire-fault': 'fail=500' })).status).toBe(200);
    const other = { ...BODY, text: `Another ${Math.random()}.` };
    const r = await postTts(svc, other, { 'x-voicewire-fault': 'fail=503:1' });
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.json).toMatchObject({ reason: 'unavailable' });
  });

  it('stall-after=N:MS pauses the body for MS after N events', async () => {
    await withVirtualClock(async (clock, post) => {
      const r = await post({ 'x-voicewire-fault': 'stall-after=1:300' });
      expect(r.ended).toBe('end');
      expect(clock.sleeps).toEqual([300]);
      expect(parseSse(r.text).length).toBeGreaterThan(1);
    });
  });

  it('service options apply faults to every request', async () => {
    const faulty = await startLocalService({ faults: 'cut-after=1' });
    try {
      const r = await postTts(faulty, BODY).catch((err: unknown) => err);
      expect(r).toBeInstanceOf(Error);
    } finally {
      await faulty.close();
    }
  });
});
