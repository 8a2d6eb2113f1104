/**
 * `client.tts.streamWithTimestamps`: text in, a speech pipeline out (audio frames + `word` events
 * timed to the playhead).
 *
 * - The request is checked with the same module the local service uses (`validateTtsRequest`)
 *   before any network call; unknown body fields and an unknown `model` pass through (the service
 *   falls back to its default model).
 * - Retries (429 with `Retry-After`, 5xx, connection refused) happen only before the response
 *   head, inside the HTTP core; the Promise resolves once a 2xx `text/event-stream` head is in.
 * - After that nothing is retried: a broken body is a {@link StreamInterruptedError} (an idle gap
 *   an {@link ApiTimeoutError}) emitted by the stream *after* every frame and word that arrived
 *   before the break.
 * - The AbortSignal cancels the network read and destroys the pipeline with an AbortError; the
 *   pipeline being destroyed by its consumer cancels the read too. No socket or timer is left.
 */
import { AbortError, ApiTimeoutError, NotEventStreamError, StreamInterruptedError, VoicewireError } from '../errors.js';
import {
  createSpeechPipeline,
  type OutputOptions,
  type SpeechPipeline,
  type SpeechPipelineOptions,
  type SpeechSummary,
} from '../engine/SpeechPipeline.js';
import { validateTtsRequest, type NormalizedTtsRequest, type TtsRequest } from '../protocol/ttsRequest.js';
import type { HttpCore, RawResponse } from '../internal/http/http.js';
import { headersToRecord } from '../internal/http/responseErrors.js';

/** Response headers that may name the model the service used. */
const MODEL_RESPONSE_HEADERS = ['model', 'x-model', 'x-voicewire-model'];
const EVENT_STREAM = 'text/event-stream';

export interface TtsStreamOptions {
  /** The `model` header. An unknown value is sent as is (the service falls back). */
  model?: string;
  /** Aborts the request, the network read and the pipeline. */
  signal?: AbortSignal;
  /** Conversion stage: `{ sampleRate, encoding, channels, frameMs }` of the frames you read. */
  output?: OutputOptions;
  /** `'external'` for sinks that know what was heard (players, telephony marks). @defaultValue 'consumer' */
  playhead?: 'consumer' | 'external';
  /** Frame size before conversion. @defaultValue 20 */
  frameMs?: number;
  /** @defaultValue 'fail' */
  onInvalidEvent?: 'fail' | 'skip';
  /** Override the client's `timeoutMs` (wait for the response head). */
  timeoutMs?: number;
  /** Override the client's `idleTimeoutMs` (gap between body bytes). */
  idleTimeoutMs?: number;
  /** Override the client's `maxRetries`. */
  maxRetries?: number;
  /** Extra headers for this request. */
  headers?: Record<string, string>;
  /** Each SSE `message` event as the engine takes it in (see `SpeechPipelineOptions.onEvent`). */
  onEvent?: SpeechPipelineOptions['onEvent'];
}

/**
 * Timings of one stream, in ms from the call. The object is live: fields fill in as the stream
 * goes and are final once the stream emits `summary` (or fails).
 */
export interface TtsStreamMetrics {
  /** Attempts made (1 = no retry). */
  attempts: number;
  /** To the response head. */
  headMs: number;
  /** To the first body byte. */
  firstByteMs: number | null;
  /** To the first decoded byte of encoded audio (from the first event carrying audio). */
  firstAudioByteMs: number | null;
  /** To the first PCM decoded (the stream's format became known). */
  firstFrameMs: number | null;
  /** To the first `word` event (which depends on the playhead). */
  firstWordMs: number | null;
  /** To the end of the body. */
  bodyEndMs: number | null;
  /** To the end of the stream (`summary`, or the error). */
  totalMs: number | null;
  /** Seconds of audio. */
  audioDurationSec: number | null;
  /** Wall time of the body (`bodyEndMs`) per second of audio: below 1 is faster than real time. */
  realTimeFactor: number | null;
}

export interface TtsResponseInfo {
  status: number;
  requestId: string | undefined;
  /** The model the service says it used (response header), else the one requested. */
  model: string | undefined;
  headers: Record<string, string>;
}

export interface TtsStreamResult {
  /** Audio frames (read it, pipe it) plus `word`, `wordRevised`, `warning`, `format`, `summary`. */
  stream: SpeechPipeline;
  response: TtsResponseInfo;
  metrics: TtsStreamMetrics;
  /** The request as validated, defaults filled in. */
  request: NormalizedTtsRequest;
}

export interface TtsApi {
  /**
   * Streams speech with word timestamps.
   *
   * @example
   * ```ts
   * const client = createClient({ baseUrl, apiKey });
   * const { stream, metrics } = await client.tts.streamWithTimestamps({ text: 'Hello there.', format: 'opus' });
   * stream.on('word', (w) => console.log(w.start.toFixed(2), w.text));
   * await pipeline(stream, createWavFileSink('hello.wav'));
   * console.log(metrics.firstFrameMs);
   * ```
   * @throws RequestValidationError (before any network call), an ApiError subclass for an HTTP
   * error, NotEventStreamError, ApiConnectionError, ApiTimeoutError, AbortError.
   */
  streamWithTimestamps(request: TtsRequest, options?: TtsStreamOptions): Promise<TtsStreamResult>;
}

export interface TtsApiDeps {
  /** Monotonic ms clock for metrics. @defaultValue performance.now */
  now?: () => number;
}

export function createTtsApi(core: HttpCore, deps: TtsApiDeps = {}): TtsApi {
  const now = deps.now ?? (() => performance.now());

  async function streamWithTimestamps(request: TtsRequest, options: TtsStreamOptions = {}): Promise<TtsStreamResult> {
    const normalized = validateTtsRequest(request);
    const { signal } = options;
    if (signal?.aborted) throw new AbortError(undefined, signal.reason);
    const t0 = now();
    // One controller for the network read: the caller's abort, or the pipeline closing early.
    const reading = new AbortController();
    const onCallerAbort = (): void => reading.abort(signal?.reason);
    signal?.addEventListener('abort', onCallerAbort, { once: true });
    const unlinkCaller = (): void => signal?.removeEventListener('abort', onCallerAbort);

    const headers: Record<string, string> = { accept: EVENT_STREAM, ...options.headers };
    if (options.model !== undefined) headers['model'] = options.model;
    let raw: RawResponse;
    try {
      raw = await core.requestRaw({
        method: 'POST',
        path: core.config.paths.ttsStreamWithTimestamp,
        json: request,
        headers,
        signal: reading.signal,
        retry: 'idempotent',
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
        ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
      });
    } catch (err) {
      unlinkCaller();
      throw err;
    }
    const headerRecord = headersToRecord(raw.headers);
    const contentType = raw.headers.get('content-type') ?? '';
    if (!contentType.toLowerCase().includes(EVENT_STREAM)) {
      unlinkCaller();
      await raw.cancel();
      throw new NotEventStreamError(
        `The service answered ${raw.status} with content-type ${contentType === '' ? '(none)' : JSON.stringify(contentType)}` +
          `, not ${EVENT_STREAM}; check baseUrl (request ${raw.requestId ?? 'unknown'})`,
        { status: raw.status, ...(raw.requestId !== undefined ? { requestId: raw.requestId } : {}), headers: headerRecord },
      );
    }

    const metrics: TtsStreamMetrics = {
      attempts: raw.attempts,
      headMs: now() - t0,
      firstByteMs: null,
      firstAudioByteMs: null,
      firstFrameMs: null,
      firstWordMs: null,
      bodyEndMs: null,
      totalMs: null,
      audioDurationSec: null,
      realTimeFactor: null,
    };
    const stream = createSpeechPipeline({
      format: normalized.format,
      sampleRate: normalized.sample_rate,
      ...(options.frameMs !== undefined ? { frameMs: options.frameMs } : {}),
      ...(options.output !== undefined ? { output: options.output } : {}),
      ...(options.playhead !== undefined ? { playhead: options.playhead } : {}),
      ...(options.onInvalidEvent !== undefined ? { onInvalidEvent: options.onInvalidEvent } : {}),
      ...(options.onEvent !== undefined ? { onEvent: options.onEvent } : {}),
      ...(signal !== undefined ? { signal } : {}),
    });
    stream.once('format', () => (metrics.firstFrameMs ??= now() - t0));
    stream.once('word', () => (metrics.firstWordMs ??= now() - t0));
    const finishMetrics = (summary: SpeechSummary | null): void => {
      if (metrics.totalMs !== null) return;
      metrics.totalMs = now() - t0;
      const s = summary ?? stream.summary();
      metrics.audioDurationSec = s.durationSec;
      const bodyMs = metrics.bodyEndMs ?? metrics.totalMs;
      metrics.realTimeFactor = s.durationSec > 0 ? bodyMs / 1000 / s.durationSec : null;
    };
    stream.once('summary', (s: SpeechSummary) => finishMetrics(s));
    stream.once('close', () => {
      finishMetrics(null);
      unlinkCaller();
      reading.abort(); // the consumer is gone (or all is done): stop reading, free the socket
    });

    void pumpBody(raw, stream, metrics, t0, now, reading.signal);
    const model = MODEL_RESPONSE_HEADERS.map((h) => raw.headers.get(h)).find((v) => v !== null) ?? options.model;
    return {
      stream,
      response: { status: raw.status, requestId: raw.requestId, model: model ?? undefined, headers: headerRecord },
      metrics,
      request: normalized,
    };
  }

  return { streamWithTimestamps };
}

/** Copies body bytes into the pipeline with backpressure; maps a broken body to a typed error. */
async function pumpBody(
  raw: RawResponse,
  stream: SpeechPipeline,
  metrics: TtsStreamMetrics,
  t0: number,
  now: () => number,
  signal: AbortSignal,
): Promise<void> {
  let bytes = 0;
  try {
    for await (const chunk of raw.body()) {
      if (stream.destroyed) break;
      if (metrics.firstByteMs === null) metrics.firstByteMs = now() - t0;
      bytes += chunk.byteLength;
      const more = stream.write(chunk);
      if (metrics.firstAudioByteMs === null && stream.summary().audioBytes > 0) metrics.firstAudioByteMs = now() - t0;
      if (!more) await drained(stream);
    }
    metrics.bodyEndMs = now() - t0;
    if (!stream.destroyed) stream.end();
  } catch (err) {
    if (stream.destroyed || signal.aborted) return; // aborted: the pipeline ends itself
    const context = { status: raw.status, ...(raw.requestId !== undefined ? { requestId: raw.requestId } : {}), cause: err };
    const failure =
      err instanceof ApiTimeoutError || err instanceof VoicewireError
        ? err
        : new StreamInterruptedError(
            `The speech stream broke after ${bytes} body bytes${stream.summary().audioBytes > 0 ? ' (audio had begun; not retried)' : ''}` +
              `: ${err instanceof Error ? err.message : String(err)} (request ${raw.requestId ?? 'unknown'})`,
            context,
          );
    metrics.bodyEndMs = now() - t0;
    stream.failSource(failure);
  }
}

function drained(stream: SpeechPipeline): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}
