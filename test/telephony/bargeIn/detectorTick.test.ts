/**
 * The detector threads' tick (src/telephony/bargeIn/DetectorThreads.ts): at most one message to a
 * thread per `tickMs` on the injected clock. A frame posted when the thread had nothing for a tick
 * goes at the end of the turn (the clock never moves for it); frames of several calls posted within
 * the tick after a message wait for the tick's end and go in one message, each call's audio
 * answered in full. A real detector thread and real caller audio (the greeting fixture, μ-law);
 * only the tick's clock is injected.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { DetectorThreads, DEFAULT_DETECTOR_TICK_MS } from '../../../src/telephony/bargeIn/DetectorThreads.js';
import type { FromDetector, ModelRunStats, PortableError } from '../../../src/telephony/bargeIn/detectorMessages.js';
import { InvalidOptionError } from '../../../src/errors.js';
import { ManualClock } from '../helpers/ManualClock.js';

const FRAME_BYTES = 160;
/** The detector loads in real time in its thread; bounded wait (polled in real 5 ms steps). */
const LOAD_WAIT_MS = 20_000;
const ANSWER_WAIT_MS = 10_000;
const TICK_MS = 5;
/** Clock time of the first frame: well past the opens' post, so the thread has been idle for a tick. */
const FIRST_FRAME_AT = 100;

const speech = new Uint8Array(readFileSync(new URL('../../fixtures/telephony/greeting.ulaw', import.meta.url)));

/** A call on the pool, as the bridge's RemoteDetector is: what its thread answered. */
interface Client {
  id: number;
  ready: boolean;
  samples: number;
  closed: ModelRunStats | undefined;
  failed: PortableError | null;
}

const pools: { pool: DetectorThreads; ids: number[] }[] = [];
/** Each pool's calls are released: its thread (idleMs 0) is asked to stop and ends. */
afterEach(async () => {
  for (const { pool, ids } of pools.splice(0)) {
    const exits = pool.workers.map((w) => new Promise((r) => w.once('exit', r)));
    for (const id of ids) pool.release(id);
    await Promise.all(exits);
  }
});

function attach(pool: DetectorThreads): Client {
  const c: Client = { id: 0, ready: false, samples: 0, closed: undefined, failed: null };
  c.id = pool.attach({
    message: (m: FromDetector) => {
      if (m.t === 'ready') c.ready = true;
      if (m.t === 'decisions') c.samples += m.samples;
      if (m.t === 'closed') c.closed = m.model ?? { runs: 0, rows: 0 };
    },
    failed: (e) => (c.failed = e),
  });
  pools.find((p) => p.pool === pool)?.ids.push(c.id);
  pool.post(c.id, { t: 'open', id: c.id, options: { vad: { backend: 'webrtc' } } });
  return c;
}

async function until(done: () => boolean, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  expect(done()).toBe(true);
}

/** One turn of the real event loop: what `post` scheduled with `setImmediate` has run. */
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

function frame(pool: DetectorThreads, c: Client, k: number): void {
  const at = (k * FRAME_BYTES) % (speech.length - FRAME_BYTES);
  pool.post(c.id, { t: 'in', id: c.id, pcm: speech.slice(at, at + FRAME_BYTES), atMs: k * 20 });
}

async function startPool(calls: number): Promise<{ pool: DetectorThreads; clock: ManualClock; clients: Client[] }> {
  const clock = new ManualClock();
  const pool = new DetectorThreads(clock);
  pools.push({ pool, ids: [] });
  pool.configure({ threads: 1, idleMs: 0, tickMs: TICK_MS });
  const clients = Array.from({ length: calls }, () => attach(pool));
  await until(() => clients.every((c) => c.ready), LOAD_WAIT_MS);
  clock.set(FIRST_FRAME_AT);
  return { pool, clock, clients };
}

describe('detector threads on a tick', () => {
  it('sends a lone frame at the end of its turn, without waiting for the clock, when the thread had nothing for a tick', async () => {
    const { pool, clock, clients } = await startPool(1);
    const [a] = clients as [Client];
    const before = pool.posts;
    frame(pool, a, 0);
    await turn();
    expect(pool.posts).toBe(before + 1);
    expect(clock.pendingTimers).toBe(0);
    await until(() => a.samples === FRAME_BYTES, ANSWER_WAIT_MS);
    expect(clock.now()).toBe(FIRST_FRAME_AT);

    // A tick later (the thread idle since), the next frame goes at once too.
    clock.set(FIRST_FRAME_AT + TICK_MS);
    frame(pool, a, 1);
    await turn();
    expect(pool.posts).toBe(before + 2);
    expect(clock.pendingTimers).toBe(0);
    await until(() => a.samples === 2 * FRAME_BYTES, ANSWER_WAIT_MS);
  });

  it('holds the frames of several calls posted within a tick of the last message and sends them in one message at the tick’s end', async () => {
    const { pool, clock, clients } = await startPool(3);
    const [a, b, c] = clients as [Client, Client, Client];
    frame(pool, a, 0); // the thread was idle: goes at once
    await turn();
    const afterFirst = pool.posts;
    await until(() => a.samples === FRAME_BYTES, ANSWER_WAIT_MS);

    // Within the tick, in separate turns (as sockets deliver calls' frames): nothing is posted.
    clock.set(FIRST_FRAME_AT + 1);
    frame(pool, b, 0);
    await turn();
    clock.set(FIRST_FRAME_AT + 3);
    frame(pool, c, 0);
    frame(pool, a, 1);
    await turn();
    expect(pool.posts).toBe(afterFirst);
    expect(clock.nextDue()).toBe(FIRST_FRAME_AT + TICK_MS);

    // The tick's end: one message with all three calls' frames, each answered in full.
    expect(clock.fireNext()).toBe(true);
    expect(pool.posts).toBe(afterFirst + 1);
    await until(() => a.samples === 2 * FRAME_BYTES && b.samples === FRAME_BYTES && c.samples === FRAME_BYTES, ANSWER_WAIT_MS);

    // The thread itself woke once per message: the opens' message, the first frame's, the tick's, and the closes'.
    clock.set(FIRST_FRAME_AT + 2 * TICK_MS);
    for (const x of clients) pool.post(x.id, { t: 'close', id: x.id });
    await turn();
    await until(() => clients.every((x) => x.closed !== undefined), ANSWER_WAIT_MS);
    expect(pool.posts).toBe(afterFirst + 2);
    expect(Math.max(...clients.map((x) => x.closed!.wakes ?? 0))).toBe(pool.posts);
  });

  it('sends what waits for the tick at once when a call asks for its answers (flushNow: bargeInSettled on an injected clock)', async () => {
    const { pool, clock, clients } = await startPool(2);
    const [a, b] = clients as [Client, Client];
    frame(pool, a, 0);
    await turn();
    const afterFirst = pool.posts;
    clock.set(FIRST_FRAME_AT + 1);
    frame(pool, b, 0);
    frame(pool, a, 1);
    await turn();
    expect(pool.posts).toBe(afterFirst);
    expect(clock.pendingTimers).toBe(1);
    pool.flushNow(b.id);
    expect(pool.posts).toBe(afterFirst + 1);
    expect(clock.pendingTimers).toBe(0);
    await until(() => a.samples === 2 * FRAME_BYTES && b.samples === FRAME_BYTES, ANSWER_WAIT_MS);
    expect(clock.now()).toBe(FIRST_FRAME_AT + 1);
  });

  it('with tickMs 0 posts once per turn of the event loop, never on the clock (the behaviour before the tick)', async () => {
    const { pool, clock, clients } = await startPool(2);
    pool.configure({ tickMs: 0 });
    const [a, b] = clients as [Client, Client];
    const before = pool.posts;
    frame(pool, a, 0);
    frame(pool, b, 0);
    await turn();
    frame(pool, a, 1);
    await turn();
    expect(pool.posts).toBe(before + 2);
    expect(clock.pendingTimers).toBe(0);
    await until(() => a.samples === 2 * FRAME_BYTES && b.samples === FRAME_BYTES, ANSWER_WAIT_MS);
  });

  it('refuses a tick it cannot use with an InvalidOptionError naming tickMs', () => {
    const pool = new DetectorThreads(new ManualClock());
    for (const tickMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      let err: unknown = null;
      try {
        pool.configure({ tickMs });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InvalidOptionError);
      expect((err as InvalidOptionError).field).toBe('tickMs');
    }
    expect(DEFAULT_DETECTOR_TICK_MS).toBeGreaterThan(0);
  });
});
