import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OggOpusDecoder, type OggOpusDecoderOptions } from '../../src/codec/OpusDecoder.js';
import { OggSequenceError } from '../../src/errors.js';
import { oggCrc } from '../../src/internal/oggCrc.js';
import { collect, fixture, maxAbsDiff, readWav } from './audioFixtures.js';
import { dropPage, oggPages, pageOffsets, repeatPage, swapPages } from './oggPages.js';

/**
 * OggOpusDecoder on real encoder output (opusenc, ffmpeg) whose pages were lost, repeated or
 * swapped on the way: under onInvalidPage 'skip' a warning and the timing kept (silence for what
 * was lost), under 'fail' a fatal error after the audio before the fault.
 */

function decode(b: Uint8Array, opts: OggOpusDecoderOptions = {}) {
  const dec = new OggOpusDecoder(opts);
  return collect(dec.decode(b), dec.flush());
}

/** Decoded in bounded steps (as the pipeline does), fed in `chunk`-byte pieces. */
function decodeStepped(b: Uint8Array, chunk: number, opts: OggOpusDecoderOptions = {}) {
  const dec = new OggOpusDecoder({ ...opts, stepMs: 40 });
  const parts = [];
  for (let at = 0; at < b.length; at += chunk) {
    parts.push(dec.decode(b.subarray(at, at + chunk)));
    while (dec.pending) parts.push(dec.decode(new Uint8Array(0)));
  }
  parts.push(dec.flush());
  return collect(...parts);
}

const PRE_SKIP = 312;
const PACKET = 960;
const skip = { onInvalidPage: 'skip' } as const;

describe('OggOpusDecoder: pages lost, repeated or swapped', () => {
  const original = fixture('opus/20ms-pages.opus'); // one 20 ms packet per page, pages 2..141 audio
  const ref = readWav('opus/20ms-pages.ref.wav').samples;

  it("'skip': a lost page is one warning naming the pages and where, and its 20 ms become silence in place", () => {
    const damaged = dropPage(original, 40);
    const { pcm, errors } = decode(damaged, skip);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(OggSequenceError);
    expect(errors[0]).toMatchObject({
      code: 'OGG_PAGE_SEQUENCE',
      fatal: false,
      kind: 'gap',
      expectedSequence: 40,
      foundSequence: 41,
      byteOffset: pageOffsets(damaged)[40],
    });
    // the same length as the whole stream: everything after the gap keeps its time
    expect(pcm.length).toBe(ref.length);
    // page 40 held packet 38 (pages 2.. are packets 0..): its samples are zeros, those before are opusdec's
    const gapStart = 38 * PACKET - PRE_SKIP;
    expect(maxAbsDiff(pcm.subarray(0, gapStart), ref.subarray(0, gapStart))).toBeLessThanOrEqual(1);
    expect(pcm.subarray(gapStart, gapStart + PACKET).every((v) => v === 0)).toBe(true);
    expect(ref.subarray(gapStart, gapStart + PACKET).some((v) => v !== 0)).toBe(true); // it was not silence
  });

  it("'fail': a lost page is a fatal OGG_PAGE_SEQUENCE after the audio of the pages before it", () => {
    const damaged = dropPage(original, 40);
    const dec = new OggOpusDecoder();
    const first = dec.decode(damaged);
    expect(first.errors).toHaveLength(1);
    expect(first.errors[0]).toMatchObject({
      code: 'OGG_PAGE_SEQUENCE',
      fatal: true,
      expectedSequence: 40,
      foundSequence: 41,
      byteOffset: pageOffsets(damaged)[40],
    });
    const got = collect(first).pcm;
    expect(got.length).toBe(38 * PACKET - PRE_SKIP);
    expect(maxAbsDiff(got, ref.subarray(0, got.length))).toBeLessThanOrEqual(1);
    expect(dec.decode(new Uint8Array(10)).pcm).toEqual([]); // stays stopped
  });

  it("a repeated page is not decoded twice: the output is the whole stream's, with one warning (skip) or a fatal error (fail)", () => {
    const damaged = repeatPage(original, 60);
    const skipped = decode(damaged, skip);
    expect(skipped.errors).toEqual([
      expect.objectContaining({ code: 'OGG_PAGE_SEQUENCE', kind: 'repeat', fatal: false, expectedSequence: 61, foundSequence: 60 }),
    ]);
    expect(skipped.pcm).toEqual(decode(original).pcm);
    const failed = decode(damaged);
    expect(failed.errors).toEqual([expect.objectContaining({ code: 'OGG_PAGE_SEQUENCE', kind: 'repeat', fatal: true })]);
    expect(failed.pcm.length).toBe(59 * PACKET - PRE_SKIP);
  });

  it('two swapped pages: a gap and a late page, the length kept (skip)', () => {
    const { pcm, errors } = decode(swapPages(original, 70), skip);
    expect(errors.map((e) => [(e as OggSequenceError).kind, e.fatal])).toEqual([
      ['gap', false],
      ['repeat', false],
    ]);
    expect(pcm.length).toBe(ref.length);
  });

  it('a lost 1 s page (opusenc default pages) becomes 1 s of silence; bounded steps and small pieces give the same', () => {
    const b = fixture('opus/default-pages.opus'); // pages 2, 3, 4: 50, 50, 40 packets
    const whole = decode(b).pcm;
    const damaged = dropPage(b, 2);
    const { pcm, errors } = decode(damaged, skip);
    expect(errors).toEqual([expect.objectContaining({ code: 'OGG_PAGE_SEQUENCE', kind: 'gap', expectedSequence: 2, foundSequence: 3 })]);
    expect(pcm.length).toBe(whole.length);
    // the pre-skip takes the first 312 samples of the silence, as it would have of the audio
    expect(pcm.subarray(0, 48000 - PRE_SKIP).every((v) => v === 0)).toBe(true);
    expect(pcm[48000 - PRE_SKIP + 400]).not.toBe(0);
    const stepped = decodeStepped(damaged, 1000, skip);
    expect(stepped.pcm).toEqual(pcm);
    expect(stepped.errors).toEqual(errors);
  });

  it('a page lost before the final page: the length is kept, the silence short by the end trim the final granule holds', () => {
    // The final page's granule is lowered by its end trim (536 samples here), so its start worked
    // back from it is that much early: all of its audio is kept, 11 ms sooner.
    const b = fixture('opus/default-pages.opus');
    const whole = decode(b).pcm;
    const { pcm, errors } = decode(dropPage(b, 3), skip);
    expect(errors).toHaveLength(1);
    expect(pcm.length).toBe(whole.length);
    const gapStart = 48000 - PRE_SKIP;
    expect(pcm.subarray(0, gapStart)).toEqual(whole.subarray(0, gapStart));
    const silence = pcm.subarray(gapStart).findIndex((v) => v !== 0);
    expect(silence).toBe(48000 - (40 * PACKET - (133864 - 96000)));
  });

  it('the warning comes in the step that decodes the audio after the gap, not before the audio ahead of it', () => {
    const damaged = dropPage(original, 40);
    const dec = new OggOpusDecoder({ ...skip, stepMs: 40 });
    let samplesBeforeWarning = -1;
    let samples = 0;
    for (let r = dec.decode(damaged); ; r = dec.decode(new Uint8Array(0))) {
      if (r.errors.length > 0 && samplesBeforeWarning < 0) samplesBeforeWarning = samples;
      samples += r.pcm.reduce((n, p) => n + p.length, 0);
      if (!dec.pending) break;
    }
    // steps of two packets: the gap comes after packet 37, in the step holding packets 38..39
    expect(samplesBeforeWarning).toBe(38 * PACKET - PRE_SKIP);
  });

  it("a page lost in the second link of a chained stream is that link's gap; its length is kept", () => {
    const b = fixture('opus/chained.opus');
    const { pcm, errors } = decode(dropPage(b, 7), skip);
    expect(errors).toEqual([expect.objectContaining({ code: 'OGG_PAGE_SEQUENCE', serial: 2, expectedSequence: 2, foundSequence: 3 })]);
    expect(pcm.length).toBe(readWav('opus/chained.ref.wav').samples.length);
  });

  it('a page lost before one that continues a packet: the fragment is dropped, the length kept, nothing undecodable', () => {
    const b = fixture('opus/spanning-packet.opus'); // ffmpeg: page 3 continues a packet page 2 began
    expect(oggPages(b)[3]![5]! & 1).toBe(1);
    for (const backend of ['native', 'wasm'] as const) {
      const { pcm, errors } = decode(dropPage(b, 2), { ...skip, backend });
      expect(errors).toEqual([expect.objectContaining({ code: 'OGG_PAGE_SEQUENCE', kind: 'gap' })]);
      expect(pcm.length).toBe(readWav('opus/spanning-packet.ref.wav').samples.length);
    }
  });

  it('granules that put more than 10 s in a gap are not filled: a fatal error, even under skip', () => {
    const b = fixture('opus/default-pages.opus');
    const pages = oggPages(b).map((p) => Buffer.from(p));
    // page 3's granule pushed 20 s later, then page 2 lost
    const late = pages[3]!;
    late.writeBigInt64LE(late.readBigInt64LE(6) + 20n * 48000n, 6);
    late.writeUInt32LE(0, 22);
    late.writeUInt32LE(oggCrc(late), 22);
    const { errors } = decode(new Uint8Array(Buffer.concat([pages[0]!, pages[1]!, late, pages[4]!])), skip);
    expect(errors.map((e) => [e.code, e.fatal])).toEqual([
      ['OGG_PAGE_SEQUENCE', false],
      ['OGG_PAGE_SEQUENCE', true],
    ]);
    expect(errors[1]!.message).toMatch(/more than the 10 s repaired/);
  });

  it('any single page lost from a valid stream: exactly one fault, and under skip the same sample count, at 48 or 8 kHz (fast-check)', () => {
    // The first page (OpusHead) lost is OPUS_BAD_HEAD; the last one lost cannot show in the
    // sequence numbers (nothing comes after it): the stream just ends early.
    const files = ['20ms-pages', 'default-pages', 'ffmpeg', 'spanning-packet', 'stereo'].map((name) => {
      const b = fixture(`opus/${name}.opus`);
      return {
        name,
        b,
        pages: oggPages(b).length,
        samples: { 48000: decode(b).pcm.length, 8000: decode(b, { sampleRate: 8000 }).pcm.length },
      };
    });
    fc.assert(
      fc.property(
        fc.nat(files.length - 1),
        fc.nat(1000),
        fc.constantFrom('skip' as const, 'fail' as const),
        fc.constantFrom(48000 as const, 8000 as const),
        (f, k, mode, sampleRate) => {
          const file = files[f]!;
          const lost = 1 + (k % (file.pages - 2));
          const { pcm, errors } = decode(dropPage(file.b, lost), { onInvalidPage: mode, sampleRate });
          expect(errors).toHaveLength(1);
          expect(errors[0]).toMatchObject({ code: 'OGG_PAGE_SEQUENCE', kind: 'gap', missingPages: 1, fatal: mode === 'fail' });
          if (mode === 'skip') expect(pcm.length).toBe(file.samples[sampleRate]);
        },
      ),
      { numRuns: 60 },
    );
  });
});
