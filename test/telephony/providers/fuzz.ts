import fc from 'fast-check';
import { expect } from 'vitest';
import { TelephonyError } from '../../../src/errors.js';

/** Catches the TelephonyError `fn` must throw (anything else fails the test). */
export function fault(fn: () => unknown): TelephonyError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(TelephonyError);
    expect((err as TelephonyError).code).toBe('TELEPHONY_PROTOCOL');
    return err as TelephonyError;
  }
  throw new Error('expected a TelephonyError');
}

/**
 * Any text, and JSON shaped like the provider's messages (known event names, keys with anything
 * in them), either parses or is a TelephonyError, never anything else.
 */
export function assertOnlyProtocolErrors(parse: (text: string) => unknown, eventKey: string, events: string[], keys: string[]): void {
  const record: Record<string, fc.Arbitrary<unknown>> = { [eventKey]: fc.oneof(fc.constantFrom(...events), fc.anything()) };
  for (const k of keys)
    record[k] = fc.oneof(fc.anything(), fc.dictionary(fc.constantFrom('name', 'payload', 'digit', 'encoding'), fc.anything()));
  const messageLike = fc.record(record, { requiredKeys: [eventKey] });
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.json(),
        messageLike.map((m) => JSON.stringify(m) ?? ''),
      ),
      (text) => {
        try {
          parse(text);
        } catch (err) {
          expect(err).toBeInstanceOf(TelephonyError);
          expect((err as TelephonyError).code).toBe('TELEPHONY_PROTOCOL');
        }
      },
    ),
    { numRuns: 500 },
  );
}

/** Names and ids with quotes, backslashes and non-ASCII in them. */
export const awkwardText = fc.string({ unit: 'binary', maxLength: 40 });
export const audioBytes = fc.uint8Array({ maxLength: 400 });
