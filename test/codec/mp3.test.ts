import { describe, expect, it } from 'vitest';
import { Mp3Decoder, MP3_UNTAGGED_DELAY } from '../../src/codec/Mp3Decoder.js';
import { createDecoder } from '../../src/codec/createDecoder.js';
import { MPEGDecoder } from 'mpg123-decoder';
import { directMpg123 } from '../../src/codec/mp3/mpg123Direct.js';
import { collect, fixture, maxAbsDiff, readWav, snrDb } from './audioFixtures.js';

async function decodeWhole(name: string, opts: ConstructorParameters<typeof Mp3Decoder>[0] = {}) {
  const dec = new Mp3Decoder(opts);
  await dec.ready;
  const out = collect(dec.decode(fixture(`mp3/${name}.mp3`)), dec.flush());
  const result = { ...out, format: dec.format, gapless: dec.gapless, startOffsetSamples: dec.startOffsetSamples };
  dec.free();
  return result;
}

/** The lag (in samples) at which `b` best matches `a`, searched over 0..maxLag. */
function bestLag(a: Int16Array, b: Int16Array, maxLag: number): number {
  let best = 0;
  let bestScore = -Infinity;
  const n = Math.min(a.length, b.length) - maxLag;
  for (let lag = 0; lag <= maxLag; lag++) {
    let score = 0;
    for (let i = 0; i < n; i += 2) score += a[i]! * b[i + lag]!;
    if (score > bestScore) {
      bestScore = score;
      best = lag;
    }
  }
  return best;
}

describe('Mp3Decoder against ffmpeg', () => {
  for (const name of ['lame-tag', 'id3v2', 'no-tag', 'stereo', 'streaming-tag']) {
    it(`${name}: same sample count as ffmpeg, SNR > 80 dB, channel count kept`, async () => {
      const ref = readWav(`mp3/${name}.ref.wav`);
      const { pcm, errors, format } = await decodeWhole(name);
      expect(errors).toEqual([]);
      expect(format).toEqual({ sampleRate: ref.sampleRate, channels: ref.channels });
      expect(pcm.length).toBe(ref.samples.length);
      expect(snrDb(ref.samples, pcm)).toBeGreaterThan(80);
      expect(maxAbsDiff(pcm, ref.samples)).toBeLessThanOrEqual(1);
    });
  }

  it('mono stays mono although mpg123 decodes two channels', async () => {
    expect((await decodeWhole('lame-tag')).format?.channels).toBe(1);
  });

  it('an ID3v2 tag is skipped: the same samples as the untagged-by-ID3 file', async () => {
    expect((await decodeWhole('id3v2')).pcm).toEqual((await decodeWhole('lame-tag')).pcm);
  });

  it('gapless via the LAME tag; without it the audio lags by 1105 samples (576 encoder + 529 decoder delay)', async () => {
    const tagged = await decodeWhole('lame-tag');
    const untagged = await decodeWhole('no-tag');
    expect(tagged.gapless).toBe(true);
    expect(tagged.startOffsetSamples).toBe(0);
    expect(untagged.gapless).toBe(false);
    expect(untagged.startOffsetSamples).toBe(MP3_UNTAGGED_DELAY);
    expect(bestLag(tagged.pcm, untagged.pcm, 1500)).toBe(MP3_UNTAGGED_DELAY);
  });

  it("a streaming encoder's Info tag (delay, no frame count: the local service) trims the start as ffmpeg does", async () => {
    // mpg123 trims nothing without the frame count; ffmpeg drops delay + 529 at the start only.
    const r = await decodeWhole('streaming-tag');
    expect(r.gapless).toBe(true);
    expect(r.startOffsetSamples).toBe(0);
    expect(r.pcm.length).toBe(readWav('mp3/streaming-tag.ref.wav').samples.length);
  });

  it('trimUntaggedDelay drops the 1105 samples so the audio lines up with the text timing', async () => {
    const tagged = await decodeWhole('lame-tag');
    const trimmed = await decodeWhole('no-tag', { trimUntaggedDelay: true });
    expect(trimmed.startOffsetSamples).toBe(0);
    expect(snrDb(tagged.pcm, trimmed.pcm.subarray(0, tagged.pcm.length))).toBeGreaterThan(80);
  });

  it('small uneven chunks give the same samples as one chunk (ID3 and first frame split)', async () => {
    const b = fixture('mp3/id3v2.mp3');
    const dec = new Mp3Decoder();
    await dec.ready;
    const parts = [];
    const sizes = [1, 1, 1, 7, 3, 1, 200, 13, 1, 1, 64];
    for (let i = 0, k = 0; i < b.length; k++) {
      const n = sizes[k % sizes.length]!;
      parts.push(dec.decode(b.subarray(i, i + n)));
      i += n;
    }
    parts.push(dec.flush());
    expect(collect(...parts).pcm).toEqual((await decodeWhole('lame-tag')).pcm);
  });

  it('1-byte feeding gives the same samples as one chunk', async () => {
    const b = fixture('mp3/lame-tag.mp3').subarray(0, 8000);
    const whole = new Mp3Decoder();
    await whole.ready;
    const one = collect(whole.decode(b), whole.flush()).pcm;
    const dec = new Mp3Decoder();
    await dec.ready;
    const parts = [];
    for (let i = 0; i < b.length; i++) parts.push(dec.decode(b.subarray(i, i + 1)));
    parts.push(dec.flush());
    expect(collect(...parts).pcm).toEqual(one);
    expect(one.length).toBeGreaterThan(0);
  });

  it('a truncated stream gives the frames before the cut, matching the reference', async () => {
    const dec = new Mp3Decoder();
    await dec.ready;
    const b = fixture('mp3/lame-tag.mp3');
    const got = collect(dec.decode(b.subarray(0, b.length >> 1)), dec.flush()).pcm;
    const ref = readWav('mp3/lame-tag.ref.wav').samples;
    expect(got.length).toBeGreaterThan(ref.length / 3);
    expect(snrDb(ref.subarray(0, got.length), got)).toBeGreaterThan(80);
  });

  it('a corrupt frame is a non-fatal MP3_DECODE_FAILED whose byteOffset counts the stream from its first byte, ID3v2 tag included', async () => {
    const bytes = fixture('mp3/id3v2.mp3').slice();
    bytes.fill(0xff, 20000, 22000); // 152 bytes of ID3v2 come first
    for (const direct of [true, false]) {
      const dec = new Mp3Decoder({ direct });
      await dec.ready;
      const out = collect(dec.decode(bytes), dec.flush());
      expect(out.errors.length).toBeGreaterThan(0);
      for (const e of out.errors) {
        expect(e.code).toBe('MP3_DECODE_FAILED');
        expect(e.fatal).toBe(false);
        // mpg123 names no position: the offset is the end of what it had been fed, in stream bytes.
        expect(e.byteOffset).toBe(bytes.length);
        expect(e.message).toContain(`near input byte ${bytes.length}`);
      }
      expect(out.pcm.length).toBeGreaterThan(0); // the audio around the fault is still there
      dec.free();
    }
  });

  it("reuseOutput: each call's block is a view of one reused scratch; copied at once, the samples equal the default decoder's", async () => {
    const bytes = fixture('mp3/lame-tag.mp3');
    const ref = await decodeWhole('lame-tag');
    const dec = new Mp3Decoder({ reuseOutput: true, stepMs: 40 });
    await dec.ready;
    const copies: Int16Array[] = [];
    const buffers = new Set<ArrayBufferLike>();
    const take = (r: ReturnType<Mp3Decoder['decode']>) => {
      expect(r.errors).toEqual([]);
      for (const block of r.pcm) {
        buffers.add(block.buffer);
        copies.push(block.slice());
      }
    };
    for (let at = 0; at < bytes.length; at += 1000) {
      take(dec.decode(bytes.subarray(at, at + 1000)));
      while (dec.pending) take(dec.decode(new Uint8Array(0)));
    }
    take(dec.flush());
    expect(collect({ pcm: copies, errors: [] }).pcm).toEqual(ref.pcm);
    expect(copies.length).toBeGreaterThan(10);
    expect(buffers.size).toBeLessThanOrEqual(3); // the scratch (grown at most twice), not one per call
    dec.free();
  });

  it('after reset(), awaiting ready again gives a decoder that decodes the stream anew', async () => {
    const bytes = fixture('mp3/lame-tag.mp3');
    const dec = new Mp3Decoder();
    await dec.ready;
    const first = collect(dec.decode(bytes), dec.flush());
    dec.reset();
    await dec.ready;
    const second = collect(dec.decode(bytes), dec.flush());
    expect(second.errors).toEqual([]);
    expect(second.pcm).toEqual(first.pcm);
    dec.free();
  });

  it('bytes with no MPEG frame are a fatal MP3_DECODE_FAILED, not noise', async () => {
    const dec = new Mp3Decoder();
    await dec.ready;
    const r = collect(dec.decode(new Uint8Array(20000).fill(0x41)), dec.flush());
    expect(r.pcm.length).toBe(0);
    expect(r.errors[0]).toMatchObject({ code: 'MP3_DECODE_FAILED', fatal: true });
  });

  it('createDecoder("mp3") gives an Mp3Decoder with a ready promise', async () => {
    const dec = createDecoder('mp3');
    expect(dec.kind).toBe('mp3');
    await dec.ready;
    dec.free?.();
  });

  it('the installed mpg123-decoder has the internals the direct driver needs (else it falls back)', async () => {
    const mpg = new MPEGDecoder();
    await mpg.ready;
    expect(directMpg123(mpg)).not.toBeNull();
    expect(directMpg123({} as MPEGDecoder)).toBeNull();
    mpg.free();
  });

  for (const name of ['lame-tag', 'no-tag', 'stereo', 'streaming-tag']) {
    it(`${name}: mpg123 driven directly gives the same samples as through its public decode()`, async () => {
      const direct = await decodeWhole(name);
      const viaWrapper = await decodeWhole(name, { direct: false });
      expect(direct.pcm).toEqual(viaWrapper.pcm);
      expect(direct.pcm.length).toBeGreaterThan(0);
    });
  }
});
