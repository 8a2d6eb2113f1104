import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createTtsApi } from '../../src/client/tts.js';
import { unknownFields } from '../../src/protocol/unknownFields.js';
import {
  AbortError,
  ApiConnectionError,
  ApiTimeoutError,
  AuthenticationError,
  InternalServerError,
  NotEventStreamError,
  RateLimitError,
  RequestValidationError,
  StreamInterruptedError,
} from '../../src/errors.js';
import { EVENT_SAMPLES, RATE, drain, makeCore, sse, startLoopback, status, type Loopback } from './ttsLoopbackServer.js';

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const REQ = { text: 'one two three', format: 'pcm' as const, sample_rate: RATE };

describe('client.tts.streamWithTimestamps', () => {
  it('resolves after the head with the response, then delivers frames and words', async () => {
    server = await startLoopback([sse(4)]);
    const tts = createTtsApi(makeCore(server.baseUrl));
    const { stream, response, metrics, request } = await tts.streamWithTimestamps(REQ, { model: 's1' });
    expect(response).toMatchObject({ status: 200, requestId: 'req-ok', model: 's2.1-pro' });
    expect(response.headers['content-type']).toBe('text/event-stream');
    expect(request.format).toBe('pcm');
    const out = await drain(stream);
    expect(out.error).toBeNull();
    expect(out.samples).toBe(4 * EVENT_SAMPLES);
    expect(out.words).toEqual(['one', 'two', 'three', 'four']);
    expect(metrics.attempts).toBe(1);
    for (const k of ['headMs', 'firstByteMs', 'firstAudioByteMs', 'firstFrameMs', 'firstWordMs', 'totalMs'] as const) {
      expect(metrics[k]).toBeGreaterThanOrEqual(0);
    }
    expect(metrics.firstByteMs!).toBeGreaterThanOrEqual(metrics.headMs);
    expect(metrics.audioDurationSec).toBeCloseTo((4 * EVENT_SAMPLES) / RATE);
    expect(metrics.realTimeFactor).toBeGreaterThan(0);
  });

  it('sends the bearer key, the model header and unknown body fields untouched', async () => {
    server = await startLoopback([sse(1)]);
    const tts = createTtsApi(makeCore(server.baseUrl));
    const request = {
      ...REQ,
      prosody: { speed: 1.2, ...unknownFields({ pitch_future: -2 }) },
      ...unknownFields({ future_field: { x: 1 } }),
    };
    const { stream } = await tts.streamWithTimestamps(request, { model: 'not-a-model-yet' });
    await drain(stream);
    expect(server.seen[0]!.headers['authorization']).toBe('Bearer test-key');
    expect(server.seen[0]!.headers['model']).toBe('not-a-model-yet');
    expect(server.seen[0]!.body).toMatchObject({
      future_field: { x: 1 },
      prosody: { speed: 1.2, pitch_future: -2 },
      text: 'one two three',
    });
  });

  it('a bad request is a typed error naming the field and rule, and nothing is sent', async () => {
    server = await startLoopback([sse(1)]);
    const tts = createTtsApi(makeCore(server.baseUrl));
    const err = await tts.streamWithTimestamps({ ...REQ, temperature: 3 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestValidationError);
    expect((err as RequestValidationError).field).toBe('temperature');
    expect((err as RequestValidationError).rule).toBe('range');
    const err2 = await tts.streamWithTimestamps({ text: '' }).catch((e: unknown) => e);
    expect((err2 as RequestValidationError).field).toBe('text');
    expect(server.seen).toHaveLength(0);
  });

  it('429 is retried after its Retry-After, then the stream flows', async () => {
    server = await startLoopback([status(429, { 'retry-after': '2' }), sse(2)]);
    const core = makeCore(server.baseUrl);
    const { stream, metrics } = await createTtsApi(core).streamWithTimestamps(REQ);
    expect((await drain(stream)).samples).toBe(2 * EVENT_SAMPLES);
    expect(core.sleeps).toEqual([2000]);
    expect(metrics.attempts).toBe(2);
  });

  it('5xx is retried with backoff up to maxRetries, then is an InternalServerError with status, reason and request id', async () => {
    server = await startLoopback([status(503)]);
    const core = makeCore(server.baseUrl, { maxRetries: 2 });
    const err = await createTtsApi(core)
      .streamWithTimestamps(REQ)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InternalServerError);
    expect(err).toMatchObject({ status: 503, reason: 'test_reason', requestId: 'req-503' });
    expect(server.seen).toHaveLength(3);
    expect(core.sleeps).toHaveLength(2);
    expect(core.sleeps[1]!).toBeGreaterThan(core.sleeps[0]!);
  });

  it('a 429 past maxRetries is a RateLimitError; a 401 is never retried', async () => {
    server = await startLoopback([status(401)]);
    const err = await createTtsApi(makeCore(server.baseUrl))
      .streamWithTimestamps(REQ)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(server.seen).toHaveLength(1);
    await server.close();
    server = await startLoopback([status(429, { 'retry-after': '0' })]);
    const err2 = await createTtsApi(makeCore(server.baseUrl, { maxRetries: 1 }))
      .streamWithTimestamps(REQ)
      .catch((e: unknown) => e);
    expect(err2).toBeInstanceOf(RateLimitError);
    expect(server.seen).toHaveLength(2);
  });

  it('connection refused is retried, then is an ApiConnectionError', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((r) => probe.close(() => r()));
    const core = makeCore(`http://127.0.0.1:${port}`, { maxRetries: 2 });
    const err = await createTtsApi(core)
      .streamWithTimestamps(REQ)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect((err as Error).message).toContain('ECONNREFUSED');
    expect(core.sleeps).toHaveLength(2);
  });

  it('a 200 that is not an event stream is a clear NotEventStreamError, not a parse failure', async () => {
    server = await startLoopback([
      (_q, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'x-request-id': 'r1' });
        res.end('<html>login</html>');
      },
    ]);
    const err = await createTtsApi(makeCore(server.baseUrl))
      .streamWithTimestamps(REQ)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotEventStreamError);
    expect((err as Error).message).toContain('text/html');
    expect(err).toMatchObject({ status: 200, requestId: 'r1' });
  });

  it('a connection cut after audio began is a StreamInterruptedError after the earlier audio and words, never retried', async () => {
    server = await startLoopback([sse(3, 'cut'), sse(6)]);
    const { stream } = await createTtsApi(makeCore(server.baseUrl)).streamWithTimestamps(REQ);
    const out = await drain(stream);
    expect(out.error).toBeInstanceOf(StreamInterruptedError);
    expect((out.error as StreamInterruptedError).requestId).toBe('req-ok');
    expect(out.samples).toBe(3 * EVENT_SAMPLES);
    expect(out.words).toEqual(['one', 'two', 'three']);
    expect(server.seen).toHaveLength(1);
  });

  it('idleTimeoutMs bounds the gap between body bytes: ApiTimeoutError after the audio that came', async () => {
    server = await startLoopback([sse(2, 'hold')]);
    const { stream } = await createTtsApi(makeCore(server.baseUrl, { idleTimeoutMs: 150 })).streamWithTimestamps(REQ);
    const out = await drain(stream);
    expect(out.error).toBeInstanceOf(ApiTimeoutError);
    expect(out.error!.message).toContain('idleTimeoutMs');
    expect(out.samples).toBe(2 * EVENT_SAMPLES);
  });

  it('timeoutMs bounds the wait for the response head', async () => {
    server = await startLoopback([() => {}]);
    const err = await createTtsApi(makeCore(server.baseUrl, { timeoutMs: 100, maxRetries: 0 }))
      .streamWithTimestamps(REQ)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiTimeoutError);
  });

  it('abort stops the network read and ends the pipeline', async () => {
    let serverSawClose = false;
    server = await startLoopback([
      (req, res) => {
        sse(1, 'hold')(req, res, undefined as never);
        const timer = setInterval(() => res.write(': keep-alive\n\n'), 5);
        res.on('close', () => {
          clearInterval(timer);
          serverSawClose = true;
        });
      },
    ]);
    const controller = new AbortController();
    const { stream } = await createTtsApi(makeCore(server.baseUrl)).streamWithTimestamps(REQ, { signal: controller.signal });
    let bytesAtAbort = -1;
    stream.once('word', () => {
      controller.abort();
      bytesAtAbort = stream.summary().bytes;
    });
    const out = await drain(stream);
    expect(out.error).toBeInstanceOf(AbortError);
    expect(stream.destroyed).toBe(true);
    for (let i = 0; i < 50 && !serverSawClose; i++) await new Promise((r) => setTimeout(r, 10));
    expect(serverSawClose).toBe(true); // the client closed the connection
    expect(stream.summary().bytes).toBe(bytesAtAbort); // and read nothing after the abort
  });

  it('the consumer destroying the stream cancels the read', async () => {
    let closed = false;
    server = await startLoopback([
      (req, res) => {
        sse(2, 'hold')(req, res, undefined as never);
        res.on('close', () => (closed = true));
      },
    ]);
    const { stream } = await createTtsApi(makeCore(server.baseUrl)).streamWithTimestamps(REQ);
    stream.once('data', () => stream.destroy());
    await new Promise((r) => stream.once('close', r));
    for (let i = 0; i < 50 && !closed; i++) await new Promise((r) => setTimeout(r, 10));
    expect(closed).toBe(true);
  });

  it('connections are kept alive and reused across streams', async () => {
    server = await startLoopback([sse(1)]);
    const tts = createTtsApi(makeCore(server.baseUrl));
    for (let i = 0; i < 3; i++) {
      await drain((await tts.streamWithTimestamps(REQ)).stream);
      // undici hands the socket back to its pool on the next turn of the event loop
      await new Promise((r) => setImmediate(r));
    }
    expect(server.seen).toHaveLength(3);
    expect(server.connections).toBe(1);
    expect(new Set(server.seen.map((s) => s.remotePort)).size).toBe(1);
  });
});
