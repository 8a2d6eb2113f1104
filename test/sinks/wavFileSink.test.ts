import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createWavFileSink } from '../../src/sinks/WavFileSink.js';
import { SinkError, StreamInterruptedError } from '../../src/errors.js';
import type { PcmFrame } from '../../src/codec/types.js';

const RATE = 24000;
function frame(i: number, n = 480): PcmFrame {
  const samples = new Int16Array(n);
  for (let k = 0; k < n; k++) samples[k] = (i * 7 + k) % 1000;
  return { samples, encoding: 's16le', sampleRate: RATE, channels: 1, startSample: i * n, sampleCount: n };
}

/** Reads a canonical 44-byte s16le WAV header. */
function readWav(path: string): { rate: number; channels: number; riff: number; data: number; pcm: Int16Array; fileBytes: number } {
  const b = readFileSync(path);
  expect(b.toString('latin1', 0, 4)).toBe('RIFF');
  expect(b.toString('latin1', 8, 12)).toBe('WAVE');
  expect(b.toString('latin1', 36, 40)).toBe('data');
  const data = b.readUInt32LE(40);
  return {
    rate: b.readUInt32LE(24),
    channels: b.readUInt16LE(22),
    riff: b.readUInt32LE(4),
    data,
    pcm: new Int16Array(b.buffer.slice(b.byteOffset + 44, b.byteOffset + 44 + data)),
    fileBytes: b.length,
  };
}

const dir = mkdtempSync(join(tmpdir(), 'vw-wavsink-'));

describe('createWavFileSink', () => {
  it('writes every frame and fixes the header sizes on close', async () => {
    const path = join(dir, 'ok.wav');
    const frames = Array.from({ length: 10 }, (_, i) => frame(i));
    await pipeline(Readable.from(frames), createWavFileSink(path));
    const wav = readWav(path);
    expect(wav.rate).toBe(RATE);
    expect(wav.channels).toBe(1);
    expect(wav.data).toBe(10 * 480 * 2);
    expect(wav.riff).toBe(wav.fileBytes - 8);
    expect(Array.from(wav.pcm.subarray(480, 485))).toEqual(Array.from(frames[1]!.samples.subarray(0, 5)));
  });

  it('a stream that fails midway still leaves a valid WAV of the audio before the failure', async () => {
    const path = join(dir, 'failed.wav');
    const sink = createWavFileSink(path);
    for (let i = 0; i < 4; i++) await new Promise((r) => sink.write(frame(i), r));
    const errored = new Promise((r) => sink.once('error', r));
    const closed = new Promise((r) => sink.once('close', r)); // 'close' = header fixed
    sink.destroy(new StreamInterruptedError('connection cut'));
    expect(await errored).toBeInstanceOf(StreamInterruptedError);
    await closed;
    const wav = readWav(path);
    expect(wav.data).toBe(4 * 480 * 2);
    expect(wav.riff).toBe(wav.fileBytes - 8);
    expect(sink.durationSec).toBeCloseTo((4 * 480) / RATE);
  });

  it('an empty stream gives a valid empty WAV', async () => {
    const path = join(dir, 'empty.wav');
    await pipeline(Readable.from([]), createWavFileSink(path, { emptyFormat: { sampleRate: 16000, channels: 1 } }));
    const wav = readWav(path);
    expect(wav.data).toBe(0);
    expect(wav.rate).toBe(16000);
  });

  it('an unwritable path is a SinkError SINK_IO', async () => {
    const err = await pipeline(Readable.from([frame(0)]), createWavFileSink(join(dir, 'no', 'such', 'dir.wav'))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SinkError);
    expect((err as SinkError).code).toBe('SINK_IO');
  });

  it('a format change mid-stream is refused, and the file stays valid', async () => {
    const path = join(dir, 'mismatch.wav');
    const other = { ...frame(1), sampleRate: 8000 };
    const err = await pipeline(Readable.from([frame(0), other]), createWavFileSink(path)).catch((e: unknown) => e);
    expect((err as SinkError).code).toBe('FORMAT_MISMATCH');
    expect(readWav(path).data).toBe(480 * 2);
  });
});
