import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEventAudioReader } from '../../src/cli/eventAudio.js';
import { SpeechEventError } from '../../src/errors.js';
import { capture, events, sse } from '../engine/helpers.js';

/** Every event's audio, as the reader hands it out for these body chunks. */
function read(parts: Uint8Array[]): { audio: Buffer; indexes: number[]; error: unknown } {
  const out: Buffer[] = [];
  const indexes: number[] = [];
  const reader = createEventAudioReader((audio, index) => {
    out.push(audio);
    indexes.push(index);
  });
  let error: unknown = null;
  try {
    for (const p of parts) reader.feed(p);
    reader.end();
  } catch (err) {
    error = err;
  }
  return { audio: Buffer.concat(out), indexes, error };
}

const wireAudio = (name: string): Buffer => Buffer.concat(events(name).map((e) => Buffer.from(e.audio_base64, 'base64')));

describe('createEventAudioReader', () => {
  it('hands out the audio of every event, in order, however the body is split', () => {
    for (const name of ['speech.wav.sse', 'speech.pcm.sse']) {
      const body = capture(name);
      const want = wireAudio(name);
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 0, max: body.length }), { maxLength: 12 }), (cuts) => {
          const at = [0, ...cuts.sort((a, b) => a - b), body.length];
          const parts = at.slice(1).map((end, i) => body.subarray(at[i], end));
          const r = read(parts);
          expect(r.error).toBeNull();
          expect(r.audio.equals(want)).toBe(true);
        }),
        { numRuns: 50 },
      );
    }
  });

  it('a bad event throws its typed error naming the event; audio before it was handed out, nothing after', () => {
    const evs = events('speech.pcm.sse');
    const body = sse([...evs.slice(0, 5), 'data: {"audio_base64": 12}\n\n', ...evs.slice(5)]);
    const r = read([body]);
    expect(r.error).toBeInstanceOf(SpeechEventError);
    expect((r.error as SpeechEventError).eventIndex).toBe(5);
    expect(r.audio.equals(Buffer.concat(evs.slice(0, 5).map((e) => Buffer.from(e.audio_base64, 'base64'))))).toBe(true);
  });

  it('an event cut off by the end of the body is dropped, as the engine drops it', () => {
    const evs = events('speech.pcm.sse');
    const whole = sse(evs.slice(0, 3));
    const cut = Buffer.concat([whole, sse(evs.slice(3, 4)).subarray(0, 40)]);
    expect(read([cut]).audio.equals(read([whole]).audio)).toBe(true);
  });
});
