/**
 * One measured request: sends it through the speech client, reads the stream as fast as the
 * engine gives frames (the network, not a player, sets the pace), and times each step on the
 * request's own clock. The simulated player judges the arrivals afterwards.
 */
import {
  AbortError,
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  NotEventStreamError,
  StreamInterruptedError,
  VoicewireError,
} from '../errors.js';
import type { HttpCore } from '../internal/http/http.js';
import { createTtsApi, type TtsStreamMetrics } from '../client/tts.js';
import type { AudioFrame } from '../codec/types.js';
import type { SpeechEventMeta } from '../events/SpeechEventScanner.js';
import type { TtsRequest } from '../protocol/ttsRequest.js';
import type { WordEvent, WordRevision } from '../play/WordClock.js';
import { LATENCY_ID_HEADER, type ConnectTracker } from './connectTimes.js';
import { hearWord, simulatePlayer, type AudioArrival } from './player.js';
import type { FailureKind, LatencyRecord, PlayerRecord, RequestFailure } from './types.js';

/** Frames out of the engine closer together than this are one arrival (one event's audio). */
const SAME_ARRIVAL_MS = 0.25;
const HTTP_CLIENT_ERROR_MIN = 400;
const HTTP_SERVER_ERROR_MIN = 500;

export interface RequestPlan {
  contender: string;
  round: number;
  textIndex: number;
  seq: number;
  request: TtsRequest;
  model: string | undefined;
  headers: Record<string, string>;
  jitterBuffersMs: number[];
}

export interface RequestDeps {
  http: HttpCore;
  tracker: ConnectTracker;
  signal: AbortSignal;
  timeoutMs: number;
  /** The request's clock. @defaultValue `performance.now` */
  now?: (() => number) | undefined;
}

function emptyRecord(plan: RequestPlan): LatencyRecord {
  return {
    contender: plan.contender,
    round: plan.round,
    textIndex: plan.textIndex,
    seq: plan.seq,
    sentAtMs: performance.timeOrigin + performance.now(),
    ok: false,
    failure: null,
    status: null,
    requestId: null,
    model: plan.model ?? null,
    attempts: 1,
    connectMs: null,
    tls: false,
    headMs: null,
    firstByteMs: null,
    firstAudioByteMs: null,
    firstFrameMs: null,
    firstWordMs: null,
    lastByteMs: null,
    audioDurationSec: null,
    realTimeFactor: null,
    maxAudioGapMs: null,
    audioEvents: [],
    arrivals: [],
    words: [],
    players: [],
  };
}

/** Sorts an error into a {@link FailureKind}. */
export function classifyFailure(err: unknown, afterHead: boolean, audioBegun: boolean): RequestFailure {
  const message = err instanceof Error ? err.message : String(err);
  const code = err instanceof VoicewireError ? err.code : 'UNKNOWN';
  const status = err instanceof ApiError ? err.status : undefined;
  let kind: FailureKind;
  if (err instanceof AbortError) kind = 'aborted';
  else if (err instanceof StreamInterruptedError) kind = 'stream-interrupted';
  else if (err instanceof ApiTimeoutError) kind = afterHead ? 'stream-timeout' : 'timeout';
  else if (err instanceof NotEventStreamError) kind = 'not-event-stream';
  else if (err instanceof ApiConnectionError) kind = 'connection';
  else if (err instanceof ApiError && status !== undefined && status >= HTTP_CLIENT_ERROR_MIN)
    kind = status >= HTTP_SERVER_ERROR_MIN ? 'http-5xx' : 'http-4xx';
  else kind = afterHead ? 'stream-invalid' : 'connection';
  return { kind, code, ...(status !== undefined ? { status } : {}), message, midStream: audioBegun };
}

/** The player verdicts of a record's arrivals, one per jitter buffer. */
export function judgePlayers(
  arrivals: readonly AudioArrival[],
  words: LatencyRecord['words'],
  jitterBuffersMs: readonly number[],
): PlayerRecord[] {
  return jitterBuffersMs.map((jitterBufferMs) => {
    const verdict = simulatePlayer(arrivals, jitterBufferMs);
    const wordLateMs = words.map((w) => hearWord(verdict, w.startSec)?.lateMs ?? 0);
    return {
      jitterBufferMs,
      startMs: verdict.startMs,
      underruns: verdict.underruns,
      underrunCount: verdict.underruns.length,
      underrunMs: verdict.underrunMs,
      wordLateMs,
      maxWordLateMs: wordLateMs.reduce((a, b) => Math.max(a, b), 0),
    };
  });
}

function maxGap(events: LatencyRecord['audioEvents']): number | null {
  let max: number | null = null;
  for (let i = 1; i < events.length; i++) max = Math.max(max ?? 0, events[i]!.atMs - events[i - 1]!.atMs);
  return max;
}

function copyMetrics(rec: LatencyRecord, m: TtsStreamMetrics): void {
  rec.attempts = m.attempts;
  rec.headMs = m.headMs;
  rec.firstByteMs = m.firstByteMs;
  rec.firstAudioByteMs = m.firstAudioByteMs;
  rec.firstWordMs = m.firstWordMs;
  rec.lastByteMs = m.bodyEndMs;
  rec.audioDurationSec = m.audioDurationSec;
  rec.realTimeFactor = m.realTimeFactor;
}

/** Sends one request and measures it. Never throws: a failure is in the record. */
export async function measureRequest(plan: RequestPlan, deps: RequestDeps): Promise<LatencyRecord> {
  const rec = emptyRecord(plan);
  const id = String(plan.seq);
  // The api's first clock reading is its t0: every figure, ours and the client's, shares it.
  let t0 = NaN;
  const read = deps.now ?? (() => performance.now());
  const now = (): number => {
    const t = read();
    if (Number.isNaN(t0)) t0 = t;
    return t;
  };
  const since = (): number => read() - t0;
  const tts = createTtsApi(deps.http, { now });
  const onEvent = (meta: SpeechEventMeta): void => {
    if (meta.audioBytes > 0)
      rec.audioEvents.push({ atMs: since(), index: meta.index, chunkSeq: meta.chunkSeq, audioBytes: meta.audioBytes });
  };
  deps.tracker.expect(id);
  let afterHead = false;
  let metrics: TtsStreamMetrics | null = null;
  try {
    const result = await tts.streamWithTimestamps(plan.request, {
      signal: deps.signal,
      headers: { ...plan.headers, [LATENCY_ID_HEADER]: id },
      maxRetries: 0,
      timeoutMs: deps.timeoutMs,
      idleTimeoutMs: deps.timeoutMs,
      onEvent,
      ...(plan.model !== undefined ? { model: plan.model } : {}),
    });
    afterHead = true;
    metrics = result.metrics;
    rec.status = result.response.status;
    rec.requestId = result.response.requestId ?? null;
    rec.model = result.response.model ?? rec.model;
    const { stream } = result;
    const wordAt = new Map<string, number>();
    stream.on('word', (w: WordEvent) => {
      wordAt.set(`${w.chunkSeq}:${w.index}`, rec.words.length);
      rec.words.push({ text: w.text, startSec: w.start, endSec: w.end, atMs: since(), revised: false, late: w.late, chunkSeq: w.chunkSeq });
    });
    stream.on('wordRevised', (r: WordRevision) => {
      const i = wordAt.get(`${r.old.chunkSeq}:${r.old.index}`);
      const word = i === undefined ? undefined : rec.words[i];
      if (word === undefined) return;
      word.revised = true;
      if (r.new !== null) {
        word.startSec = r.new.start;
        word.endSec = r.new.end;
        word.text = r.new.text;
      }
    });
    await new Promise<void>((resolve, reject) => {
      stream.on('data', (frame: AudioFrame) => {
        const atMs = since();
        const endSec = (frame.startSample + frame.sampleCount) / frame.sampleRate;
        rec.firstFrameMs ??= atMs;
        const last = rec.arrivals[rec.arrivals.length - 1];
        if (last !== undefined && atMs - last.atMs < SAME_ARRIVAL_MS) last.endSec = endSec;
        else rec.arrivals.push({ atMs, endSec });
      });
      stream.once('end', resolve);
      stream.once('error', reject);
    });
    rec.ok = true;
  } catch (err) {
    rec.failure = classifyFailure(err, afterHead, rec.audioEvents.length > 0);
    if (err instanceof ApiError && err.status !== undefined) rec.status = err.status;
    if (err instanceof ApiError && err.requestId !== undefined) rec.requestId ??= err.requestId;
  }
  if (metrics !== null) copyMetrics(rec, metrics);
  // The first audio event as the engine took it in: read before its audio is decoded (the client's
  // own figure is read after the write that carried it returns, frames included).
  if (rec.audioEvents.length > 0) rec.firstAudioByteMs = rec.audioEvents[0]!.atMs;
  const connect = deps.tracker.take(id);
  if (connect !== null) {
    rec.connectMs = connect.connectMs;
    rec.tls = connect.tls;
  }
  rec.maxAudioGapMs = maxGap(rec.audioEvents);
  rec.players = judgePlayers(rec.arrivals, rec.words, plan.jitterBuffersMs);
  return rec;
}
