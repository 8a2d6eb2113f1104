/**
 * The harness of `startHarness`, for any provider: a bridge on a real `ws` WebSocketServer
 * (127.0.0.1, port 0) attaching each connection with `attachMediaStream({ provider })`, and that
 * provider's test peers, all on one injected clock. `step()`-style helpers fire the next timer and
 * let loopback traffic settle: no sleeping.
 */
import { once } from 'node:events';
import { setImmediate as tick } from 'node:timers/promises';
import { WebSocketServer } from 'ws';
import type { CallCore } from '../../../src/telephony/CallCore.js';
import type { CallOptions } from '../../../src/telephony/callOptions.js';
import { attachMediaStream } from '../../../src/telephony/mediaStream.js';
import { ManualClock } from './ManualClock.js';
import type { LinePeer, ProviderCase } from './providerCases.js';

export interface ProviderHarness {
  clock: ManualClock;
  url: string;
  calls: CallCore<unknown>[];
  /** Connects a peer and waits for the bridge's call to see its start. */
  dial(options?: CallOptions, customParameters?: Record<string, string>): Promise<{ peer: LinePeer; call: CallCore<unknown> }>;
  settle(): Promise<void>;
  /** Fires timers (settling after each) until `done()` or no timer is left before `limitMs`. */
  runUntil(done: () => boolean, limitMs?: number, onStep?: () => void): Promise<void>;
  /** Lets `ms` of injected time pass (firing and settling every timer in it). */
  runFor(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Bounded settling: three loopback round trips per peer. */
const SETTLE_PASSES = 3;
/** A real wait for I/O fails after this long (it means the test is stuck, not slow). */
const REAL_WAIT_LIMIT_MS = 10_000;

export async function startProviderHarness(c: ProviderCase, defaults: CallOptions = {}): Promise<ProviderHarness> {
  const clock = new ManualClock();
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(wss, 'listening');
  const { port } = wss.address() as { port: number };
  const url = `ws://127.0.0.1:${port}/media`;
  const calls: CallCore<unknown>[] = [];
  const peers: LinePeer[] = [];
  let nextOptions: CallOptions = defaults;
  const waiting: ((call: CallCore<unknown>) => void)[] = [];
  wss.on('connection', (ws) => {
    const call = attachMediaStream(ws, { clock, ...nextOptions, provider: c.provider }) as CallCore<unknown>;
    calls.push(call);
    waiting.shift()?.(call);
  });

  const settle = async (): Promise<void> => {
    for (let i = 0; i < SETTLE_PASSES; i++) {
      for (const p of peers) if (p.ws.readyState === p.ws.OPEN) await p.roundTrip();
      await tick();
    }
  };

  return {
    clock,
    url,
    calls,
    async dial(options, customParameters) {
      nextOptions = { ...defaults, ...options };
      const callPromise = new Promise<CallCore<unknown>>((resolve) => waiting.push(resolve));
      const peer = await c.connect(url, clock, customParameters);
      peers.push(peer);
      const call = await callPromise;
      await settle();
      if (call.state.status === 'awaitingStart') await once(call, 'start');
      return { peer, call };
    },
    settle,
    async runUntil(done, limitMs = 60_000, onStep) {
      const limit = clock.now() + limitMs;
      await settle();
      while (!done()) {
        if (!clock.fireNext(limit)) {
          if (clock.pendingTimers > 0) break;
          await waitReal(clock.timerAdded(), done);
          await settle();
          continue;
        }
        await settle();
        onStep?.();
      }
    },
    async runFor(ms) {
      const end = clock.now() + ms;
      await settle();
      while (clock.fireNext(end)) await settle();
      clock.set(end);
      await settle();
    },
    async close() {
      for (const p of peers) p.close();
      for (const call of calls) call.close();
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

async function waitReal(event: Promise<void>, done: () => boolean): Promise<void> {
  let fired = false;
  void event.then(() => {
    fired = true;
  });
  const deadline = Date.now() + REAL_WAIT_LIMIT_MS;
  while (!fired && !done()) {
    if (Date.now() > deadline) throw new Error('nothing happened on the injected clock or the sockets for 10 s');
    await new Promise<void>((resolve) => setTimeout(resolve, 1)); // a real I/O turn, not a test sleep
  }
}
