import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Mp3Decoder } from '../../src/codec/Mp3Decoder.js';
import { OggOpusDecoder } from '../../src/codec/OpusDecoder.js';
import { PcmDecoder } from '../../src/codec/PcmDecoder.js';
import { WavDecoder } from '../../src/codec/WavDecoder.js';
import { createDecoder } from '../../src/codec/createDecoder.js';
import { f32ToS16, floatToS16, floatToS16Simd } from '../../src/codec/mp3/floatToS16.js';
import type { AudioDecoder, DecodedAudio } from '../../src/codec/types.js';
import { collect, fixture } from './audioFixtures.js';

const NO_BYTES = new Uint8Array(0);
const STEP_MS = 40;

/**
 * Feeds `bytes` in `sizes`-long pieces the way the FrameProducer does (continue the backlog while
 * `pending`, then more bytes). Each piece is a copy that is overwritten with garbage right after
 * the call, as the ring reuses its bytes: a decoder that kept a view of its input would go wrong.
 */
function feedStepped(dec: AudioDecoder, bytes: Uint8Array, sizes: number[] = [bytes.length]): { parts: DecodedAudio[]; calls: number } {
  const parts: DecodedAudio[] = [];
  let calls = 0;
  for (let i = 0, k = 0; i < bytes.length; k++) {
    const n = Math.max(1, sizes[k % sizes.length]!);
    const piece = bytes.slice(i, i + n);
    parts.push(copyOut(dec.decode(piece)));
    piece.fill(0x5a);
    calls++;
    while (dec.pending === true) {
      parts.push(copyOut(dec.decode(NO_BYTES)));
      calls++;
    }
    i += n;
  }
  parts.push(copyOut(dec.flush()));
  return { parts, calls };
}

/** Blocks are valid until the next call: keep copies. */
function copyOut(r: DecodedAudio): DecodedAudio {
  return { pcm: r.pcm.map((b) => b.slice()), errors: r.errors };
}

function opusWhole(name: string): Int16Array {
  const dec = new OggOpusDecoder();
  return collect(dec.decode(fixture(`opus/${name}.opus`)), dec.flush()).pcm;
}

describe('step-limited decoding (bounded work per call)', () => {
  for (const name of ['default-pages', '20ms-pages', 'spanning-packet', 'chained', 'stereo']) {
    it(`opus ${name}: at most ${STEP_MS} ms decoded per call, the same samples as one call`, () => {
      const dec = new OggOpusDecoder({ stepMs: STEP_MS });
      const { parts, calls } = feedStepped(dec, fixture(`opus/${name}.opus`));
      const channels = dec.format!.channels;
      for (const part of parts.slice(0, -1)) {
        const samples = part.pcm.reduce((n, b) => n + b.length, 0) / channels;
        expect(samples).toBeLessThanOrEqual(2 * 960); // two 20 ms packets
      }
      expect(calls).toBeGreaterThan(10);
      const got = collect(...parts);
      expect(got.errors).toEqual([]);
      expect(got.pcm).toEqual(opusWhole(name));
    });
  }

  it('opus: any split with steps gives the same samples as one call, though the input is overwritten after each call', () => {
    const bytes = fixture('opus/spanning-packet.opus');
    const whole = opusWhole('spanning-packet');
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 6000 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 10, max: 120 }),
        (sizes, stepMs) => {
          const dec = new OggOpusDecoder({ stepMs });
          expect(collect(...feedStepped(dec, bytes, sizes).parts).pcm).toEqual(whole);
        },
      ),
      { numRuns: 8 },
    );
  });

  it('opus: a corrupt CRC is reported after the audio of the pages before it, however many steps that takes', () => {
    const b = fixture('opus/default-pages.opus').slice();
    // default-pages: page 2 holds 1 s of audio; corrupt page 3's last byte
    const offsets: number[] = [];
    for (let p = 0; p < b.length;) {
      offsets.push(p);
      let len = 27 + b[p + 26]!;
      for (let s = 0; s < b[p + 26]!; s++) len += b[p + 27 + s]!;
      p += len;
    }
    b[offsets[4]! - 1]! ^= 0xff;
    const dec = new OggOpusDecoder({ stepMs: STEP_MS });
    const parts: DecodedAudio[] = [dec.decode(b)];
    while (dec.pending) parts.push(dec.decode(NO_BYTES));
    expect(parts.length).toBeGreaterThan(10);
    for (const p of parts.slice(0, -1)) expect(p.errors).toEqual([]);
    expect(parts.at(-1)!.errors[0]).toMatchObject({ code: 'OGG_BAD_CRC', byteOffset: offsets[3], fatal: true });
    expect(collect(...parts).pcm.length).toBe(50 * 960 - 312);
  });

  it('opus: flush() drains the backlog', () => {
    const dec = new OggOpusDecoder({ stepMs: STEP_MS });
    const first = dec.decode(fixture('opus/default-pages.opus'));
    expect(dec.pending).toBe(true);
    const rest = dec.flush();
    expect(dec.pending).toBe(false);
    expect(collect(first, rest).pcm).toEqual(opusWhole('default-pages'));
  });

  it('createDecoder passes stepMs through the format check, which reports pending', () => {
    const dec = createDecoder('opus', { stepMs: STEP_MS });
    dec.decode(fixture('opus/default-pages.opus'));
    expect(dec.pending).toBe(true);
    expect(createDecoder('opus').pending).toBe(false);
  });

  for (const name of ['lame-tag', 'id3v2', 'no-tag', 'stereo', 'streaming-tag']) {
    it(`mp3 ${name}: fed about ${STEP_MS} ms of frames per call, the same samples as one call`, async () => {
      const whole = new Mp3Decoder();
      const dec = new Mp3Decoder({ stepMs: STEP_MS });
      await Promise.all([whole.ready, dec.ready]);
      const bytes = fixture(`mp3/${name}.mp3`);
      const one = collect(whole.decode(bytes), whole.flush()).pcm;
      const { parts, calls } = feedStepped(dec, bytes, [4096, 333, 1]);
      const channels = dec.format!.channels;
      const perFrame = dec.format!.sampleRate > 24000 ? 1152 : 576;
      for (const part of parts.slice(1, -1)) {
        // ~40 ms of frames fed per call; mpg123 may finish one more frame it held back
        expect(part.pcm.reduce((n, b) => n + b.length, 0) / channels).toBeLessThanOrEqual(3 * perFrame);
      }
      expect(calls).toBeGreaterThan(bytes.length / 1000);
      expect(collect(...parts).pcm).toEqual(one);
      whole.free();
      dec.free();
    });
  }
});

describe('pcm and wav hand out views of aligned input', () => {
  it('pcm: an even offset gives a view of the input, an odd one (or a carried byte) a copy, same samples', () => {
    const backing = new Uint8Array([1, 0, 2, 0, 3, 0, 4, 0, 5]);
    const d = new PcmDecoder({ sampleRate: 8000 });
    const even = d.decode(backing.subarray(0, 4)).pcm[0]!;
    expect(even.buffer).toBe(backing.buffer);
    expect(Array.from(even)).toEqual([1, 2]);
    const odd = d.decode(backing.subarray(5, 8)).pcm[0]!; // 0,4,0: byte-aligned only
    expect(odd.buffer).not.toBe(backing.buffer);
    expect(Array.from(odd)).toEqual([1024]);
    const carried = d.decode(backing.subarray(8, 9)); // completes the sample with the carried 0
    expect(Array.from(carried.pcm[0]!)).toEqual([5 << 8]);
  });

  it('wav: s16 data on an even offset is a view; a view is never of the header scratch', () => {
    const header = new Uint8Array(44);
    const v = new DataView(header.buffer);
    header.set([0x52, 0x49, 0x46, 0x46], 0);
    v.setUint32(4, 36 + 8, true);
    header.set([0x57, 0x41, 0x56, 0x45, 0x66, 0x6d, 0x74, 0x20], 8);
    v.setUint32(16, 16, true);
    v.setUint16(20, 1, true);
    v.setUint16(22, 1, true);
    v.setUint32(24, 8000, true);
    v.setUint32(28, 16000, true);
    v.setUint16(32, 2, true);
    v.setUint16(34, 16, true);
    header.set([0x64, 0x61, 0x74, 0x61], 36);
    v.setUint32(40, 8, true);
    const file = new Uint8Array(52);
    file.set(header);
    file.set([1, 0, 2, 0, 3, 0, 4, 0], 44);
    const d = new WavDecoder();
    const r = d.decode(file);
    expect(r.pcm[0]!.buffer).toBe(file.buffer);
    expect(Array.from(r.pcm[0]!)).toEqual([1, 2, 3, 4]);
  });
});

describe('float → s16 (mp3 output)', () => {
  it('rounds half to even and clips, the same in wasm SIMD and in JS', () => {
    const special = [
      0,
      -0,
      0.5 / 32768,
      1.5 / 32768,
      2.5 / 32768,
      -0.5 / 32768,
      -1.5 / 32768,
      1,
      -1,
      1.5,
      -1.5,
      0.99999,
      Infinity,
      -Infinity,
      NaN,
      32767.5 / 32768,
    ];
    fc.assert(
      fc.property(fc.array(fc.float({ min: -2, max: 2, noNaN: false }), { minLength: 0, maxLength: 40 }), fc.boolean(), (xs, stereo) => {
        const all = [...special, ...xs];
        const left = new Float32Array(all);
        const right = new Float32Array(all.map((x) => -x));
        const count = left.length;
        const a = new Int16Array(stereo ? 2 * count : count);
        const b = new Int16Array(a.length);
        floatToS16(left, 0, stereo ? right : null, 0, count, a, 0, true);
        floatToS16(left, 0, stereo ? right : null, 0, count, b, 0, false);
        expect(a).toEqual(b);
        for (let k = 0; k < count; k++) expect(a[stereo ? 2 * k : k]).toBe(f32ToS16(left[k]!));
      }),
      { numRuns: 100 },
    );
    expect([0.5, 1.5, 2.5, -0.5, -1.5, 32767.5, 40000].map((v) => f32ToS16(v / 32768))).toEqual([0, 2, 2, 0, -2, 32767, 32767]);
  });

  it('uses wasm SIMD on Node 20 (so the JS path above is the fallback, not the common case)', () => {
    expect(floatToS16Simd).toBe(true);
  });
});
