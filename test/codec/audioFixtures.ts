import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DecodedAudio } from '../../src/codec/types.js';

/** Test helpers for the committed fixtures (made by test/fixtures/regenerate.sh). */
export const fixture = (path: string): Uint8Array =>
  new Uint8Array(readFileSync(fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url))));

/** The data chunk of a 16-bit PCM WAV (opusdec and ffmpeg write extra chunks; skip them). */
export function readWav(path: string): { sampleRate: number; channels: number; samples: Int16Array } {
  const b = Buffer.from(fixture(path));
  let p = 12;
  let sampleRate = 0;
  let channels = 0;
  while (p + 8 <= b.length) {
    const id = b.toString('latin1', p, p + 4);
    const n = b.readUInt32LE(p + 4);
    if (id === 'fmt ') {
      channels = b.readUInt16LE(p + 10);
      sampleRate = b.readUInt32LE(p + 12);
    }
    if (id === 'data') {
      const bytes = b.subarray(p + 8, p + 8 + n);
      return { sampleRate, channels, samples: new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)) };
    }
    p += 8 + n + (n & 1);
  }
  throw new Error(`no data chunk in ${path}`);
}

export function concat(parts: readonly Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((a, x) => a + x.length, 0));
  let o = 0;
  for (const x of parts) {
    out.set(x, o);
    o += x.length;
  }
  return out;
}

export function collect(...results: DecodedAudio[]): { pcm: Int16Array; errors: DecodedAudio['errors'] } {
  return { pcm: concat(results.flatMap((r) => r.pcm)), errors: results.flatMap((r) => r.errors) };
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

/** SNR in dB of `test` against `ref` (Infinity when identical). */
export function snrDb(ref: ArrayLike<number>, test: ArrayLike<number>): number {
  let signal = 0;
  let noise = 0;
  for (let i = 0; i < ref.length; i++) {
    signal += ref[i]! ** 2;
    noise += (ref[i]! - (test[i] ?? 0)) ** 2;
  }
  return noise === 0 ? Infinity : 10 * Math.log10(signal / noise);
}
