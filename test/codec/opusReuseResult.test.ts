import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDecoder } from '../../src/codec/createDecoder.js';
import { OggOpusDecoder, type OggOpusDecoderOptions } from '../../src/codec/OpusDecoder.js';
import type { AudioDecoder, DecodedAudio } from '../../src/codec/types.js';
import { collect, fixture } from './audioFixtures.js';
import { dropPage } from './oggPages.js';

/**
 * OggOpusDecoder's `reuseResult` (what the pipeline asks for through createDecoder's
 * `reuseOutput`): every `decode` call refills one result object instead of making three, so the
 * caller must be done with a result before its next call. What each call gives must be exactly
 * what a decoder with fresh results gives, call by call.
 */

/** A call's result as it stood when it was returned: its blocks copied, its errors listed. */
interface Snapshot {
  blocks: Int16Array[];
  codes: string[];
}
const snapshot = (r: DecodedAudio): Snapshot => ({ blocks: r.pcm.map((b) => b.slice()), codes: r.errors.map((e) => e.code) });

/** Feeds `parts` one call each, then the backlog in empty calls (as the pipeline steps), then flush. */
function run(dec: AudioDecoder, parts: Uint8Array[]): { calls: Snapshot[]; results: DecodedAudio[] } {
  const calls: Snapshot[] = [];
  const results: DecodedAudio[] = [];
  const take = (r: DecodedAudio): void => {
    calls.push(snapshot(r));
    results.push(r);
  };
  for (const part of parts) {
    take(dec.decode(part));
    while (dec.pending === true) take(dec.decode(new Uint8Array(0)));
  }
  take(dec.flush());
  return { calls, results };
}

function splitAt(b: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % b.length))].sort((x, y) => x - y);
  const parts: Uint8Array[] = [];
  let from = 0;
  for (const c of at) {
    parts.push(b.subarray(from, c));
    from = c;
  }
  parts.push(b.subarray(from));
  return parts;
}

const stepped = (opts: OggOpusDecoderOptions = {}): OggOpusDecoderOptions => ({ sampleRate: 8000, stepMs: 40, ...opts });

describe('OggOpusDecoder with reuseResult', () => {
  const speech = fixture('opus/default-pages.opus');

  it('every decode call returns the same object, holding that call’s blocks only, equal to fresh results for any split', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
        const parts = splitAt(speech, cuts);
        const fresh = run(new OggOpusDecoder(stepped()), parts);
        const reused = run(new OggOpusDecoder(stepped({ reuseResult: true })), parts);
        expect(reused.calls).toEqual(fresh.calls);
        const decodeResults = reused.results.slice(0, -1); // the last is flush(): an object of its own
        expect(new Set(decodeResults).size).toBe(1);
        expect(new Set(fresh.results).size).toBe(fresh.results.length);
      }),
      { numRuns: 15 },
    );
  });

  it('a call that decodes nothing (bytes inside a page) returns no blocks, not the previous call’s', () => {
    const dec = new OggOpusDecoder(stepped({ reuseResult: true }));
    const first = dec.decode(speech);
    expect(first.pcm.length).toBeGreaterThan(0);
    while (dec.pending) dec.decode(new Uint8Array(0));
    const again = new OggOpusDecoder(stepped({ reuseResult: true }));
    const head = again.decode(speech.subarray(0, 2000)); // the headers and part of the first audio page
    const partial = again.decode(speech.subarray(2000, 2010)); // no page completes
    expect(partial).toBe(head);
    expect(partial.pcm).toEqual([]);
    expect(partial.errors).toEqual([]);
  });

  it('a non-fatal fault is given by the call that reaches it and not repeated by the next', () => {
    const damaged = dropPage(fixture('opus/20ms-pages.opus'), 40);
    const opts = stepped({ sampleRate: 48000, onInvalidPage: 'skip' });
    const fresh = run(new OggOpusDecoder(opts), [damaged]);
    const reused = run(new OggOpusDecoder({ ...opts, reuseResult: true }), [damaged]);
    expect(reused.calls).toEqual(fresh.calls);
    expect(reused.calls.flatMap((c) => c.codes)).toEqual(['OGG_PAGE_SEQUENCE']);
  });
});

describe("createDecoder('opus', { reuseOutput: true }) behind the format check", () => {
  it('a first write shorter than the signature, then the rest: the same samples and faults as the default decoder', () => {
    const b = fixture('opus/20ms-pages.opus');
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 15 }), fc.array(fc.nat(), { maxLength: 6 }), (first, cuts) => {
        const parts = [b.subarray(0, first), ...splitAt(b.subarray(first), cuts)];
        const opts = { stepMs: 40, outputSampleRate: 8000 };
        const plain = run(createDecoder('opus', opts), parts);
        const reused = run(createDecoder('opus', { ...opts, reuseOutput: true }), parts);
        const samples = (calls: Snapshot[]): Buffer =>
          Buffer.from(collect(...calls.map((c) => ({ pcm: c.blocks, errors: [] }))).pcm.buffer);
        expect(samples(plain.calls).length).toBeGreaterThan(0);
        expect(samples(reused.calls).equals(samples(plain.calls))).toBe(true);
        expect(reused.calls.flatMap((c) => c.codes)).toEqual(plain.calls.flatMap((c) => c.codes));
      }),
      { numRuns: 12 },
    );
  });

  it('the format check’s flush of a stream shorter than the signature reports the same as the default decoder', () => {
    const b = fixture('opus/20ms-pages.opus').subarray(0, 3);
    const plain = run(createDecoder('opus', {}), [b]);
    const reused = run(createDecoder('opus', { reuseOutput: true }), [b]);
    expect(reused.calls).toEqual(plain.calls);
  });
});
