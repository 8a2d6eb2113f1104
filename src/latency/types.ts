/**
 * The records `measureLatency` returns (and `voicewire latency --json` writes): one per request,
 * every time in ms on that request's own clock (0 = the request was sent).
 */
import type { AudioFormat } from '../codec/types.js';
import type { LatencyMode } from '../protocol/ttsRequest.js';
import type { AudioArrival, Underrun } from './player.js';
import type { Percentiles } from './percentiles.js';

/** Where a request failed, by kind; counted in the summary, never dropped silently. */
export type FailureKind =
  /** The service answered 4xx (`status` says which). */
  | 'http-4xx'
  /** The service answered 5xx (after the client's retries). */
  | 'http-5xx'
  /** Could not connect, or the connection broke before the response head. */
  | 'connection'
  /** No response head within the client's timeout. */
  | 'timeout'
  /** A 2xx that was not an event stream. */
  | 'not-event-stream'
  /** The body broke after the head (the figures reached before still count). */
  | 'stream-interrupted'
  /** The body went idle past the client's idle timeout. */
  | 'stream-timeout'
  /** The stream's events or audio were invalid. */
  | 'stream-invalid'
  /** Stopped by the caller (SIGINT); not a fault of the service. */
  | 'aborted';

export interface RequestFailure {
  kind: FailureKind;
  /** The error's code (`API_CONNECTION`, `STREAM_INTERRUPTED`, `SSE_…`). */
  code: string;
  status?: number;
  message: string;
  /** Whether audio had begun when it failed. */
  midStream: boolean;
}

/** A word as the stream timed it, and when its timing was known. */
export interface WordRecord {
  text: string;
  startSec: number;
  endSec: number;
  /** When the word event fired (the engine knew the word and had decoded audio up to it). */
  atMs: number;
  /** Its timing was revised by a later event. */
  revised: boolean;
  /** The engine marked it late: its timing arrived after its audio had been read. */
  late: boolean;
  /** Which chunk of the stream it belongs to. */
  chunkSeq: number;
}

/** One audio-carrying SSE event as it arrived. */
export interface AudioEventRecord {
  atMs: number;
  /** 0-based among the stream's `message` events. */
  index: number;
  chunkSeq: number;
  /** Encoded audio bytes it carried. */
  audioBytes: number;
}

/** The simulated player's verdict at one jitter buffer. */
export interface PlayerRecord {
  jitterBufferMs: number;
  startMs: number | null;
  underruns: Underrun[];
  underrunCount: number;
  underrunMs: number;
  /** Per word (same order as `words`): how late it would have been heard (ms). */
  wordLateMs: number[];
  /** The largest of `wordLateMs` (0 when none was late). */
  maxWordLateMs: number;
}

export interface LatencyRecord {
  /** Which contender (target and/or model) it measured. */
  contender: string;
  /** Round (0-based, after the warm-up). */
  round: number;
  /** Index into the texts. */
  textIndex: number;
  /** Order in which it was sent (0-based over the whole run). */
  seq: number;
  /** `performance.timeOrigin + now` when it was sent, for the waterfall. */
  sentAtMs: number;
  ok: boolean;
  failure: RequestFailure | null;
  status: number | null;
  requestId: string | null;
  /** Model the service says it used (or the one asked for). */
  model: string | null;
  attempts: number;
  /** TCP connect (and TLS when `tls`) of a new connection; null when one was reused. */
  connectMs: number | null;
  tls: boolean;
  /** Response head. */
  headMs: number | null;
  firstByteMs: number | null;
  /** First event carrying audio bytes. */
  firstAudioByteMs: number | null;
  /** First PCM frame out of the engine. */
  firstFrameMs: number | null;
  /** First `word` event. */
  firstWordMs: number | null;
  /** Last body byte. */
  lastByteMs: number | null;
  audioDurationSec: number | null;
  /** Body time (to the last byte) per second of audio; below 1 is faster than real time. */
  realTimeFactor: number | null;
  /** Longest gap between two consecutive audio events. */
  maxAudioGapMs: number | null;
  audioEvents: AudioEventRecord[];
  /** Audio out of the engine as it came: the simulated player's input. */
  arrivals: AudioArrival[];
  words: WordRecord[];
  players: PlayerRecord[];
  /** `--record`: where the SSE body was written. */
  capturePath?: string;
}

/** The figures summarized per contender (keys of {@link LatencyRecord}). */
export const FIGURES = [
  'connectMs',
  'headMs',
  'firstByteMs',
  'firstAudioByteMs',
  'firstFrameMs',
  'firstWordMs',
  'lastByteMs',
  'audioDurationSec',
  'realTimeFactor',
  'maxAudioGapMs',
] as const;
export type Figure = (typeof FIGURES)[number];

export interface PlayerSummary {
  jitterBufferMs: number;
  /** Requests that underran at least once, of those with audio. */
  stalledRequests: number;
  underrunCount: Percentiles;
  underrunMs: Percentiles;
  maxWordLateMs: Percentiles;
}

export interface ContenderSummary {
  contender: string;
  requests: number;
  ok: number;
  /** Failures by kind (a request counts once). */
  failures: Partial<Record<FailureKind, number>>;
  figures: Record<Figure, Percentiles>;
  players: PlayerSummary[];
}

/** One side of a side-by-side run. */
export interface LatencyTarget {
  label: string;
  baseUrl: string;
  apiKey?: string;
  /** Headers sent with each of its requests. */
  headers?: Record<string, string>;
}

export interface LatencyTask {
  contender: string;
  round: number;
  textIndex: number;
  warmup: boolean;
}

export interface MeasureLatencyOptions {
  /** Services to measure side by side. @defaultValue the embedded local service */
  targets?: LatencyTarget[];
  /** Models to measure side by side (each target × each model). @defaultValue the service's default */
  models?: string[];
  texts: string[];
  /** Measured rounds; each round sends every text to every contender. @defaultValue 10 */
  runs?: number;
  /** Requests in flight at once. @defaultValue 1 */
  concurrency?: number;
  /** Unmeasured rounds first (connections, caches, JIT). @defaultValue 1 */
  warmup?: number;
  /** @defaultValue 'opus' */
  format?: AudioFormat;
  sampleRate?: number;
  latency?: LatencyMode;
  /** @defaultValue [0, 100, 200] */
  jitterBuffersMs?: number[];
  /** Extra headers per request (e.g. the local service's fault header on one of them). */
  requestHeaders?: (task: LatencyTask) => Record<string, string> | undefined;
  /** Stops sending; requests in flight are aborted and reported as `aborted`. */
  signal?: AbortSignal;
  /** After each request (warm-up ones too: `record === null`). */
  onProgress?: (progress: { done: number; total: number; record: LatencyRecord | null }) => void;
  /** Receives each measured request's SSE body (to save it); bodies are kept only when given. */
  onBody?: (record: LatencyRecord, body: Uint8Array) => Promise<string | void> | string | void;
  /**
   * Stops the run after a failed request (warm-up ones too) for which this returns true, e.g. a 4xx
   * or an unreachable service, where every further request would fail alike.
   */
  stopOn?: (record: LatencyRecord) => boolean;
  /** Options for the embedded local service when no target is given. */
  localService?: { pace?: 'fast' | 'realtime'; faults?: string };
  /** The client's head / idle timeouts. @defaultValue 30000 each */
  timeoutMs?: number;
  /**
   * The clock every request's times are read from (ms, any origin): head, first byte, each
   * arrival of audio, words. Injected by tests that drive time themselves, so that the simulated
   * player's verdicts do not depend on how busy the machine was. Connect times and the run's
   * elapsed time stay on the wall clock. @defaultValue `performance.now`
   */
  now?: () => number;
}

export interface LatencyRun {
  records: LatencyRecord[];
  summaries: ContenderSummary[];
  /** The run was stopped (signal) before every request was sent. */
  interrupted: boolean;
  /** The request that made `stopOn` stop the run (it is in `records` unless it was a warm-up). */
  stoppedBy: LatencyRecord | null;
  /** Warm-up requests that failed (not in the statistics). */
  warmupFailures: number;
  settings: {
    contenders: string[];
    texts: number;
    runs: number;
    concurrency: number;
    warmup: number;
    format: AudioFormat;
    latency: LatencyMode | null;
    jitterBuffersMs: number[];
    local: boolean;
  };
  machine: { node: string; platform: string; arch: string; cpus: string; cpuCount: number; startedAt: string };
  /** Wall time of the measured part. */
  elapsedMs: number;
  /** CPU time this process spent over the measured part (user + system). */
  cpuMs: number;
}
