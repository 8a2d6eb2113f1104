/**
 * A bridge on a real `ws` WebSocketServer (127.0.0.1, port 0) and Twilio-like peers, both on one
 * injected clock. `step()` fires the next timer and lets loopback traffic settle: no sleeping.
 */
import { once } from 'node:events';
import { setImmediate as tick } from 'node:timers/promises';
import { WebSocketServer } from 'ws';
import { attachTwilioMediaStream, type TwilioCall, type TwilioCallOptions } from '../../../src/telephony/TwilioCall.js';
import { ManualClock } from './ManualClock.js';
import { TwilioPeer, type PeerStart } from './TwilioPeer.js';

export interface Harness {
  clock: ManualClock;
  url: string;
  calls: TwilioCall[];
  /** Connects a peer and waits for the bridge's call to see its `start`. */
  dial(start?: PeerStart, options?: TwilioCallOptions): Promise<{ peer: TwilioPeer; call: TwilioCall }>;
  settle(): Promise<void>;
  /** Fires timers (settling after each) until `done()` or no timer is left before `limitMs`. */
  runUntil(done: () => boolean, limitMs?: number, onStep?: () => void): Promise<void>;
  /** Lets `ms` of injected time pass (firing and settling every timer in it); no real waits. */
  runFor(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startHarness(defaults: TwilioCallOptions = {}): Promise<Harness> {
  const clock = new ManualClock();
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(wss, 'listening');
  const { port } = wss.address() as { port: number };
  const url = `ws://127.0.0.1:${port}`;
  const calls: TwilioCall[] = [];
  const peers: TwilioPeer[] = [];
  let nextOptions: TwilioCallOptions = defaults;
  const waiting: ((call: TwilioCall) => void)[] = [];
  wss.on('connection', (ws) => {
    const call = attachTwilioMediaStream(ws, { clock, ...nextOptions });
    calls.push(call);
    waiting.shift()?.(call);
  });

  const settle = async (): Promise<void> => {
    for (let i = 0; i < 3; i++) {
      for (const p of peers) if (p.ws.readyState === p.ws.OPEN) await p.roundTrip();
      for (const c of calls) await c.bargeInSettled(); // a detector thread's answers, before the clock moves
      await tick();
    }
  };

  return {
    clock,
    url,
    calls,
    async dial(start, options) {
      nextOptions = { ...defaults, ...options };
      const callPromise = new Promise<TwilioCall>((resolve) => waiting.push(resolve));
      const peer = await TwilioPeer.connect(url, clock, start);
      peers.push(peer);
      const call = await callPromise;
      await settle();
      if (start?.sendStart !== false && call.state.status === 'awaitingStart') await once(call, 'start');
      return { peer, call };
    },
    settle,
    async runUntil(done, limitMs = 60_000, onStep) {
      const limit = clock.now() + limitMs;
      await settle();
      while (!done()) {
        if (!clock.fireNext(limit)) {
          if (clock.pendingTimers > 0) break; // the next one is past the limit
          // Nothing scheduled: the code under test waits on real I/O (a service, a socket).
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
      for (const c of calls) c.close();
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** Waits for `event`, checking `done` on each real I/O turn; fails after REAL_WAIT_LIMIT_MS. */
const REAL_WAIT_LIMIT_MS = 10_000;
async function waitReal(event: Promise<void>, done: () => boolean): Promise<void> {
  let fired = false;
  void event.then(() => {
    fired = true;
  });
  const deadline = Date.now() + REAL_WAIT_LIMIT_MS;
  while (!fired && !done()) {
    if (Date.now() > deadline) throw new Error('nothing happened on the injected clock or the sockets for 10 s');
    await new Promise<void>((resolve) => setTimeout(resolve, 1)); // real I/O turn, not a test sleep
  }
}
