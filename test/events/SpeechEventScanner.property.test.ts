import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runGeneral, runScanner, splitAt } from './helpers.js';
import { buildStream, streamArb } from './streamGen.js';

describe('SpeechEventScanner agrees with the general path', () => {
  for (const mode of ['fail', 'skip'] as const) {
    it(`gives the same metas, audio bytes and errors (${mode} mode) for any split and ring size`, () => {
      fc.assert(
        fc.property(
          streamArb,
          fc.array(fc.nat(4000), { maxLength: 60 }),
          fc.boolean(),
          fc.integer({ min: 4, max: 300 }),
          fc.array(fc.oneof(fc.constant(Infinity), fc.nat(50)), { minLength: 1, maxLength: 4 }),
          (s, cuts, oneByte, ringCapacity, drain) => {
            const bytes = buildStream(s.items, s.bom, s.eols, s.cut);
            const expected = runGeneral([bytes], mode);
            const chunks = oneByte
              ? splitAt(bytes, Array.from(bytes.keys()))
              : splitAt(
                  bytes,
                  cuts.map((c) => c % (bytes.length + 1)),
                );
            const split = runScanner(chunks, { ringCapacity, drain, mode });
            const whole = runScanner([bytes], { mode });
            const generalSplit = runGeneral(chunks, mode);
            expect(generalSplit).toEqual(expected);
            expect({ ...whole, repeats: [] }).toEqual(expected);
            expect({ ...split, repeats: [] }).toEqual(expected);
            expect(split.repeats).toEqual(whole.repeats);
          },
        ),
        { numRuns: 250 },
      );
    });
  }
});
