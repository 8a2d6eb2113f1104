import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { numberValue, readSegment } from '../../src/events/segmentBytes.js';
import { segmentFault, toSegment, type AlignmentSegment } from '../../src/events/SpeechEvent.js';

const digits = (min: number, max: number): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));

/** JSON numbers without a sign, as scanNumber accepts them: 0 or no leading zero, a fraction, an exponent. */
const jsonNumber: fc.Arbitrary<string> = fc
  .record({
    int: fc.oneof(
      fc.constant('0'),
      fc.tuple(fc.constantFrom(...'123456789'), digits(0, 20)).map(([a, b]) => a + b),
    ),
    frac: fc.option(digits(1, 20), { nil: undefined }),
    exp: fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 3)), { nil: undefined }),
  })
  .map(({ int, frac, exp }) => int + (frac === undefined ? '' : `.${frac}`) + (exp === undefined ? '' : exp.join('')));

/** What the incremental parse must equal: JSON.parse of the segment, validated and typed. */
function reference(text: string): AlignmentSegment | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  return segmentFault(json, 0, 0) === null ? toSegment(json as Record<string, unknown>) : undefined;
}

describe('numberValue', () => {
  it('gives the double Number() gives for any JSON number, short or long, with or without an exponent', () => {
    fc.assert(
      fc.property(jsonNumber, fc.nat(8), (s, pad) => {
        const d = Buffer.from(`${'x'.repeat(pad)}${s},`);
        expect(Object.is(numberValue(d, pad, pad + s.length), Number(s))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads the word times a service writes (thousandths) exactly', () => {
    for (let ms = 0; ms < 100_000; ms += 7) {
      const s = String(ms / 1000);
      expect(numberValue(Buffer.from(s), 0, s.length)).toBe(ms / 1000);
    }
  });
});

describe('readSegment', () => {
  it('reads a compact segment as JSON.parse does, and declines any segment it cannot read exactly', () => {
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 8 }),
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.constantFrom('caf\u00e9', 'a"b', 'a\\b', 'tab\there', 'line\nend', '\u0000', '\u{1f600}'),
    );
    const num = fc.oneof(
      fc.integer({ min: 0, max: 90_000 }).map((n) => n / 1000),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(0, -0, 1e21, 5e-324, 0.1 + 0.2),
    );
    fc.assert(
      fc.property(
        text,
        num,
        num,
        fc.constantFrom('json', 'spaced', 'reordered', 'extraKey', 'rawNumber'),
        jsonNumber,
        (t, start, end, form, raw) => {
          let s: string;
          switch (form) {
            case 'json':
              s = JSON.stringify({ text: t, start, end });
              break;
            case 'spaced':
              s = JSON.stringify({ text: t, start, end }, null, 1);
              break;
            case 'reordered':
              s = JSON.stringify({ start, text: t, end });
              break;
            case 'extraKey':
              s = JSON.stringify({ text: t, start, end, score: 1 });
              break;
            default:
              s = `{"text":${JSON.stringify(t)},"start":${raw},"end":${raw}}`;
          }
          const d = Buffer.from(`[${s},]`);
          const out: AlignmentSegment[] = [];
          const e = readSegment(d, 1, d.length, out);
          const want = reference(s);
          if (e < 0) {
            expect(out).toEqual([]);
            // Declined only for forms other than the service's, escapes, a sign, or an invalid segment.
            expect(form === 'json' && want !== undefined && !s.includes('\\') && !(start < 0)).toBe(false);
          } else {
            expect(e).toBe(1 + Buffer.byteLength(s));
            expect(out).toEqual([want]);
            expect(Object.is(out[0]!.start, want!.start) && Object.is(out[0]!.end, want!.end)).toBe(true);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('declines a segment whose start is after its end, so validation names the fault', () => {
    const d = Buffer.from('{"text":"x","start":2,"end":1}');
    const out: AlignmentSegment[] = [];
    expect(readSegment(d, 0, d.length, out)).toBe(-1);
    expect(out).toEqual([]);
  });
});
