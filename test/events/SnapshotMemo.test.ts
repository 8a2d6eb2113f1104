import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SnapshotMemo, type SnapshotCounts } from '../../src/events/SnapshotMemo.js';
import { validateAlignment, type Alignment } from '../../src/events/SpeechEvent.js';

interface Seg {
  text: unknown;
  start: number;
  end: number;
}
type Step =
  | { kind: 'append'; segs: Seg[] }
  | { kind: 'correctLast'; by: number }
  | { kind: 'correctAt'; at: number; by: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'same' }
  | { kind: 'invalidNew' }
  | { kind: 'textNotString'; at: number }
  | { kind: 'replace'; segs: Seg[] };
type Form = 'compact' | 'pretty' | 'segmentsFirst' | 'extraKey' | 'trailingComma' | 'spaced' | 'noComma';

const segArb: fc.Arbitrary<Seg> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({
        text: fc.string({ unit: 'grapheme', maxLength: 6 }),
        start: fc.integer({ min: 0, max: 30000 }),
        len: fc.integer({ min: 0, max: 900 }),
      })
      .map((s) => ({ text: s.text, start: s.start / 1000, end: (s.start + s.len) / 1000 })),
  },
  // Times as any double (long fractions, exponents, negative): the new words' reader must agree
  // with JSON.parse or leave them to it.
  {
    weight: 1,
    arbitrary: fc
      .record({
        text: fc.string({ maxLength: 4 }),
        start: fc.double({ noNaN: true, noDefaultInfinity: true }),
        len: fc.double({ min: 0, max: 1e6, noNaN: true }),
      })
      .map((s) => ({ text: s.text, start: s.start, end: s.start + s.len })),
  },
);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.array(segArb, { minLength: 1, maxLength: 4 }).map((segs) => ({ kind: 'append' as const, segs })) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 500 }).map((by) => ({ kind: 'correctLast' as const, by })) },
  {
    weight: 1,
    arbitrary: fc.record({ at: fc.nat(), by: fc.integer({ min: 1, max: 500 }) }).map((r) => ({ kind: 'correctAt' as const, ...r })),
  },
  { weight: 1, arbitrary: fc.nat().map((at) => ({ kind: 'truncate' as const, at })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'same' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'invalidNew' as const }) },
  { weight: 1, arbitrary: fc.nat().map((at) => ({ kind: 'textNotString' as const, at })) },
  { weight: 1, arbitrary: fc.array(segArb, { maxLength: 4 }).map((segs) => ({ kind: 'replace' as const, segs })) },
);
const formArb = fc.constantFrom<Form>(
  'compact',
  'compact',
  'compact',
  'compact',
  'pretty',
  'segmentsFirst',
  'extraKey',
  'trailingComma',
  'spaced',
  'noComma',
);

function apply(segs: Seg[], step: Step): Seg[] {
  const out = segs.map((s) => ({ ...s }));
  switch (step.kind) {
    case 'append':
      return [...out, ...step.segs];
    case 'correctLast':
      if (out.length > 0) out[out.length - 1]!.end += step.by / 1000;
      return out;
    case 'correctAt':
      if (out.length > 0) out[step.at % out.length]!.end += step.by / 1000;
      return out;
    case 'truncate':
      return out.slice(0, out.length === 0 ? 0 : step.at % out.length);
    case 'same':
      return out;
    case 'invalidNew':
      return [...out, { text: 'x', start: 2, end: 1 }];
    case 'textNotString':
      if (out.length > 0) out[step.at % out.length]!.text = 7;
      return out;
    default:
      return step.segs;
  }
}

function serialize(segs: Seg[], form: Form): string {
  const duration = segs.reduce((m, s) => Math.max(m, s.end), 0);
  switch (form) {
    case 'compact':
      return JSON.stringify({ audio_duration: duration, segments: segs });
    case 'pretty':
      return JSON.stringify({ audio_duration: duration, segments: segs }, null, 1);
    case 'segmentsFirst':
      return JSON.stringify({ segments: segs, audio_duration: duration });
    case 'extraKey':
      return JSON.stringify({ audio_duration: duration, segments: segs, language: 'en' });
    case 'spaced':
      return JSON.stringify({ audio_duration: duration, segments: segs }).replaceAll('},{', '} , {');
    case 'noComma':
      return JSON.stringify({ audio_duration: duration, segments: segs }).replaceAll('},{', '} {');
    default:
      return JSON.stringify({ audio_duration: duration, segments: segs }).replace(/\]\}$/, segs.length > 0 ? ',]}' : ']}');
  }
}

function reference(text: string): Alignment | null | undefined {
  try {
    return validateAlignment(JSON.parse(text), 0);
  } catch {
    return undefined;
  }
}

function counts(): SnapshotCounts {
  return { snapshotsIncremental: 0, snapshotsWhole: 0 };
}

describe('SnapshotMemo', () => {
  it('parses any sequence of snapshots (appended, corrected, truncated, invalid, other shapes) as JSON.parse + validateAlignment does', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(stepArb, formArb, fc.nat(40)), { maxLength: 30 }), (steps) => {
        const memo = new SnapshotMemo(counts());
        let segs: Seg[] = [];
        for (const [step, form, pad] of steps) {
          const next = apply(segs, step);
          const text = serialize(next, form);
          const d = Buffer.from(`${'x'.repeat(pad)}${text},"chunk_seq":0`);
          const a = pad;
          const b = pad + Buffer.byteLength(text);
          const want = reference(text);
          const got = memo.parse(d, a, b, 0);
          expect(got).toEqual(want);
          if (got !== undefined) {
            memo.keep(d, a, b, got);
            d.fill(0x2a); // the caller's bytes are gone after the event: the memo kept its own
            segs = next;
          }
        }
      }),
      { numRuns: 400 },
    );
  });

  it('takes the unchanged words of a cumulative snapshot as they are and parses only the new ones', () => {
    const c = counts();
    const memo = new SnapshotMemo(c);
    const words = Array.from({ length: 60 }, (_, i) => ({ text: `w${i}`, start: i * 0.3, end: i * 0.3 + 0.25 }));
    const feed = (segs: Seg[]): Alignment => {
      const d = Buffer.from(serialize(segs, 'compact'));
      const got = memo.parse(d, 0, d.length, 0)!;
      memo.keep(d, 0, d.length, got);
      return got;
    };
    const first = feed(words.slice(0, 50));
    const appended = feed(words.slice(0, 52));
    expect(appended.segments.slice(0, 50).every((s, i) => s === first.segments[i])).toBe(true);
    const corrected = feed([...words.slice(0, 51), { ...words[51]!, end: 99 }]);
    expect(corrected.segments.slice(0, 51).every((s, i) => s === appended.segments[i])).toBe(true);
    expect(corrected.segments[51]).toEqual({ ...words[51], end: 99 });
    const earlier = feed([...words.slice(0, 10), { ...words[10]!, text: 'changed' }, ...words.slice(11, 52)]);
    expect(earlier.segments.slice(0, 10).every((s, i) => s === corrected.segments[i])).toBe(true);
    expect(earlier.segments[10]!.text).toBe('changed');
    expect(c).toEqual({ snapshotsWhole: 1, snapshotsIncremental: 3 });
  });
});
