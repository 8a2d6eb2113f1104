/** The streaming WAV writer used by `voicewire decode` (and, later, the WAV file sink). */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WavDecoder } from '../../src/codec/WavDecoder.js';
import { WAV_SIZE_UNKNOWN, WavWriter, wavHeader, wavHeaderLength } from '../../src/sinks/WavWriter.js';

const dir = mkdtempSync(join(tmpdir(), 'voicewire-wavwriter-'));
const hasFfprobe = (() => {
  try {
    execFileSync('ffprobe', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasFfprobe) {
  // Loud on purpose: the independent reader check is the point of that test (apt-get install ffmpeg).
  console.warn('\n*** ffprobe not found: SKIPPING "ffprobe reads all three encodings" (apt-get install ffmpeg) ***\n');
}

function ffprobe(path: string): Record<string, string> {
  const out = execFileSync(
    'ffprobe',
    ['-v', 'error', '-show_entries', 'stream=codec_name,sample_rate,channels,duration_ts', '-of', 'default=nw=1', path],
    { encoding: 'utf8' },
  );
  return Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((l) => l.split('=') as [string, string]),
  );
}

describe('WavWriter', () => {
  it('stages small frames and passes large ones through, keeping every byte in order', async () => {
    const path = join(dir, 'batched.wav');
    const w = await WavWriter.open(path, { sampleRate: 8000, channels: 1 });
    const sizes = [160, 1, 40_000, 30_000, 100_000, 7, 65_536, 3]; // around the 64 KiB stage
    const expected: number[] = [];
    let next = 0;
    for (const n of sizes) {
      const frame = new Int16Array(n).map(() => (next++ % 65_536) - 32_768);
      expected.push(...frame);
      await w.write(frame);
    }
    await w.close();
    const bytes = readFileSync(path);
    expect(bytes.readUInt32LE(40)).toBe(expected.length * 2);
    const body = new Int16Array(bytes.buffer, bytes.byteOffset + 44, expected.length);
    expect(Array.from(body)).toEqual(expected);
  });

  it('writes s16le with a streaming header, fixed on close; our WavDecoder reads it back', async () => {
    const path = join(dir, 's16.wav');
    const w = await WavWriter.open(path, { sampleRate: 16000, channels: 1 });
    expect(readFileSync(path).readUInt32LE(40)).toBe(WAV_SIZE_UNKNOWN); // readable as "until the end" before close
    await w.write(Int16Array.from([1, 2, 3]));
    await w.write(Int16Array.from([-4]));
    await w.close();
    const bytes = readFileSync(path);
    expect(bytes.length).toBe(44 + 8);
    expect(bytes.readUInt32LE(4)).toBe(36 + 8);
    expect(bytes.readUInt32LE(40)).toBe(8);
    const d = new WavDecoder();
    const r = d.decode(bytes);
    expect(r.pcm.flatMap((b) => Array.from(b))).toEqual([1, 2, 3, -4]);
    expect([...r.errors, ...d.flush().errors]).toEqual([]);
    expect(d.format).toEqual({ sampleRate: 16000, channels: 1 });
  });

  it('headers for f32le (format 3) and μ-law (format 7) carry cbSize and a fact chunk', () => {
    const f32 = wavHeader({ sampleRate: 48000, channels: 2, encoding: 'f32le' }, 32);
    expect(f32.length).toBe(wavHeaderLength('f32le'));
    expect(f32.readUInt16LE(20)).toBe(3);
    expect(f32.readUInt16LE(32)).toBe(8); // block align
    expect(f32.toString('latin1', 38, 42)).toBe('fact');
    expect(f32.readUInt32LE(46)).toBe(4); // sample frames
    const mulaw = wavHeader({ sampleRate: 8000, channels: 1, encoding: 'mulaw' }, 161);
    expect(mulaw.readUInt16LE(20)).toBe(7);
    expect(mulaw.readUInt16LE(34)).toBe(8);
    expect(mulaw.readUInt32LE(4)).toBe(58 - 8 + 162); // odd data: the RIFF size counts the pad byte
  });

  it('an empty file gets the fallback format on close', async () => {
    const path = join(dir, 'empty.wav');
    const w = await WavWriter.open(path);
    await w.close({ sampleRate: 22050, channels: 1 });
    const bytes = readFileSync(path);
    expect(bytes.length).toBe(44);
    expect(bytes.readUInt32LE(24)).toBe(22050);
    expect(bytes.readUInt32LE(40)).toBe(0);
  });

  it.skipIf(!hasFfprobe)('ffprobe reads all three encodings', async () => {
    const cases = [
      ['s16le', Int16Array.from([0, 1000, -1000, 0]), 'pcm_s16le'],
      ['f32le', Float32Array.from([0, 0.5, -0.5, 0]), 'pcm_f32le'],
      ['mulaw', Uint8Array.from([0xff, 0x80, 0x00]), 'pcm_mulaw'],
    ] as const;
    for (const [encoding, samples, codec] of cases) {
      const path = join(dir, `${encoding}.wav`);
      const w = await WavWriter.open(path, { sampleRate: 8000, channels: 1, encoding });
      await w.write(samples);
      await w.close();
      expect(ffprobe(path)).toMatchObject({ codec_name: codec, sample_rate: '8000', channels: '1' });
    }
  });
});
