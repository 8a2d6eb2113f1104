import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OggSequenceCheck } from '../../src/codec/ogg/OggSequenceCheck.js';

describe('OggSequenceCheck', () => {
  it('the next number is ok, a later one a gap, an earlier one a repeat that leaves the stream where it was', () => {
    const c = new OggSequenceCheck();
    expect([c.check(5, 0, true, false), c.check(5, 1, false, false), c.check(5, 3, false, false)]).toEqual(['ok', 'ok', 'gap']);
    expect(c.fault('gap', 5, 3, 1234, false)).toMatchObject({
      expectedSequence: 2,
      foundSequence: 3,
      missingPages: 1,
      byteOffset: 1234,
      serial: 5,
      fatal: false,
    });
    expect(c.check(5, 3, false, false)).toBe('repeat');
    expect(c.fault('repeat', 5, 3, 99, true)).toMatchObject({ expectedSequence: 4, foundSequence: 3, missingPages: 0, fatal: true });
    expect(c.check(5, 4, false, false)).toBe('ok');
  });

  it('the first page seen of a stream is ok whatever its number (joined mid-stream); streams are counted apart', () => {
    const c = new OggSequenceCheck();
    expect([c.check(1, 70, false, false), c.check(2, 3, false, false), c.check(1, 71, false, false), c.check(2, 4, false, false)]).toEqual([
      'ok',
      'ok',
      'ok',
      'ok',
    ]);
  });

  it('a BOS page after the EOS page of its serial starts a new link; a BOS page seen again is a repeat', () => {
    const c = new OggSequenceCheck();
    c.check(9, 0, true, false);
    c.check(9, 1, false, true);
    expect(c.check(9, 0, true, false)).toBe('ok'); // chained, same serial
    expect(c.check(9, 0, true, false)).toBe('repeat'); // the same BOS page again, stream live
  });

  it('after a gap, takeGap is true once, for that stream only', () => {
    const c = new OggSequenceCheck();
    c.check(1, 0, true, false);
    c.check(2, 0, true, false);
    expect(c.check(1, 5, false, false)).toBe('gap');
    expect([c.takeGap(2), c.takeGap(1), c.takeGap(1)]).toEqual([false, true, false]);
  });

  it('after ten thousand serials (the oldest forgotten), the newest are still checked', () => {
    const c = new OggSequenceCheck();
    for (let serial = 0; serial < 10_000; serial++) c.check(serial, 0, true, false);
    expect(c.check(9_999, 2, false, false)).toBe('gap');
  });

  it('pages taken out of a numbered run: one gap per run of lost pages, nothing else (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 2, maxLength: 200 }), fc.nat(), (lost, start) => {
        const c = new OggSequenceCheck();
        lost[0] = false; // the first page and the last are there
        lost[lost.length - 1] = false;
        const verdicts: string[] = [];
        lost.forEach((gone, i) => {
          if (!gone) verdicts.push(c.check(3, (start + i) >>> 0, i === 0, i === lost.length - 1));
        });
        const runs = lost.filter((gone, i) => gone && !lost[i - 1]).length;
        expect(verdicts.filter((v) => v === 'gap')).toHaveLength(runs);
        expect(verdicts.filter((v) => v === 'repeat')).toHaveLength(0);
      }),
    );
  });
});
