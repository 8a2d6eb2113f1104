import { describe, expect, it } from 'vitest';
import { OggOpusDecoder } from '../../src/codec/OpusDecoder.js';
import { isOpusTags, opusHeadPacket, opusTagsPacket, parseOpusHead } from '../../src/codec/opus/OpusHead.js';
import { oggCrc } from '../../src/internal/oggCrc.js';
import { createDecoder } from '../../src/codec/createDecoder.js';
import type { FormatCheckDecoder } from '../../src/codec/FormatCheckDecoder.js';
import { collect, fixture, maxAbsDiff, readWav, snrDb } from './audioFixtures.js';
import { pageOffsets } from './oggPages.js';

const FIXTURES = ['default-pages', '20ms-pages', 'ffmpeg', 'spanning-packet', 'stereo', 'chained'] as const;
const BACKENDS = ['native', 'wasm'] as const;

function decodeWhole(name: string, opts: ConstructorParameters<typeof OggOpusDecoder>[0] = {}) {
  const dec = new OggOpusDecoder(opts);
  const out = collect(dec.decode(fixture(`opus/${name}.opus`)), dec.flush());
  return { ...out, format: dec.format };
}

describe('OggOpusDecoder against opusdec --no-dither', () => {
  for (const name of FIXTURES) {
    for (const backend of BACKENDS) {
      it(`${name} (${backend}): same sample count as opusdec, every sample within 1 LSB`, () => {
        const ref = readWav(`opus/${name}.ref.wav`);
        const { pcm, errors, format } = decodeWhole(name, { backend });
        expect(errors).toEqual([]);
        expect(format).toEqual({ sampleRate: 48000, channels: ref.channels });
        expect(pcm.length).toBe(ref.samples.length);
        expect(maxAbsDiff(pcm, ref.samples)).toBeLessThanOrEqual(1);
        expect(snrDb(ref.samples, pcm)).toBeGreaterThan(60);
      });
    }
  }

  it('native blocks are marked owned (each its own ArrayBuffer); wasm blocks, from the shared Buffer pool, are not', () => {
    for (const backend of BACKENDS) {
      const dec = new OggOpusDecoder({ backend });
      const out = dec.decode(fixture('opus/20ms-pages.opus'));
      expect(out.pcm.length).toBeGreaterThan(10);
      const ownBuffers = new Set(out.pcm.map((b) => b.buffer)).size === out.pcm.length;
      expect({ backend, owned: out.ownedBuffers, ownBuffers }).toEqual({
        backend,
        owned: backend === 'native',
        ownBuffers: backend === 'native',
      });
    }
  });

  it('the OpusHead output gain (-6 dB in stereo.opus) is applied, as opusdec does', () => {
    const ref = readWav('opus/stereo.ref.wav');
    const { pcm } = decodeWhole('stereo');
    // Without the gain the level would be twice as high; matching the reference proves it.
    expect(maxAbsDiff(pcm, ref.samples)).toBeLessThanOrEqual(1);
  });

  it('a chained stream re-initialises the decoder and trims each link (pre-skip and end)', () => {
    const a = decodeWhole('default-pages').pcm.length;
    const { pcm } = decodeWhole('chained');
    const ref = readWav('opus/chained.ref.wav');
    expect(pcm.length).toBe(ref.samples.length);
    // the first link is the same audio as default-pages, sample for sample
    expect(pcm.subarray(0, a)).toEqual(decodeWhole('default-pages').pcm);
  });

  it("an end trim longer than the final page's last packet trims the earlier packets of that page too", () => {
    // end-trim-past-packet.opus is default-pages.opus with its final granule lowered by 1700
    // samples (test/fixtures/lower-final-granule.ts): the last page holds 40 packets of 960, so
    // the trim reaches back into the second-to-last packet. 131 852 is what opusdec --no-dither
    // and ffmpeg both gave for this file (measured once, opus-tools 0.2 / ffmpeg 5.1), and it
    // equals the final granule 132 164 minus the 312-sample pre-skip.
    const OPUSDEC_SAMPLES = 131_852;
    const ref = readWav('opus/default-pages.ref.wav').samples;
    for (const backend of BACKENDS) {
      const { pcm, errors } = decodeWhole('end-trim-past-packet', { backend });
      expect(errors).toEqual([]);
      expect(pcm.length).toBe(OPUSDEC_SAMPLES);
      // the samples kept are the stream's first ones: the trim is taken from the end
      expect(maxAbsDiff(pcm, ref.subarray(0, OPUSDEC_SAMPLES))).toBeLessThanOrEqual(1);
    }
    // and at a native lower rate, the same trim scaled from 48 kHz units
    expect(decodeWhole('end-trim-past-packet', { sampleRate: 8000 }).pcm.length).toBe(Math.round(OPUSDEC_SAMPLES / 6));
  });

  it('1-byte feeding gives the same samples as one chunk', () => {
    const b = fixture('opus/20ms-pages.opus');
    const dec = new OggOpusDecoder();
    const parts = [];
    for (let i = 0; i < b.length; i++) parts.push(dec.decode(b.subarray(i, i + 1)));
    parts.push(dec.flush());
    expect(collect(...parts).pcm).toEqual(decodeWhole('20ms-pages').pcm);
  });

  it('a corrupt CRC gives OGG_BAD_CRC at that page, with the audio before it kept', () => {
    const b = fixture('opus/20ms-pages.opus').slice();
    const pages = pageOffsets(b);
    const badPage = pages[40]!;
    b[pages[41]! - 1]! ^= 0xff; // last body byte of page 40
    const dec = new OggOpusDecoder();
    const first = dec.decode(b);
    expect(first.errors).toHaveLength(1);
    expect(first.errors[0]).toMatchObject({ code: 'OGG_BAD_CRC', byteOffset: badPage, fatal: true });
    const ref = readWav('opus/20ms-pages.ref.wav').samples;
    const got = collect(first).pcm;
    // pages 2..39 hold one 20 ms packet each: 38 packets, minus the 312-sample pre-skip
    expect(got.length).toBe(38 * 960 - 312);
    expect(maxAbsDiff(got, ref.subarray(0, got.length))).toBeLessThanOrEqual(1);
    expect(dec.decode(new Uint8Array(10)).pcm).toEqual([]); // stays stopped
  });

  it('a truncated stream gives everything in its complete pages, then AUDIO_TRUNCATED on flush', () => {
    const b = fixture('opus/default-pages.opus');
    const pages = pageOffsets(b);
    const cut = pages[3]! + 100;
    const dec = new OggOpusDecoder();
    const body = collect(dec.decode(b.subarray(0, cut)));
    const end = dec.flush();
    expect(body.errors).toEqual([]);
    expect(end.errors[0]).toMatchObject({ code: 'AUDIO_TRUNCATED', fatal: false });
    const ref = readWav('opus/default-pages.ref.wav').samples;
    // page 2, the one complete audio page, holds 1 s: 50 packets of 960, minus the pre-skip
    expect(body.pcm.length).toBe(50 * 960 - 312);
    expect(maxAbsDiff(body.pcm, ref.subarray(0, body.pcm.length))).toBeLessThanOrEqual(1);
  });

  for (const rate of [8000, 12000, 16000, 24000]) {
    it(`decodes natively at ${rate} Hz with pre-skip and end trim scaled from 48 kHz units`, () => {
      const ref = readWav('opus/default-pages.ref.wav').samples;
      const { pcm, format } = decodeWhole('default-pages', { sampleRate: rate });
      expect(format).toEqual({ sampleRate: rate, channels: 1 });
      expect(pcm.length).toBe(Math.round((ref.length * rate) / 48000));
      // same loudness as the 48 kHz decode (speech energy sits below 4 kHz)
      const rms = (x: Int16Array) => Math.sqrt(x.reduce((a, v) => a + v * v, 0) / x.length);
      expect(rms(pcm) / rms(ref)).toBeGreaterThan(0.8);
      expect(rms(pcm) / rms(ref)).toBeLessThan(1.2);
    });
  }

  it('a rate libopus cannot decode to natively falls back to 48 kHz (resampled later)', () => {
    expect(new OggOpusDecoder({ sampleRate: 44100 }).sampleRate).toBe(48000);
  });

  it('MP3 bytes fed to the opus decoder are a typed OGG_BAD_CAPTURE, not noise', () => {
    const dec = new OggOpusDecoder();
    const r = dec.decode(fixture('mp3/lame-tag.mp3'));
    expect(r.pcm).toEqual([]);
    expect(r.errors[0]).toMatchObject({ code: 'OGG_BAD_CAPTURE', fatal: true });
  });

  it('createDecoder("opus") gives this decoder at the requested native rate', () => {
    const dec = createDecoder('opus', { outputSampleRate: 16000 });
    expect(dec.kind).toBe('opus');
    expect(((dec as FormatCheckDecoder).inner as OggOpusDecoder).sampleRate).toBe(16000);
  });

  it('reset() starts over on a new stream', () => {
    const dec = new OggOpusDecoder();
    dec.decode(fixture('opus/20ms-pages.opus').subarray(0, 5000));
    dec.reset();
    expect(collect(dec.decode(fixture('opus/default-pages.opus')), dec.flush()).pcm).toEqual(decodeWhole('default-pages').pcm);
  });
});

describe('OpusHead', () => {
  const head = (patch: (b: Buffer) => void = () => {}): Uint8Array => {
    const b = Buffer.alloc(19);
    b.write('OpusHead', 0, 'latin1');
    b[8] = 1; // version
    b[9] = 2; // channels
    b.writeUInt16LE(312, 10);
    b.writeUInt32LE(22050, 12);
    b.writeInt16LE(-1536, 16);
    b[18] = 0;
    patch(b);
    return new Uint8Array(b);
  };

  it('reads channels, pre-skip, input rate and output gain', () => {
    expect(parseOpusHead(head(), 0)).toEqual({ channels: 2, preSkip: 312, inputSampleRate: 22050, outputGain: -1536, mappingFamily: 0 });
  });

  it('opusHeadPacket writes the same 19 bytes field by field, and parseOpusHead reads them back', () => {
    const fields = { channels: 2, preSkip: 312, inputSampleRate: 22050, outputGain: -1536, mappingFamily: 0 };
    expect(Buffer.from(opusHeadPacket(fields)).toString('hex')).toBe(Buffer.from(head()).toString('hex'));
    expect(parseOpusHead(opusHeadPacket(fields), 0)).toEqual(fields);
  });

  it('opusTagsPacket: magic, vendor length and name, then zero user comments', () => {
    const tags = Buffer.from(opusTagsPacket('vw'));
    expect(isOpusTags(tags)).toBe(true);
    expect(tags.toString('hex')).toBe(Buffer.from('OpusTags').toString('hex') + '02000000' + '7677' + '00000000');
  });

  it('rejects a short head, an unknown major version and surround mappings with typed errors', () => {
    expect(() => parseOpusHead(head().subarray(0, 12), 5)).toThrow(expect.objectContaining({ code: 'OPUS_BAD_HEAD', byteOffset: 5 }));
    expect(() =>
      parseOpusHead(
        head((b) => (b[8] = 0x10)),
        0,
      ),
    ).toThrow(expect.objectContaining({ code: 'OPUS_BAD_HEAD' }));
    expect(() =>
      parseOpusHead(
        head((b) => ((b[18] = 1), (b[9] = 6))),
        0,
      ),
    ).toThrow(expect.objectContaining({ code: 'CODEC_UNSUPPORTED' }));
  });

  it('an Ogg stream whose first packet is not OpusHead is OPUS_BAD_HEAD', () => {
    const b = fixture('opus/default-pages.opus').slice();
    b[28] = 0x58; // "OpusHead" → "XpusHead" (and the CRC no longer matches: fix it)
    const view = new DataView(b.buffer);
    view.setUint32(22, 0, true);
    const len = 27 + b[26]! + b[27]!;
    view.setUint32(22, oggCrc(b.subarray(0, len)), true);
    const r = new OggOpusDecoder().decode(b);
    expect(r.pcm).toEqual([]);
    expect(r.errors[0]).toMatchObject({ code: 'OPUS_BAD_HEAD', fatal: true });
  });
});
