/**
 * Each injected fault, seen through voicewire's own client: the documented client-side error,
 * with what arrived before the fault still delivered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import {
  ApiTimeoutError,
  InternalServerError,
  RateLimitError,
  SpeechEventError,
  StreamInterruptedError,
  VoicewireError,
} from '../../src/errors.js';
import { startLocalService, type LocalService } from '../../src/service/index.js';

let svc: LocalService;
beforeAll(async () => {
  svc = await startLocalService();
});
afterAll(async () => {
  await svc.close();
});

const REQUEST = { text: 'One two three four five six seven eight nine ten.', format: 'pcm' as const, sample_rate: 8000 };

function client(extra: Record<string, unknown> = {}) {
  return createClient({ baseUrl: svc.baseUrl, apiKey: svc.token, sleep: async () => undefined, ...extra });
}

/** Drains a stream: frames counted, words kept, and the error it ended with (if any). */
async function drain(stream: NodeJS.ReadableStream & { on(e: string, l: (...a: any[]) => void): unknown }) {
  let samples = 0;
  const words: string[] = [];
  stream.on('word', (w: { text: string }) => words.push(w.text));
  let error: unknown = null;
  try {
    for await (const f of stream as AsyncIterable<{ sampleCount: number }>) samples += f.sampleCount;
  } catch (err) {
    error = err;
  }
  return { samples, words, error };
}

describe('faults through the client', () => {
  it('cut-after=N → StreamInterruptedError after the audio of N events', async () => {
    const { stream } = await client().tts.streamWithTimestamps(REQUEST, { headers: { 'x-voicewire-fault': 'cut-after=3' } });
    const r = await drain(stream);
    expect(r.error).toBeInstanceOf(StreamInterruptedError);
    expect(r.samples).toBeGreaterThan(0);
  });

  it('cut-inside=N → StreamInterruptedError (the half event is dropped, the whole ones delivered)', async () => {
    const { stream } = await client().tts.streamWithTimestamps(REQUEST, { headers: { 'x-voicewire-fault': 'cut-inside=2' } });
    const r = await drain(stream);
    expect(r.error).toBeInstanceOf(VoicewireError);
    expect((r.error as VoicewireError).code).toMatch(/STREAM_INTERRUPTED|SSE_TRUNCATED/);
    expect(r.samples).toBeGreaterThan(0);
  });

  it('delay-first-byte longer than timeoutMs → ApiTimeoutError', async () => {
    const err = await client({ timeoutMs: 100, maxRetries: 0 })
      .tts.streamWithTimestamps(REQUEST, { headers: { 'x-voicewire-fault': 'delay-first-byte=600' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiTimeoutError);
  });

  it('stall-after longer than idleTimeoutMs → ApiTimeoutError on the stream', async () => {
    const { stream } = await client({ idleTimeoutMs: 100 }).tts.streamWithTimestamps(REQUEST, {
      headers: { 'x-voicewire-fault': 'stall-after=2:600' },
    });
    const r = await drain(stream);
    expect(r.error).toBeInstanceOf(ApiTimeoutError);
  });

  it('segment-bytes=N → no error, the same words', async () => {
    const { stream } = await client().tts.streamWithTimestamps(
      { ...REQUEST, text: 'Tiny segments.' },
      { headers: { 'x-voicewire-fault': 'segment-bytes=16' } },
    );
    const r = await drain(stream);
    expect(r.error).toBeNull();
    expect(r.words).toEqual(['Tiny', 'segments']);
  });

  it('malformed=N → SpeechEventError by default, and a warning with every word under onInvalidEvent skip', async () => {
    const a = await client().tts.streamWithTimestamps(REQUEST, { headers: { 'x-voicewire-fault': 'malformed=2' } });
    const ra = await drain(a.stream);
    expect(ra.error).toBeInstanceOf(SpeechEventError);
    expect((ra.error as SpeechEventError).eventIndex).toBe(2);
    const b = await client().tts.streamWithTimestamps(REQUEST, { onInvalidEvent: 'skip', headers: { 'x-voicewire-fault': 'malformed=2' } });
    const warnings: unknown[] = [];
    b.stream.on('warning', (w) => warnings.push(w));
    const rb = await drain(b.stream);
    expect(rb.error).toBeNull();
    expect(warnings.length).toBeGreaterThan(0);
    expect(rb.words).toHaveLength(10);
  });

  it('fail=429:2 → retried (Retry-After honoured) and succeeds on the third attempt', async () => {
    const { stream, metrics } = await client({ maxRetries: 2 }).tts.streamWithTimestamps(REQUEST, {
      headers: { 'x-voicewire-fault': 'fail=429:2, retry-after=0', 'x-voicewire-attempt-key': `c-${Math.random()}` },
    });
    const r = await drain(stream);
    expect(r.error).toBeNull();
    expect(metrics.attempts).toBe(3);
  });

  it('fail beyond maxRetries → RateLimitError / InternalServerError with the status and reason', async () => {
    const a = await client({ maxRetries: 1 })
      .tts.streamWithTimestamps(REQUEST, {
        headers: { 'x-voicewire-fault': 'fail=429:5, retry-after=0', 'x-voicewire-attempt-key': `d-${Math.random()}` },
      })
      .catch((e: unknown) => e);
    expect(a).toBeInstanceOf(RateLimitError);
    expect(a).toMatchObject({ status: 429, reason: 'rate_limited' });
    const b = await client({ maxRetries: 0 })
      .tts.streamWithTimestamps(REQUEST, {
        headers: { 'x-voicewire-fault': 'fail=503:1', 'x-voicewire-attempt-key': `e-${Math.random()}` },
      })
      .catch((e: unknown) => e);
    expect(b).toBeInstanceOf(InternalServerError);
    expect(b).toMatchObject({ status: 503, reason: 'unavailable' });
  });
});
