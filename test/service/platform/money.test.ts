import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { costMicros, formatMicros, parseMicros } from '../../../src/service/platform/money.js';

describe('micro-dollar money', () => {
  it('parses and formats exact decimal strings', () => {
    expect(parseMicros('0.15')).toBe(150_000n);
    expect(parseMicros('3')).toBe(3_000_000n);
    expect(parseMicros('0.0000010')).toBe(1n);
    expect(formatMicros(0n)).toBe('0');
    expect(formatMicros(15n)).toBe('0.000015');
    expect(formatMicros(1_500_000n)).toBe('1.5');
    expect(() => parseMicros('0.0000001')).toThrow(RangeError);
    expect(() => parseMicros('1e-3')).toThrow(RangeError);
    expect(() => parseMicros('-1')).toThrow(RangeError);
  });

  it('costs round half up to the micro-dollar with no float on the way', () => {
    expect(costMicros(10, '0.15')).toBe(2n); // 1.5 µ$ → 2
    expect(costMicros(3, '0.15')).toBe(0n); // 0.45 µ$ → 0
    expect(costMicros(1_000_000, '0.60')).toBe(600_000n);
    // 0.1 + 0.2 style sums stay exact.
    expect(formatMicros(parseMicros('0.1') + parseMicros('0.2'))).toBe('0.3');
  });

  it('format and parse are inverse on every micro-dollar amount', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), (m) => parseMicros(formatMicros(m)) === m));
  });

  it('cost is additive in units up to one micro-dollar of rounding', () => {
    fc.assert(
      fc.property(fc.nat(1_000_000), fc.nat(1_000_000), fc.constantFrom('0.15', '0.6', '15', '2.5', '0.000001'), (a, b, rate) => {
        const diff = costMicros(a + b, rate) - costMicros(a, rate) - costMicros(b, rate);
        return diff >= -1n && diff <= 1n;
      }),
    );
  });
});
