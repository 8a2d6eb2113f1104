import { describe, expect, it } from 'vitest';
import { checkDeclaredFormat, sniffContainer } from '../../src/codec/sniff.js';
import { collect, fixture } from './audioFixtures.js';
import { createDecoder } from '../../src/codec/createDecoder.js';
import { OggOpusDecoder } from '../../src/codec/OpusDecoder.js';

const wavBytes = fixture('opus/default-pages.ref.wav');
const oggBytes = fixture('opus/default-pages.opus');
const id3Bytes = fixture('mp3/id3v2.mp3');
const mp3Bytes = fixture('mp3/lame-tag.mp3');

describe('format check', () => {
  it('recognises Ogg, RIFF, ID3 and a bare MPEG frame sync', () => {
    expect(sniffContainer(oggBytes)).toBe('ogg');
    expect(sniffContainer(wavBytes)).toBe('wav');
    expect(sniffContainer(id3Bytes)).toBe('mp3');
    expect(sniffContainer(mp3Bytes)).toBe('mp3');
    expect(sniffContainer(new Uint8Array([1, 2, 3, 4]))).toBe('unknown');
  });

  it('waits for 4 bytes before deciding', () => {
    expect(checkDeclaredFormat('opus', oggBytes.subarray(0, 3))).toBeUndefined();
  });

  it('a matching declaration passes', () => {
    expect(checkDeclaredFormat('opus', oggBytes)).toBeNull();
    expect(checkDeclaredFormat('mp3', id3Bytes)).toBeNull();
    expect(checkDeclaredFormat('mp3', mp3Bytes)).toBeNull();
    expect(checkDeclaredFormat('wav', wavBytes)).toBeNull();
    expect(checkDeclaredFormat('pcm', new Uint8Array([0, 0, 0xff, 0xff]))).toBeNull();
    // a PCM sample pair can look like a frame sync: not flagged
    expect(checkDeclaredFormat('pcm', new Uint8Array([0xff, 0xfb, 0x90, 0x00]))).toBeNull();
  });

  it.each([
    ['mp3', oggBytes, /Ogg/],
    ['opus', id3Bytes, /MP3/],
    ['opus', wavBytes, /RIFF/],
    ['wav', mp3Bytes, /MP3/],
    ['pcm', oggBytes, /Ogg/],
    ['mp3', new Uint8Array([0, 0, 0, 0]), /no known signature/],
  ] as const)('declared %s with other bytes is a typed FORMAT_MISMATCH', (declared, bytes, what) => {
    const e = checkDeclaredFormat(declared, bytes);
    expect(e).toMatchObject({ code: 'FORMAT_MISMATCH', field: 'format', byteOffset: 0, fatal: true });
    expect(e!.message).toMatch(what);
  });
});

describe('createDecoder runs the format check first', () => {
  it('Ogg bytes declared as mp3 are FORMAT_MISMATCH and nothing is decoded (never noise)', async () => {
    const dec = createDecoder('mp3');
    await dec.ready;
    const r = dec.decode(oggBytes);
    expect(r.pcm).toEqual([]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ code: 'FORMAT_MISMATCH', fatal: true });
    expect(dec.decode(oggBytes)).toEqual({ pcm: [], errors: [] });
    expect(dec.flush()).toEqual({ pcm: [], errors: [] });
  });

  it('a signature split over 1-byte writes is still checked, and good audio passes through whole', () => {
    const dec = createDecoder('opus');
    const parts = [];
    for (let i = 0; i < 6; i++) parts.push(dec.decode(oggBytes.subarray(i, i + 1)));
    parts.push(dec.decode(oggBytes.subarray(6)), dec.flush());
    const direct = new OggOpusDecoder();
    const expected = collect(direct.decode(oggBytes), direct.flush());
    expect(collect(...parts)).toEqual(expected);
  });

  it('a WAV declared as opus fails at byte 0 even when the first write is 2 bytes', () => {
    const dec = createDecoder('opus');
    expect(dec.decode(wavBytes.subarray(0, 2)).errors).toEqual([]);
    expect(dec.decode(wavBytes.subarray(2)).errors[0]).toMatchObject({ code: 'FORMAT_MISMATCH' });
  });
});
