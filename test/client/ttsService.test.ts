/**
 * The speech client against the real local service, with its fault injection header
 * (`x-voicewire-fault`, see src/service/faults.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/createClient.js';
import { startLocalService, FAULT_HEADER, type LocalService } from '../../src/service/index.js';
import {
  ApiError,
  ApiTimeoutError,
  PermissionDeniedError,
  AuthenticationError,
  InternalServerError,
  SpeechEventError,
  StreamInterruptedError,
} from '../../src/errors.js';
import { drain } from './ttsLoopbackServer.js';

let service: LocalService;
beforeAll(async () => {
  service = await startLocalService();
});
afterAll(async () => {
  await service?.close();
});

const LONG = 'The first sentence is here. A second sentence follows it. Then a third one comes along. And a fourth one ends it.';

function client(extra: Parameters<typeof createClient>[0] = {}) {
  const sleeps: number[] = [];
  const c = createClient({
    baseUrl: service.baseUrl,
    apiKey: service.token,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...extra,
  });
  return Object.assign(c, { sleeps });
}

const fault = (f: string) => ({ headers: { [FAULT_HEADER]: f } });

describe('speech client against the local service', () => {
  it('streams real speech with words, a request id and the model used', async () => {
    const { stream, response, metrics } = await client().tts.streamWithTimestamps(
      { text: 'Hello there.', format: 'opus' },
      { model: 'no-such-model' },
    );
    expect(response.status).toBe(200);
    expect(response.requestId).toBeTruthy();
    expect(response.model).toBe('s2.1-pro'); // the service fell back
    const out = await drain(stream);
    expect(out.error).toBeNull();
    expect(out.words).toEqual(['Hello', 'there']);
    expect(metrics.firstFrameMs).not.toBeNull();
    expect(metrics.realTimeFactor!).toBeGreaterThan(0);
  });

  it('a 503 on the first attempt is retried after its Retry-After, before any body byte', async () => {
    const c = client();
    const { stream, metrics } = await c.tts.streamWithTimestamps(
      { text: 'Retry me.', format: 'pcm', sample_rate: 16000 },
      fault('fail=503:1, retry-after=1'),
    );
    expect((await drain(stream)).words).toEqual(['Retry', 'me']);
    expect(metrics.attempts).toBe(2);
    expect(c.sleeps).toEqual([1000]);
  });

  it('a 429 with Retry-After 0 is retried at once', async () => {
    const c = client();
    const { metrics, stream } = await c.tts.streamWithTimestamps(
      { text: 'Rate limited.', format: 'wav' },
      fault('fail=429:2, retry-after=0'),
    );
    await drain(stream);
    expect(metrics.attempts).toBe(3);
    expect(c.sleeps).toEqual([0, 0]);
  });

  it('5xx on every attempt ends as InternalServerError with the request id', async () => {
    const c = client({ maxRetries: 1 });
    const err = await c.tts
      .streamWithTimestamps({ text: 'Always failing.', format: 'pcm', sample_rate: 16000 }, fault('fail=500:5'))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InternalServerError);
    expect((err as InternalServerError).requestId).toBeTruthy();
    expect((err as InternalServerError).status).toBe(500);
  });

  it('a cut after audio began is StreamInterruptedError with the partial audio and words kept, and no retry', async () => {
    const c = client();
    const { stream, metrics } = await c.tts.streamWithTimestamps(
      { text: LONG, format: 'pcm', sample_rate: 16000, latency: 'balanced' },
      fault('cut-after=3'),
    );
    const out = await drain(stream);
    expect(out.error).toBeInstanceOf(StreamInterruptedError);
    expect(out.samples).toBeGreaterThan(0);
    expect(out.words.length).toBeGreaterThan(0);
    expect(metrics.attempts).toBe(1);
    expect(c.sleeps).toEqual([]);
  });

  it('a cut inside an event keeps every complete event before it', async () => {
    const { stream } = await client().tts.streamWithTimestamps({ text: LONG, format: 'opus', latency: 'balanced' }, fault('cut-inside=2'));
    const out = await drain(stream);
    expect(out.error).toBeInstanceOf(StreamInterruptedError);
    expect(out.samples).toBeGreaterThan(0);
  });

  it('a malformed event is a SpeechEventError naming the event, after the audio before it', async () => {
    const { stream } = await client().tts.streamWithTimestamps(
      { text: LONG, format: 'pcm', sample_rate: 16000, latency: 'balanced' },
      fault('malformed=2'),
    );
    const out = await drain(stream);
    expect(out.error).toBeInstanceOf(SpeechEventError);
    expect((out.error as SpeechEventError).eventIndex).toBe(2);
    expect(out.samples).toBeGreaterThan(0);
  });

  it('a stall longer than idleTimeoutMs is an ApiTimeoutError after the audio that came', async () => {
    const { stream } = await client({ idleTimeoutMs: 1000 }).tts.streamWithTimestamps(
      { text: LONG, format: 'pcm', sample_rate: 16000, latency: 'balanced' },
      fault('stall-after=2:8000'),
    );
    const out = await drain(stream);
    expect(out.error).toBeInstanceOf(ApiTimeoutError);
    expect(out.samples).toBeGreaterThan(0);
  });

  it('a first byte later than timeoutMs is an ApiTimeoutError', async () => {
    const err = await client({ timeoutMs: 150, maxRetries: 0 })
      .tts.streamWithTimestamps({ text: 'Slow.', format: 'pcm', sample_rate: 16000 }, fault('delay-first-byte=3000'))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiTimeoutError);
  });

  it('tiny TCP segments change nothing', async () => {
    const { stream } = await client().tts.streamWithTimestamps({ text: 'Split into bytes.', format: 'mp3' }, fault('segment-bytes=7'));
    const out = await drain(stream);
    expect(out.error).toBeNull();
    expect(out.words).toEqual(['Split', 'into', 'bytes']);
  });

  it('a wrong key is an AuthenticationError or PermissionDeniedError (the spec allows 401 or 403), not retried', async () => {
    const c = client({ apiKey: 'wrong' });
    const err = await c.tts.streamWithTimestamps({ text: 'Hi.' }).catch((e: unknown) => e);
    expect(err instanceof AuthenticationError || err instanceof PermissionDeniedError).toBe(true);
    expect((err as ApiError).requestId).toBeTruthy();
    expect(c.sleeps).toEqual([]);
  });
});
