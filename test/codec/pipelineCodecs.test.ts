import { describe, expect, it } from 'vitest';
import { createSpeechPipeline } from '../../src/engine/SpeechPipeline.js';
import { runPipeline, splitRandom, sse, type WireEvent } from '../engine/helpers.js';
import { fixture, maxAbsDiff, readWav } from './audioFixtures.js';
import { dropPage } from './oggPages.js';

/** An SSE body carrying `audio` cut into events of varying size (one chunk_seq). */
function speechBody(audio: Uint8Array, eventBytes = 3000): Buffer {
  const events: WireEvent[] = [];
  for (let at = 0, i = 0; at < audio.length; i++) {
    const n = eventBytes + ((i * 977) % 1500);
    events.push({
      audio_base64: Buffer.from(audio.subarray(at, at + n)).toString('base64'),
      content: '',
      alignment: null,
      chunk_seq: 0,
      chunk_audio_offset_sec: 0,
    });
    at += n;
  }
  return sse(events);
}

describe('the pipeline with the opus and mp3 decoders and the conversion stage', () => {
  it('opus: the same samples as opusdec, in 20 ms frames', async () => {
    const ref = readWav('opus/default-pages.ref.wav').samples;
    const r = await runPipeline(createSpeechPipeline({ format: 'opus' }), splitRandom(speechBody(fixture('opus/default-pages.opus')), 7));
    expect(r.error).toBeNull();
    expect(r.pcm.length).toBe(ref.length);
    expect(maxAbsDiff(r.pcm, ref)).toBeLessThanOrEqual(1);
    expect(r.frames[0]!.sampleCount).toBe(960);
  });

  it('opus: a request sample_rate is checked against the OpusHead input rate, not the 48 kHz decode rate', async () => {
    const body = speechBody(fixture('opus/default-pages.opus')); // encoded from 22050 Hz speech
    const warningsFor = async (sampleRate: number): Promise<string[]> => {
      const warnings: string[] = [];
      const pipeline = createSpeechPipeline({ format: 'opus', sampleRate });
      pipeline.on('warning', (w: Error) => warnings.push(w.message));
      expect((await runPipeline(pipeline, [body])).error).toBeNull();
      return warnings;
    };
    expect(await warningsFor(22050)).toEqual([]);
    expect(await warningsFor(16000)).toEqual([expect.stringMatching(/asked for 16000 Hz but the opus stream is 22050 Hz/)]);
  });

  it("opus: a chained stream (one Ogg stream per text chunk) gives opusdec's samples through the pipeline", async () => {
    const ref = readWav('opus/chained.ref.wav').samples;
    const r = await runPipeline(createSpeechPipeline({ format: 'opus' }), splitRandom(speechBody(fixture('opus/chained.opus'), 1000), 5));
    expect(r.error).toBeNull();
    expect(r.pcm.length).toBe(ref.length);
    expect(maxAbsDiff(r.pcm, ref)).toBeLessThanOrEqual(1);
  });

  it('opus: a lost Ogg page follows onInvalidEvent: a warning and the length kept (skip), an error after the audio before it (fail)', async () => {
    const ref = readWav('opus/20ms-pages.ref.wav').samples;
    const body = speechBody(dropPage(fixture('opus/20ms-pages.opus'), 40));
    const skipped = await runPipeline(createSpeechPipeline({ format: 'opus', onInvalidEvent: 'skip' }), splitRandom(body, 11));
    expect(skipped.error).toBeNull();
    expect(skipped.warnings).toEqual([
      expect.objectContaining({ code: 'OGG_PAGE_SEQUENCE', expectedSequence: 40, foundSequence: 41, fatal: false }),
    ]);
    expect(skipped.pcm.length).toBe(ref.length);
    const failed = await runPipeline(createSpeechPipeline({ format: 'opus' }), splitRandom(body, 11));
    expect(failed.error).toMatchObject({ code: 'OGG_PAGE_SEQUENCE', expectedSequence: 40, foundSequence: 41, fatal: true });
    // the audio of the 38 packets before the lost page still came out, as opusdec decodes it
    expect(failed.pcm.length).toBe(38 * 960 - 312);
    expect(maxAbsDiff(failed.pcm, ref)).toBeLessThanOrEqual(1);
  });

  it('opus → 8 kHz μ-law: 160-byte frames, decoded natively at 8 kHz, output-sample indices', async () => {
    const ref = readWav('opus/stereo.ref.wav').samples;
    const pipeline = createSpeechPipeline({ format: 'opus', output: { sampleRate: 8000, encoding: 'mulaw', channels: 1 } });
    const r = await runPipeline(pipeline, splitRandom(speechBody(fixture('opus/stereo.opus')), 3));
    expect(r.error).toBeNull();
    const bytes = r.frames.reduce((n, f) => n + f.samples.length, 0);
    expect(bytes).toBe(Math.round(ref.length / 2 / 6));
    expect(r.frames.slice(0, -1).every((f) => f.samples instanceof Uint8Array && f.samples.length === 160)).toBe(true);
    expect(r.frames.map((f) => f.startSample)).toEqual(r.frames.map((_, i) => i * 160));
    expect(pipeline.format).toEqual({ sampleRate: 8000, channels: 1, encoding: 'mulaw' });
  });

  it('opus → 44.1 kHz (not a libopus rate): decoded at 48 kHz, resampled to the exact count', async () => {
    const ref = readWav('opus/default-pages.ref.wav').samples;
    const pipeline = createSpeechPipeline({ format: 'opus', output: { sampleRate: 44100 } });
    const r = await runPipeline(pipeline, [speechBody(fixture('opus/default-pages.opus'))]);
    expect(r.error).toBeNull();
    expect(r.pcm.length).toBe(Math.round((ref.length * 44100) / 48000));
    expect(r.frames[0]!.sampleCount).toBe(882);
  });

  it('mp3 22.05 kHz → 16 kHz f32 via the resampler: exact output count', async () => {
    const ref = readWav('mp3/lame-tag.ref.wav');
    const r = await runPipeline(createSpeechPipeline({ format: 'mp3', output: { sampleRate: 16000, encoding: 'f32le' } }), [
      speechBody(fixture('mp3/lame-tag.mp3')),
    ]);
    expect(r.error).toBeNull();
    expect(r.frames.reduce((n, f) => n + f.sampleCount, 0)).toBe(Math.round((ref.samples.length * 16000) / ref.sampleRate));
    expect(r.frames[0]!.samples).toBeInstanceOf(Float32Array);
  });

  it('mp3: the same sample count as ffmpeg', async () => {
    const ref = readWav('mp3/id3v2.ref.wav').samples;
    const r = await runPipeline(createSpeechPipeline({ format: 'mp3' }), splitRandom(speechBody(fixture('mp3/id3v2.mp3')), 11));
    expect(r.error).toBeNull();
    expect(r.pcm.length).toBe(ref.length);
    expect(maxAbsDiff(r.pcm, ref)).toBeLessThanOrEqual(1);
  });

  it('Ogg audio declared as mp3 ends the stream with FORMAT_MISMATCH and no frames (never noise)', async () => {
    const r = await runPipeline(createSpeechPipeline({ format: 'mp3' }), [speechBody(fixture('opus/default-pages.opus'))]);
    expect(r.frames).toEqual([]);
    expect(r.error).toMatchObject({ code: 'FORMAT_MISMATCH' });
  });
});
