import { describe, expect, it } from 'vitest';
import { VoicewireError } from '../../src/errors.js';
import { parseWebhookEvent } from '../../src/webhooks/events.js';
import { comparableInstant } from '../../src/webhooks/instant.js';

const session = {
  id: 'sess_1',
  end_user_id: 'u1',
  metadata: { order: 7, price: '19.90' },
  branch_id: 'b',
  direction: 'outbound',
  batch_call_id: null,
  dial_status: 'answered',
  answered_by: 'unknown',
  conversation_ended_at: '2026-11-22T03:00:00Z',
  duration_seconds: 42,
  end_reason: 'user_hangup',
};

describe('parseWebhookEvent', () => {
  it('types call.ended, with the reason', () => {
    const ev = parseWebhookEvent(JSON.stringify({ event: 'call.ended', session, ended_reason: 'user_hangup' }));
    expect(ev.type).toBe('call.ended');
    if (ev.type !== 'call.ended') throw new Error();
    expect(ev.payload.ended_reason).toBe('user_hangup');
    expect(ev.payload.session.metadata).toEqual({ order: 7, price: '19.90' });
    expect(ev.sessionId).toBe('sess_1');
    expect(ev.unrecognized).toEqual([]);
  });

  it('keeps and flags an unknown ended_reason instead of rejecting it', () => {
    const ev = parseWebhookEvent(
      Buffer.from(
        JSON.stringify({ event: 'call.ended', session: { ...session, end_reason: 'moon_landing' }, ended_reason: 'moon_landing' }),
      ),
    );
    expect(ev.type).toBe('call.ended');
    expect(ev.unrecognized).toEqual(['session.end_reason="moon_landing"', 'ended_reason="moon_landing"']);
  });

  it('accepts a null reason (not settled yet)', () => {
    const ev = parseWebhookEvent({ event: 'call.ended', session: { id: 's', end_reason: null }, ended_reason: null });
    if (ev.type !== 'call.ended') throw new Error();
    expect(ev.payload.ended_reason).toBeNull();
    expect(ev.unrecognized).toEqual([]);
  });

  it('types call.analyzed with its analysis', () => {
    const ev = parseWebhookEvent({
      event: 'call.analyzed',
      session,
      analysis: {
        status: 'error',
        finished_at: '2026-11-22T03:01:00Z',
        error: { code: 'x' },
        summary: null,
        data: [],
        criteria_results: [],
      },
    });
    if (ev.type !== 'call.analyzed') throw new Error();
    expect(ev.payload.analysis.status).toBe('error');
    expect(ev.payload.analysis.error).toEqual({ code: 'x' });
  });

  it('types phone_call.dial_finished and flags unknown dial values', () => {
    const ev = parseWebhookEvent({
      event: 'phone_call.dial_finished',
      session: { ...session, dial_status: 'busy' },
      dial_status: 'fax_tone',
      answered_by: null,
    });
    if (ev.type !== 'phone_call.dial_finished') throw new Error();
    expect(ev.payload.dial_status).toBe('fax_tone');
    expect(ev.unrecognized).toEqual(['dial_status="fax_tone"']);
  });

  it('keeps an unknown event, flagged, with its session id', () => {
    const ev = parseWebhookEvent({ event: 'call.transferred', session: { id: 's9' }, extra: [1, 2] });
    expect(ev.type).toBe('unknown');
    expect(ev.known).toBe(false);
    expect(ev.event).toBe('call.transferred');
    expect(ev.sessionId).toBe('s9');
    expect(ev.payload['extra']).toEqual([1, 2]);
    expect(ev.unrecognized).toEqual(['event="call.transferred"']);
  });

  it.each([
    ['not JSON', '{nope'],
    ['an array', '[]'],
    ['no event', '{"session":{"id":"s"}}'],
    ['no session', '{"event":"call.ended"}'],
    ['no session id', '{"event":"call.ended","session":{}}'],
    ['analysis missing', '{"event":"call.analyzed","session":{"id":"s"}}'],
    ['metadata not an object', '{"event":"call.ended","session":{"id":"s","metadata":"x"}}'],
  ])('refuses %s with WEBHOOK_BAD_PAYLOAD', (_n, body) => {
    try {
      parseWebhookEvent(body);
      throw new Error('expected failure');
    } catch (e) {
      expect(e).toBeInstanceOf(VoicewireError);
      expect((e as VoicewireError).code).toBe('WEBHOOK_BAD_PAYLOAD');
    }
  });
});

describe('comparableInstant', () => {
  it('orders instants, not strings, to the nanosecond', () => {
    const a = comparableInstant('2026-11-22T10:00:00+09:00')!;
    const b = comparableInstant('2026-11-22T02:00:00Z')!;
    expect(a < b).toBe(true);
    expect(comparableInstant('2026-11-22T02:00:00.5Z')).toBe(comparableInstant('2026-11-22T02:00:00.500000Z'));
    expect(comparableInstant('2026-11-22T02:00:00.000000001Z')! > b).toBe(true);
    expect(comparableInstant(1_784_808_000)).toBe(comparableInstant(new Date(1_784_808_000_000).toISOString()));
  });

  it('rejects what is not an instant with an offset', () => {
    for (const v of ['2026-11-22T02:00:00', '2026-02-30T00:00:00Z', 'yesterday', '', null, -1, '2026-11-22T25:00:00Z']) {
      expect(comparableInstant(v)).toBeUndefined();
    }
  });
});

describe('parseWebhookEvent on arbitrary bytes', () => {
  it('property: returns an event or throws WEBHOOK_BAD_PAYLOAD, never anything else', async () => {
    const fc = (await import('fast-check')).default;
    const arbitraryBody = fc.oneof(
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc
        .record({
          event: fc.constantFrom('call.ended', 'call.analyzed', 'phone_call.dial_finished', 'x'),
          session: fc.jsonValue({ maxDepth: 2 }),
          analysis: fc.jsonValue({ maxDepth: 2 }),
          ended_reason: fc.jsonValue({ maxDepth: 1 }),
        })
        .map((v) => JSON.stringify(v)),
    );
    fc.assert(
      fc.property(arbitraryBody, (body) => {
        try {
          const ev = parseWebhookEvent(body);
          expect(typeof ev.event).toBe('string');
        } catch (e) {
          expect(e).toBeInstanceOf(VoicewireError);
          expect((e as VoicewireError).code).toBe('WEBHOOK_BAD_PAYLOAD');
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('comparableInstant ordering', () => {
  it('property: string order of comparable instants equals time order, whatever the offset written', async () => {
    const fc = (await import('fast-check')).default;
    const MIN = Date.UTC(1971, 0, 1);
    const MAX = Date.UTC(2200, 0, 1);
    const withOffset = (ms: number, offsetMin: number): string => {
      const local = new Date(ms + offsetMin * 60_000).toISOString().slice(0, -1); // no Z
      const sign = offsetMin < 0 ? '-' : '+';
      const abs = Math.abs(offsetMin);
      return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
    };
    fc.assert(
      fc.property(
        fc.integer({ min: MIN, max: MAX }),
        fc.integer({ min: MIN, max: MAX }),
        fc.integer({ min: -14 * 60, max: 14 * 60 }),
        fc.integer({ min: -14 * 60, max: 14 * 60 }),
        (a, b, oa, ob) => {
          const ca = comparableInstant(withOffset(a, oa))!;
          const cb = comparableInstant(withOffset(b, ob))!;
          expect(ca < cb).toBe(a < b);
        },
      ),
      { numRuns: 300 },
    );
  });
});
