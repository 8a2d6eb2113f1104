/**
 * Options, events and default constants of the caller-audio voice activity detector. Times are
 * sample indices at the input rate (8 kHz for μ-law), counted from the first sample pushed after
 * creation or `reset()`.
 */
import type { SileroBatch } from './silero.js';

/** `'silero'`: the Silero VAD v5 network (onnxruntime-node); `'webrtc'`: the WebRTC VAD (wasm);
 * `'gated'`: WebRTC wakes Silero only around candidate speech. */
export type VadBackend = 'silero' | 'webrtc' | 'gated';

/** The caller started or stopped speaking. */
export interface VadEdgeEvent {
  type: 'speechStart' | 'speechEnd';
  /** speechStart: first sample of the speech run; speechEnd: first sample of the silence that
   * ended it (or the end of input at flush). */
  sample: number;
  /** The sample at which the detector decided (end of the confirming window). */
  detectedAt: number;
}

/** One window's speech probability (only with the `probabilities` option). */
export interface VadProbabilityEvent {
  type: 'probability';
  /** First sample of the window. */
  sample: number;
  /** Length of the window in input samples. */
  samples: number;
  probability: number;
}

export type VadEvent = VadEdgeEvent | VadProbabilityEvent;

export interface HysteresisOptions {
  /** A window at or above this probability counts as speech while silent. */
  startThreshold?: number | undefined;
  /** While speaking, a window below this probability counts as silence. */
  stopThreshold?: number | undefined;
  /** Speech must last this long before `speechStart` is reported (drops clicks and blips). */
  minSpeechMs?: number | undefined;
  /** Silence must last this long before `speechEnd` is reported (bridges pauses between words). */
  minSilenceMs?: number | undefined;
}

export interface VadOptions extends HysteresisOptions {
  /** @defaultValue {@link DEFAULT_VAD_BACKEND} */
  backend?: VadBackend | undefined;
  /** Rate of Int16Array input: 8000 or 16000. μ-law bytes are always 8 kHz. @defaultValue 8000 */
  sampleRate?: 8000 | 16000 | undefined;
  /**
   * Windows quieter than this (RMS, dBFS) score 0 whatever the model says: the bot's own speech
   * returning as echo is speech to any VAD, only its level tells it apart.
   * @defaultValue {@link DEFAULT_MIN_LEVEL_DBFS}
   */
  minLevelDbfs?: number | undefined;
  /** Also report each window's speech probability. */
  probabilities?: boolean | undefined;
  /** WebRTC aggressiveness 0..3 (higher rejects more noise). @defaultValue {@link DEFAULT_WEBRTC_MODE} */
  webrtcMode?: 0 | 1 | 2 | 3 | undefined;
  /** One-line notices (e.g. the fallback from Silero to WebRTC). @defaultValue console.warn */
  onNotice?: ((message: string) => void) | undefined;
  /**
   * Gated backend only: asked for every window, in order, before it is scored; false keeps the
   * Silero network asleep on it (the window scores 0); `'hold'` lets a running network skip it,
   * keeping its state (the window scores the last probability again). Lets the barge-in detector run
   * the network only where it can change a decision (native-notes/vad.md, "Silero only where it decides").
   */
  modelWake?: ((start: number, window: Int16Array) => boolean | 'hold') | undefined;
  /**
   * @internal Gated backend only: Silero's windows wait on this batch and run with other calls'
   * windows when the owner runs it (the barge-in detector thread); a window's probability event
   * is appended to the array `push()` returned, once the batch has run, so the batch must run
   * before the next `push()` on this VAD (the barge-in detector's steps wait for it). Omitted: at once.
   */
  modelBatch?: SileroBatch | undefined;
  /**
   * @internal Replaces the loader of onnxruntime-node (tests force a load failure with it).
   * Returns the package's main module and its synchronous session binding.
   */
  loadOnnxRuntime?: (() => Promise<OnnxRuntimeModules>) | undefined;
}

/** The two pieces of onnxruntime-node the Silero backend uses (see native-notes/vad.md). */
export interface OnnxRuntimeModules {
  ort: { Tensor: new (type: string, data: unknown, dims: readonly number[]) => OrtTensor };
  binding: {
    initOrt(): void;
    binding: { InferenceSession: new () => OrtBindingSession };
  };
}

export interface OrtTensor {
  readonly data: unknown;
  readonly dims: readonly number[];
}

export interface OrtBindingSession {
  loadModel(path: string, options: Record<string, unknown>): void;
  /** `fetches`: null lets the runtime allocate the output; a tensor receives it in place. */
  run(
    feeds: Record<string, OrtTensor>,
    fetches: Record<string, OrtTensor | null>,
    options: Record<string, unknown>,
  ): Record<string, OrtTensor>;
  dispose(): void;
}

/** Silero’s accuracy for about 60–85 % of its CPU (native-notes/vad.md). */
export const DEFAULT_VAD_BACKEND: VadBackend = 'gated';
export const DEFAULT_VAD_SAMPLE_RATE = 8000;
/** Silero's speech threshold (its authors' default). */
export const DEFAULT_SILERO_START_THRESHOLD = 0.5;
/** Silero's stop threshold: start − 0.15, as its authors' reference iterator does. */
export const DEFAULT_SILERO_STOP_THRESHOLD = 0.35;
/** WebRTC answers 0 or 1 per frame, so one threshold serves both edges. */
export const DEFAULT_WEBRTC_THRESHOLD = 0.5;
/**
 * One Silero window (32 ms): on the corpus, 64 and 96 ms added 60–100 ms of onset latency and
 * removed no false detection (native-notes/vad.md).
 */
export const DEFAULT_MIN_SPEECH_MS = 32;
/** Pauses between words are shorter than this; turn ends are longer. */
export const DEFAULT_MIN_SILENCE_MS = 320;
/** WebRTC alone needs a longer run to ignore clicks and tones (10 ms frames). */
export const DEFAULT_WEBRTC_MIN_SPEECH_MS = 120;
/** The most aggressive WebRTC mode: the telephone band is noisy. As the gate it opened Silero
 * on fewer windows than mode 1 with no utterance missed (native-notes/vad.md). */
export const DEFAULT_WEBRTC_MODE = 3;
/**
 * Off: callers' levels vary too much for a fixed floor to be safe by default. −25 dBFS removed
 * two thirds of the echo detections on the corpus (native-notes/vad.md), where every caller
 * speaks at −20 dBFS.
 */
export const DEFAULT_MIN_LEVEL_DBFS = -Infinity;
