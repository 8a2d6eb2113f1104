/**
 * One bad-input test per error code, through the whole pipeline: the stream ends with the typed
 * error, and the audio and words from the events before the fault are still delivered first.
 */
import { describe, expect, it } from 'vitest';
import { createSpeechPipeline, type SpeechPipelineOptions } from '../../src/engine/SpeechPipeline.js';
import { audioBytes, events, expected, runPipeline, splitRandom, sse, type RunResult, type WireEvent } from './helpers.js';

const RATE = 22050;
const PCM: SpeechPipelineOptions = { format: 'pcm', sampleRate: RATE };
/** The fault goes in at this event: in chunk 1, after chunk 0's words and audio. */
const AT = 20;

let reference: Int16Array | null = null;
async function referencePcm(): Promise<Int16Array> {
  reference ??= (await runPipeline(createSpeechPipeline(PCM), [sse(events('speech.pcm.sse'))])).pcm;
  return reference;
}

async function runBad(options: SpeechPipelineOptions, body: Buffer): Promise<RunResult> {
  return runPipeline(createSpeechPipeline(options), splitRandom(body, 11, 3000));
}

/** The earlier audio (all of it, exactly) and the earlier words were delivered before the error. */
async function expectEarlierDelivered(r: RunResult, before: WireEvent[]): Promise<void> {
  const samples = Math.floor(audioBytes(before) / 2);
  expect(r.pcm.length).toBe(samples);
  expect(Array.from(r.pcm)).toEqual(Array.from((await referencePcm()).subarray(0, samples)));
  const heard = samples / RATE;
  const earlierWords = expected.words.filter((w) => w.chunk_seq === 0 && w.start < heard);
  expect(earlierWords.length).toBeGreaterThan(0);
  expect(r.words.map((w) => w.text)).toEqual(expect.arrayContaining(earlierWords.map((w) => w.text)));
  expect(r.order).toEqual(['error']);
}

function withBadEvent(bad: string): { body: Buffer; before: WireEvent[] } {
  const evs = events('speech.pcm.sse');
  const before = evs.slice(0, AT);
  return { body: sse([...before, bad, ...evs.slice(AT)]), before };
}
const event = (o: object) => `data: ${JSON.stringify(o)}\n\n`;
const good = (): WireEvent => events('speech.pcm.sse')[AT]!;

describe('bad input ends the stream with a typed error after the earlier audio and words', () => {
  it('SSE_TRUNCATED: the body ends inside an event', async () => {
    const evs = events('speech.pcm.sse');
    const before = evs.slice(0, AT);
    const cut = sse(evs.slice(0, AT + 1));
    const r = await runBad(PCM, cut.subarray(0, cut.length - 100));
    expect(r.error).toMatchObject({ code: 'SSE_TRUNCATED' });
    await expectEarlierDelivered(r, before);
  });

  it('SSE_LINE_TOO_LONG / SSE_EVENT_TOO_LARGE: an event over maxEventBytes', async () => {
    const { body, before } = withBadEvent(event({ ...good(), audio_base64: 'AAAA'.repeat(10000) }));
    const r = await runBad({ ...PCM, maxEventBytes: 30000 }, body);
    expect(['SSE_LINE_TOO_LONG', 'SSE_EVENT_TOO_LARGE']).toContain(r.error?.code);
    await expectEarlierDelivered(r, before);
  });

  it('EVENT_INVALID_JSON names the event index', async () => {
    const { body, before } = withBadEvent('data: {"audio_base64": "AAAA", oops}\n\n');
    const r = await runBad(PCM, body);
    expect(r.error).toMatchObject({ code: 'EVENT_INVALID_JSON', eventIndex: AT });
    await expectEarlierDelivered(r, before);
  });

  it('EVENT_WRONG_TYPE names the field', async () => {
    const { body, before } = withBadEvent(event({ ...good(), chunk_seq: '1' }));
    const r = await runBad(PCM, body);
    expect(r.error).toMatchObject({ code: 'EVENT_WRONG_TYPE', eventIndex: AT, field: 'chunk_seq' });
    await expectEarlierDelivered(r, before);
  });

  it('EVENT_MISSING_FIELD names the field', async () => {
    const { audio_base64: _drop, ...rest } = good();
    const { body, before } = withBadEvent(event(rest));
    const r = await runBad(PCM, body);
    expect(r.error).toMatchObject({ code: 'EVENT_MISSING_FIELD', eventIndex: AT, field: 'audio_base64' });
    await expectEarlierDelivered(r, before);
  });

  it('EVENT_NEGATIVE_VALUE: a negative chunk_audio_offset_sec', async () => {
    const { body, before } = withBadEvent(event({ ...good(), chunk_audio_offset_sec: -1 }));
    const r = await runBad(PCM, body);
    expect(r.error).toMatchObject({ code: 'EVENT_NEGATIVE_VALUE', eventIndex: AT, field: 'chunk_audio_offset_sec' });
    await expectEarlierDelivered(r, before);
  });

  it('AUDIO_BAD_BASE64: garbage that Buffer.from would silently accept', async () => {
    const { body, before } = withBadEvent(event({ ...good(), audio_base64: 'AAAA*AAA' }));
    const r = await runBad(PCM, body);
    expect(r.error).toMatchObject({ code: 'AUDIO_BAD_BASE64', eventIndex: AT });
    await expectEarlierDelivered(r, before);
  });

  it('ALIGNMENT_BAD_SHAPE: a segment with start > end', async () => {
    const { body, before } = withBadEvent(
      event({ ...good(), alignment: { audio_duration: 1, segments: [{ text: 'x', start: 0.5, end: 0.1 }] } }),
    );
    const r = await runBad(PCM, body);
    expect(r.error).toMatchObject({ code: 'ALIGNMENT_BAD_SHAPE', eventIndex: AT });
    await expectEarlierDelivered(r, before);
  });

  it("onInvalidEvent 'skip': the bad event becomes a warning and the stream goes on", async () => {
    const { body } = withBadEvent(event({ ...good(), chunk_seq: 'x' }));
    const r = await runBad({ ...PCM, onInvalidEvent: 'skip' }, body);
    expect(r.error).toBeNull();
    expect(r.warnings.map((w) => w.code)).toContain('EVENT_WRONG_TYPE');
    expect(r.words.map((w) => w.text)).toEqual(expected.words.map((w) => w.text));
  });
});

describe('bad WAV input through the pipeline', () => {
  /** The wav-per-chunk capture with chunk 1's first audio bytes (its RIFF header) edited. */
  function editSecondHeader(edit: (header: Buffer) => void): { body: Buffer; before: WireEvent[]; samplesBefore: number } {
    const evs = events('speech.wav-per-chunk.sse');
    const k = evs.findIndex((e) => e.chunk_seq === 1);
    const audio = Buffer.from(evs[k]!.audio_base64, 'base64');
    edit(audio);
    const edited = [...evs.slice(0, k), { ...evs[k]!, audio_base64: audio.toString('base64') }, ...evs.slice(k + 1)];
    return { body: sse(edited), before: evs.slice(0, k), samplesBefore: expected.chunks[0]!.samples };
  }

  async function expectChunk0(r: RunResult, samplesBefore: number): Promise<void> {
    expect(r.pcm.length).toBe(samplesBefore);
    expect(Array.from(r.pcm)).toEqual(Array.from((await referencePcm()).subarray(0, samplesBefore)));
    expect(r.words.map((w) => w.text)).toEqual(expected.words.filter((w) => w.chunk_seq === 0).map((w) => w.text));
    expect(r.order).toEqual(['error']);
  }

  it('WAV_BAD_HEADER: the next WAV does not start with RIFF', async () => {
    const { body, samplesBefore } = editSecondHeader((h) => h.write('RIFX', 0, 'latin1'));
    const r = await runBad({ format: 'wav' }, body);
    expect(r.error).toMatchObject({ code: 'WAV_BAD_HEADER', byteOffset: samplesBefore * 2 + 44 });
    await expectChunk0(r, samplesBefore);
  });

  it('WAV_UNSUPPORTED: the next WAV is A-law', async () => {
    const { body, samplesBefore } = editSecondHeader((h) => h.writeUInt16LE(6, 44)); // extensible sub-format
    const r = await runBad({ format: 'wav' }, body);
    expect(r.error).toMatchObject({ code: 'WAV_UNSUPPORTED' });
    await expectChunk0(r, samplesBefore);
  });

  it('FORMAT_MISMATCH: the next WAV has another sample rate', async () => {
    const { body, samplesBefore } = editSecondHeader((h) => h.writeUInt32LE(16000, 24));
    const r = await runBad({ format: 'wav' }, body);
    expect(r.error).toMatchObject({ code: 'FORMAT_MISMATCH' });
    await expectChunk0(r, samplesBefore);
  });

  it('AUDIO_TRUNCATED: the stream ends before the declared data size', async () => {
    const evs = events('speech.wav-per-chunk.sse');
    const kept = evs.slice(0, -4).filter((e) => e.audio_base64 !== '' || e.chunk_seq === 0);
    const r = await runBad({ format: 'wav' }, sse(kept));
    expect(r.error).toMatchObject({ code: 'AUDIO_TRUNCATED' });
    const samples = Math.floor((audioBytes(kept) - 44 - 68) / 2); // two headers: plain (44) and extensible (68); a split sample is dropped
    expect(r.pcm.length).toBe(samples);
    expect(Array.from(r.pcm)).toEqual(Array.from((await referencePcm()).subarray(0, samples)));
    expect(r.words.length).toBeGreaterThan(3);
  });

  it('an odd trailing byte in pcm is a warning (AUDIO_TRUNCATED, not fatal)', async () => {
    const evs = events('speech.pcm.sse');
    const body = sse([...evs, { ...evs[0]!, audio_base64: 'AA==', alignment: null }]);
    const r = await runBad(PCM, body);
    expect(r.error).toBeNull();
    expect(r.warnings.map((w) => [w.code, (w as { fatal?: boolean }).fatal])).toEqual([['AUDIO_TRUNCATED', false]]);
    expect(r.pcm.length).toBe(expected.samples);
  });
});
