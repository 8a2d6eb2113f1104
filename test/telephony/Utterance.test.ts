/**
 * Utterance: how it takes frames from its speech source. The engine's own stream is read through
 * `readFrame()` (no per-frame push through the Readable's buffer); any other Readable through
 * `read()`. Either way the line gets the same bytes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { AudioFrame } from '../../src/codec/types.js';
import { loadResampler } from '../../src/dsp/Resampler.js';
import { createSpeechPipeline } from '../../src/engine/SpeechPipeline.js';
import type { SpeechStream } from '../../src/telephony/speechSource.js';
import { Utterance, type UtteranceSink } from '../../src/telephony/Utterance.js';
import { CAPTURES } from '../engine/helpers.js';

const mulaw = { sampleRate: 8000, encoding: 'mulaw', channels: 1 } as const;
const marks = { markEveryFrames: 0, wordMarks: false };

/** A real Ogg Opus capture of the local service, its first ~20 % (cut at an event's end). */
function opusCapture(): Buffer {
  const body = readFileSync(join(CAPTURES, 'real', 'opus-low-long.sse'));
  return body.subarray(0, body.indexOf('\n\n', Math.floor(body.length * 0.2)) + 2);
}

/** Every frame the utterance sends, taken as the call does: nextFrame() until null, again on each wake. */
async function sendAll(u: Utterance, stream: SpeechStream, write: () => void): Promise<Uint8Array[]> {
  const media: Uint8Array[] = [];
  const sink: UtteranceSink = { sendMedia: (audio) => media.push(Uint8Array.from(audio)), sendMark: () => undefined };
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const drain = (): void => {
    for (let f = u.nextFrame(); f !== null; f = u.nextFrame()) u.sendFrame(f, sink);
    if (u.sourceDone) done();
  };
  u.attach(stream, { wake: drain, word: () => undefined, warning: () => undefined });
  write();
  drain();
  await finished;
  return media;
}

describe('Utterance frames', () => {
  it("takes the engine's frames with readFrame(), and the line gets the bytes read() gives", async () => {
    await loadResampler();
    const body = opusCapture();
    const pulled = createSpeechPipeline({ format: 'opus', output: mulaw, playhead: 'external' });
    const readFrame = vi.spyOn(pulled, 'readFrame');
    const read = vi.spyOn(pulled, 'read');
    const viaUtterance = await sendAll(new Utterance(1, { text: 'x' }, marks, () => undefined), pulled, () => pulled.end(body));
    expect(readFrame).toHaveBeenCalled();
    // read() only runs as readFrame()'s fallback for a frame already on the readable side: never
    // once per frame.
    expect(read.mock.calls.length).toBeLessThan(readFrame.mock.calls.length / 10);

    const reference = createSpeechPipeline({ format: 'opus', output: mulaw, playhead: 'external' });
    const frames: Uint8Array[] = [];
    reference.on('data', (f: AudioFrame) => frames.push(f.samples as Uint8Array));
    const ended = new Promise((r) => reference.once('end', r));
    reference.end(body);
    await ended;
    expect(Buffer.concat(viaUtterance)).toEqual(Buffer.concat(frames));
    expect(frames.length).toBeGreaterThan(100);
  });

  it('reads a source without readFrame() through read()', async () => {
    const frame = (i: number): AudioFrame => ({
      samples: new Uint8Array(160).fill(i),
      encoding: 'mulaw',
      sampleRate: 8000,
      channels: 1,
      startSample: i * 160,
      sampleCount: 160,
    });
    const source = Object.assign(Readable.from([frame(1), frame(2), frame(3)], { objectMode: true }), {
      playhead: { advanceTo: () => undefined },
    }) as unknown as SpeechStream;
    const read = vi.spyOn(source, 'read');
    const media = await sendAll(new Utterance(2, { text: 'x' }, marks, () => undefined), source, () => undefined);
    expect(read).toHaveBeenCalled();
    expect(Buffer.concat(media)).toEqual(Buffer.concat([frame(1).samples, frame(2).samples, frame(3).samples] as Uint8Array[]));
  });
});
