/**
 * Bytes out: a real speech stream from the local service, through a FrameByteStream, into a real
 * file with `pipeline` — the file holds exactly the bytes of the frames, in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createClient } from '../../src/client/createClient.js';
import type { AudioFrame } from '../../src/codec/types.js';
import type { OutputOptions } from '../../src/engine/SpeechPipeline.js';
import { SinkError } from '../../src/errors.js';
import { startLocalService, type LocalService } from '../../src/service/index.js';
import { createFrameByteStream, frameBytes } from '../../src/sinks/index.js';

let service: LocalService;
let dir: string;
beforeAll(async () => {
  service = await startLocalService();
  dir = mkdtempSync(join(tmpdir(), 'vw-frame-bytes-'));
});
afterAll(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Speaks `text` into `file` through a FrameByteStream; returns a copy of every frame's samples. */
async function speakToFile(file: string, output?: OutputOptions) {
  const client = createClient({ baseUrl: service.baseUrl, apiKey: service.token });
  const { stream } = await client.tts.streamWithTimestamps(
    { text: 'Bytes out, frame by frame.', format: 'opus' },
    output ? { output } : {},
  );
  const copies: Buffer[] = [];
  const frames: AudioFrame[] = [];
  const bytes = createFrameByteStream();
  await pipeline(
    stream,
    async function* (source: AsyncIterable<AudioFrame>) {
      for await (const frame of source) {
        copies.push(Buffer.from(frame.samples.slice().buffer)); // the frame's own bytes, copied out
        frames.push(frame);
        yield frame;
      }
    },
    bytes,
    createWriteStream(file),
  );
  return { copies, frames, format: bytes.format };
}

describe('frame bytes', () => {
  it('a speech stream piped through createFrameByteStream() into a file holds exactly the frames’ bytes (s16le)', async () => {
    const file = join(dir, 'hello.pcm');
    const { copies, frames, format } = await speakToFile(file);
    expect(frames.length).toBeGreaterThan(10);
    const written = readFileSync(file);
    expect(written.length).toBe(frames.reduce((n, f) => n + f.sampleCount * f.channels * 2, 0));
    expect(written.equals(Buffer.concat(copies))).toBe(true);
    expect(format).toEqual({ encoding: 's16le', sampleRate: frames[0]!.sampleRate, channels: frames[0]!.channels });
  });

  it('μ-law output comes out one byte a sample, equal to the frames', async () => {
    const file = join(dir, 'hello.ulaw');
    const { copies, frames, format } = await speakToFile(file, { sampleRate: 8000, encoding: 'mulaw' });
    const written = readFileSync(file);
    expect(written.length).toBe(frames.reduce((n, f) => n + f.sampleCount, 0));
    expect(written.equals(Buffer.concat(copies))).toBe(true);
    expect(format).toEqual({ encoding: 'mulaw', sampleRate: 8000, channels: 1 });
  });

  it('frameBytes is a view of the frame’s own bytes, not of the slab around it', () => {
    const slab = new Int16Array([1, 2, 3, 4, 5, 6]);
    const frame: AudioFrame = {
      samples: slab.subarray(2, 4),
      encoding: 's16le',
      sampleRate: 8000,
      channels: 1,
      startSample: 0,
      sampleCount: 2,
    };
    const bytes = frameBytes(frame);
    expect([...bytes]).toEqual([3, 0, 4, 0]);
    expect(bytes.buffer).toBe(slab.buffer); // no copy
  });

  it('a frame in another format mid-stream fails the stream with FORMAT_MISMATCH after the bytes before it', async () => {
    const a: AudioFrame = {
      samples: new Int16Array([1, 2]),
      encoding: 's16le',
      sampleRate: 16000,
      channels: 1,
      startSample: 0,
      sampleCount: 2,
    };
    const b: AudioFrame = { ...a, samples: new Int16Array([3, 4]), sampleRate: 24000, startSample: 2 };
    const out: Buffer[] = [];
    const bytes = createFrameByteStream();
    bytes.on('data', (chunk: Buffer) => out.push(chunk));
    const failed = once(bytes, 'error').then(
      ([e]) => e as unknown,
      (e: unknown) => e,
    );
    bytes.write(a);
    bytes.write(b);
    const err = await failed;
    expect(err).toBeInstanceOf(SinkError);
    expect((err as SinkError).code).toBe('FORMAT_MISMATCH');
    expect(Buffer.concat(out)).toEqual(Buffer.from([1, 0, 2, 0]));
  });

  it('something that is not a frame fails the stream with a typed error, not a crash', async () => {
    const err = await pipeline(
      Readable.from([Buffer.from('not a frame')], { objectMode: true }),
      createFrameByteStream(),
      async (source: AsyncIterable<Buffer>) => {
        for await (const chunk of source) void chunk;
      },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SinkError);
    expect((err as SinkError).code).toBe('INVALID_OPTION');
  });
});
