import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createTwilioBridge } from '../../src/telephony/TwilioBridgeServer.js';
import type { TwilioCall } from '../../src/telephony/TwilioCall.js';
import { fixtureSource } from './helpers/fixtureSource.js';
import { ManualClock } from './helpers/ManualClock.js';
import { TwilioPeer } from './helpers/TwilioPeer.js';

describe('bridge server', () => {
  it('each connection becomes a call, forgotten when it ends; close ends the rest', async () => {
    const clock = new ManualClock();
    const seen: TwilioCall[] = [];
    const bridge = await createTwilioBridge({ clock, source: fixtureSource(), path: '/media', onCall: (c) => seen.push(c) });
    expect(bridge.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/media$/);
    const a = await TwilioPeer.connect(bridge.url!, clock, { streamSid: 'MZa' });
    const b = await TwilioPeer.connect(bridge.url!, clock, { streamSid: 'MZb' });
    await a.roundTrip();
    await b.roundTrip();
    expect(bridge.calls.size).toBe(2);
    const first = seen[0]!;
    const ended = once(first, 'close');
    a.ws.close();
    await ended;
    expect(bridge.calls.size).toBe(1);
    const second = seen[1]!;
    await bridge.close();
    expect(second.state).toMatchObject({ status: 'ended', reason: 'closed' });
    expect(bridge.calls.size).toBe(0);
    b.close();
  });
});
