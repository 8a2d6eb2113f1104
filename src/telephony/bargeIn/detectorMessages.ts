/**
 * The messages between a call (on the pacing loop) and the detector thread that hosts its
 * barge-in detector (./detectorWorker.ts). One port per thread carries many calls, each named by
 * `id`; messages of one call stay in the order they were posted, so the detector sees the caller's
 * audio, the played-audio notes and "the bot is speaking" in the call's order.
 */
import type { VadBackend } from '../vad/types.js';
import type { BargeInDecision } from './types.js';
import type { BargeInDetectorOptions } from './createBargeInDetector.js';

/** The detector's options that can cross a thread (functions cannot: `onNotice` is relayed, `loadOnnxRuntime` keeps a call inline). */
export type PortableDetectorOptions = Omit<BargeInDetectorOptions, 'vad'> & {
  vad?: Omit<NonNullable<BargeInDetectorOptions['vad']>, 'onNotice' | 'loadOnnxRuntime'> | undefined;
  /**
   * @internal false: this call's Silero windows run one at a time, not batched with the thread's
   * other calls (the bench's comparison). @defaultValue true
   */
  batchModel?: boolean | undefined;
};

/**
 * The call → its detector thread. `pcm`: μ-law bytes or L16 at 8 kHz, an array of its own (copied
 * off the socket's buffer). With the shared transport (`ring` in `open`: a ./frameRing.ts buffer)
 * the call's audio and bot changes go through the ring instead, and an empty batch is the
 * thread's doorbell ("look at the rings"); only `open` and `close` are messages.
 */
export type ToDetector =
  | { t: 'open'; id: number; options: PortableDetectorOptions; ring?: SharedArrayBuffer | undefined }
  | { t: 'in'; id: number; pcm: Uint8Array | Int16Array; atMs: number }
  | { t: 'played'; id: number; pcm: Uint8Array | Int16Array; atMs: number }
  | { t: 'bot'; id: number; speaking: boolean }
  | { t: 'close'; id: number }
  /**
   * The thread's own look at its calls' rings (./DetectorThreads.ts `doorbell: 'poll'`): every
   * `ms` while it hosts a call, with no doorbell message from the calls; 0 stops it (the
   * doorbell messages ring it again).
   */
  | { t: 'poll'; ms: number }
  /** The thread has no call left: it ends (its port closes, its loop runs dry). */
  | { t: 'stop' };

/** A fault as plain data (errors lose their class crossing a thread). */
export interface PortableError {
  name: string;
  code: string | undefined;
  message: string;
  field: string | undefined;
}

/** The detector thread → the call. */
export type FromDetector =
  | { t: 'ready'; id: number; backend: VadBackend }
  | { t: 'failed'; id: number; error: PortableError }
  /**
   * Decisions of the audio taken since the last reply, and how many of the call's samples (inbound
   * and played) it took. A call on the shared transport gets it only with decisions, or when it
   * asked (its ring counts what was taken; `samples` is 0).
   */
  | { t: 'decisions'; id: number; decisions: BargeInDecision[]; samples: number }
  /** A push or a note failed (bad input): a warning, the detector goes on. */
  | { t: 'warning'; id: number; error: PortableError }
  | { t: 'notice'; id: number; message: string }
  /**
   * The thread started (its first message, no call's): its id and nice value (./threadNice.ts),
   * and a notice when its priority could not be set as configured.
   */
  | { t: 'thread'; tid: number | undefined; nice: number | undefined; notice: string | undefined }
  /** The call's last decisions (an open turn) and the detector is freed. */
  | { t: 'closed'; id: number; decisions: BargeInDecision[]; model?: ModelRunStats | undefined };

/** The thread's Silero runs so far and the windows (rows) in them: rows / runs is the mean batch. */
export interface ModelRunStats {
  runs: number;
  rows: number;
  /** Messages the thread has taken so far (each one batch of calls' messages): its wakes. */
  wakes?: number | undefined;
  /** VAD windows of the calls closed on this thread so far, and how many of them ran Silero (rows / windows is the model's share). */
  windows?: number | undefined;
  modelWindows?: number | undefined;
  /** The thread's own CPU ms so far (Linux `/proc/thread-self/schedstat`; absent elsewhere), for the benches. */
  cpuMs?: number | undefined;
  /** The thread's id (Linux `/proc/thread-self/stat`), so a bench can tell its CPU from V8's helpers'. */
  tid?: number | undefined;
}

export function portableError(err: unknown): PortableError {
  const e = err as { name?: unknown; code?: unknown; message?: unknown; field?: unknown } | null;
  return {
    name: typeof e?.name === 'string' ? e.name : 'Error',
    code: typeof e?.code === 'string' ? e.code : undefined,
    message: typeof e?.message === 'string' ? e.message : String(err),
    field: typeof e?.field === 'string' ? e.field : undefined,
  };
}
