import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/decode.js';
import { sse } from '../engine/helpers.js';
import { fixture } from './audioFixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'voicewire-codec-cli-'));

function capture(name: string, audio: Uint8Array): string {
  const path = join(dir, name);
  const events = [];
  for (let at = 0; at < audio.length; at += 4000) {
    events.push({
      audio_base64: Buffer.from(audio.subarray(at, at + 4000)).toString('base64'),
      content: '',
      alignment: null,
      chunk_seq: 0,
      chunk_audio_offset_sec: 0,
    });
  }
  writeFileSync(path, sse(events));
  return path;
}

function wavInfo(path: string): { tag: number; rate: number; channels: number; bits: number; dataBytes: number } {
  const b = readFileSync(path);
  let p = 12;
  let info = { tag: 0, rate: 0, channels: 0, bits: 0, dataBytes: 0 };
  while (p + 8 <= b.length) {
    const id = b.toString('latin1', p, p + 4);
    const n = b.readUInt32LE(p + 4);
    if (id === 'fmt ')
      info = {
        ...info,
        tag: b.readUInt16LE(p + 8),
        channels: b.readUInt16LE(p + 10),
        rate: b.readUInt32LE(p + 12),
        bits: b.readUInt16LE(p + 22),
      };
    if (id === 'data') return { ...info, dataBytes: n };
    p += 8 + n + (n & 1);
  }
  throw new Error('no data chunk');
}

const quiet = async (argv: string[]): Promise<number> => {
  const out = process.stdout.write;
  const err = process.stderr.write;
  process.stdout.write = (() => true) as typeof out;
  process.stderr.write = (() => true) as typeof err;
  try {
    return await run(argv);
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
};

describe('voicewire decode with --format opus|mp3, --resample, --encoding', () => {
  const opus = capture('opus.sse', fixture('opus/default-pages.opus'));
  const mp3 = capture('mp3.sse', fixture('mp3/lame-tag.mp3'));

  it('--format opus writes a 48 kHz 16-bit WAV', async () => {
    const out = join(dir, 'a.wav');
    expect(await quiet([opus, '--format', 'opus', '--out', out])).toBe(0);
    expect(wavInfo(out)).toEqual({ tag: 1, rate: 48000, channels: 1, bits: 16, dataBytes: 133552 * 2 });
  });

  it('--resample 8000 --encoding mulaw writes a G.711 WAV (format 7)', async () => {
    const out = join(dir, 'b.wav');
    expect(await quiet([opus, '--format', 'opus', '--resample', '8000', '--encoding', 'mulaw', '--out', out])).toBe(0);
    expect(wavInfo(out)).toEqual({ tag: 7, rate: 8000, channels: 1, bits: 8, dataBytes: Math.round(133552 / 6) });
  });

  it('--format mp3 --encoding f32le writes a float WAV (format 3)', async () => {
    const out = join(dir, 'c.wav');
    expect(await quiet([mp3, '--format', 'mp3', '--encoding', 'f32le', '--out', out])).toBe(0);
    expect(wavInfo(out)).toEqual({ tag: 3, rate: 22050, channels: 1, bits: 32, dataBytes: 61350 * 4 });
  });

  it('--format mp3 --resample 16000 resamples the 22.05 kHz stream', async () => {
    const out = join(dir, 'd.wav');
    expect(await quiet([mp3, '--format', 'mp3', '--resample', '16000', '--out', out])).toBe(0);
    expect(wavInfo(out)).toMatchObject({ tag: 1, rate: 16000, dataBytes: Math.round((61350 * 16000) / 22050) * 2 });
  });

  it('a bad --encoding or --resample is a usage error (exit 2)', async () => {
    expect(await quiet([opus, '--format', 'opus', '--encoding', 'g722', '--out', join(dir, 'e.wav')])).toBe(2);
    expect(await quiet([opus, '--format', 'opus', '--resample', 'fast', '--out', join(dir, 'e.wav')])).toBe(2);
  });

  it('opus audio declared as mp3 is bad input (exit 1) with FORMAT_MISMATCH', async () => {
    expect(await quiet([opus, '--format', 'mp3', '--out', join(dir, 'f.wav')])).toBe(1);
  });
});
