/**
 * The fast path against the general path on real captures (test/fixtures/captures/real: SSE
 * bodies recorded from the local service), read in any split: the same events, snapshots, errors
 * and audio bytes, and every event of a real stream on the fast path.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventPathCounts } from '../../src/events/SpeechEventScanner.js';
import { runGeneral, runScanner, splitAt, type StageResult } from './helpers.js';

const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'captures', 'real');
const CAPTURES = readdirSync(DIR)
  .filter((f) => f.endsWith('.sse'))
  .sort()
  .map((f) => ({ name: f, bytes: readFileSync(join(DIR, f)) }));
/** A TCP segment's payload on a 1500 B MTU, and a typical socket read. */
const SEGMENT_READ = 1460;
const SOCKET_READ = 16384;
const MAX_SMALL_READ = 64;
/** Whole-capture runs in small reads cost ~1 s each here: a few per capture. */
const SMALL_READ_RUNS = 3;
const EDIT_RUNS = 12;

/** Cuts into reads of sizes drawn from `sizes` (cycled). */
function readsOf(bytes: Buffer, sizes: number[]): Uint8Array[] {
  const cuts: number[] = [];
  for (let p = 0, k = 0; p < bytes.length; k++) cuts.push((p += sizes[k % sizes.length]!));
  return splitAt(bytes, cuts);
}

function expectSame(got: StageResult, expected: StageResult): void {
  expect(got.error).toEqual(expected.error);
  expect(got.warnings).toEqual(expected.warnings);
  expect(got.metas.length).toBe(expected.metas.length);
  expect(got.metas).toEqual(expected.metas);
  expect(got.audio.equals(expected.audio)).toBe(true);
}

interface WireEvent {
  audio_base64: string;
  content: string;
  alignment: { audio_duration: number; segments: { text: string; start: number; end: number }[] } | null;
  chunk_seq: number;
  chunk_audio_offset_sec: number;
}

/** The capture's events, parsed (the service writes one `data:` line per event). */
function eventsOf(bytes: Buffer): WireEvent[] {
  return bytes
    .toString('utf8')
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice('data: '.length)) as WireEvent);
}

function bodyOf(events: WireEvent[]): Buffer {
  return Buffer.from(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''));
}

type Edit = 'correctEarlier' | 'truncate' | 'renameEarlier' | 'badNewWord' | 'badEarlierWord' | 'extraKey';

/** A snapshot changed the way a service might change it mid-chunk (some edits make it invalid). */
function edit(e: WireEvent, kind: Edit, pick: number): void {
  const a = e.alignment;
  if (a === null || a.segments.length === 0) return;
  const segs = a.segments;
  const i = pick % segs.length;
  switch (kind) {
    case 'correctEarlier':
      segs[i] = { ...segs[i]!, end: segs[i]!.end + 0.125 };
      break;
    case 'truncate':
      segs.length = i;
      break;
    case 'renameEarlier':
      segs[i] = { ...segs[i]!, text: `${segs[i]!.text}"\\é` };
      break;
    case 'badNewWord':
      segs[segs.length - 1] = { ...segs[segs.length - 1]!, start: segs[segs.length - 1]!.end + 1 };
      break;
    case 'badEarlierWord':
      segs[i] = { ...segs[i]!, text: 7 as unknown as string };
      break;
    default:
      (segs[i] as unknown as Record<string, unknown>)['confidence'] = 0.5;
  }
}

describe('real captures: the fast path agrees with the general path', () => {
  for (const { name, bytes } of CAPTURES) {
    const expected = runGeneral([bytes]);

    it(`${name}: every event takes the fast path, in one read, ${SEGMENT_READ} B and ${SOCKET_READ} B reads`, () => {
      // Every event the service sends is well-formed: none is left to the general path.
      expect(expected.error).toBeNull();
      const whole = runScanner([bytes]);
      const chunkSeqs = new Set(whole.metas.map((m) => m.chunkSeq)).size;
      const changedSnapshots = whole.metas.filter((m, i) => m.alignment !== null && !whole.repeats[i]).length;
      for (const chunks of [[bytes], readsOf(bytes, [SEGMENT_READ]), readsOf(bytes, [SOCKET_READ])]) {
        const paths: EventPathCounts = { fast: 0, general: 0, snapshotsIncremental: 0, snapshotsWhole: 0 };
        expectSame(runScanner(chunks, { paths }), expected);
        expect(paths).toMatchObject({ fast: expected.metas.length, general: 0 });
        // A changed snapshot is parsed from its first changed word on; only a chunk's first
        // snapshot (nothing of it to reuse) is parsed whole.
        expect(paths.snapshotsWhole).toBeLessThanOrEqual(chunkSeqs);
        expect(paths.snapshotsIncremental + paths.snapshotsWhole).toBe(changedSnapshots);
      }
    });

    it(`${name}: same events, snapshots and audio in 1–${MAX_SMALL_READ} B reads and any split`, () => {
      const whole = runScanner([bytes]);
      fc.assert(
        fc.property(
          fc.oneof(
            fc.array(fc.integer({ min: 1, max: MAX_SMALL_READ }), { minLength: 1, maxLength: 16 }),
            fc.array(fc.integer({ min: 1, max: 2 * SOCKET_READ }), { minLength: 1, maxLength: 16 }),
          ),
          fc.integer({ min: 4096, max: 1 << 20 }),
          (sizes, ringCapacity) => {
            const paths: EventPathCounts = { fast: 0, general: 0, snapshotsIncremental: 0, snapshotsWhole: 0 };
            const got = runScanner(readsOf(bytes, sizes), { ringCapacity, drain: [ringCapacity >> 1, Infinity], paths });
            expectSame(got, expected);
            expect(got.repeats).toEqual(whole.repeats);
            expect(paths.general).toBe(0);
          },
        ),
        { numRuns: SMALL_READ_RUNS },
      );
    });
  }

  const opus = CAPTURES.find((c) => c.name.startsWith('opus-normal'))!;
  const events = eventsOf(opus.bytes);
  const withSnapshot = events.flatMap((e, i) => (e.alignment !== null && e.alignment.segments.length > 1 ? [i] : []));

  for (const mode of ['fail', 'skip'] as const) {
    it(`snapshots changed mid-chunk (an earlier word corrected or renamed, a truncated snapshot, bad words) read as the general path reads them (${mode} mode)`, () => {
      fc.assert(
        fc.property(
          fc.array(
            fc.record({
              at: fc.nat(withSnapshot.length - 1),
              kind: fc.constantFrom<Edit>('correctEarlier', 'truncate', 'renameEarlier', 'badNewWord', 'badEarlierWord', 'extraKey'),
              pick: fc.nat(1000),
            }),
            { minLength: 1, maxLength: 6 },
          ),
          fc.constantFrom(7, 61, SEGMENT_READ, SOCKET_READ),
          (edits, read) => {
            const copy = structuredClone(events);
            for (const e of edits) edit(copy[withSnapshot[e.at]!]!, e.kind, e.pick);
            const body = bodyOf(copy);
            const want = runGeneral([body], mode);
            const got = runScanner(readsOf(body, [read]), { mode });
            expectSame(got, want);
          },
        ),
        { numRuns: EDIT_RUNS },
      );
    });
  }
});
