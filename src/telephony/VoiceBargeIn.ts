/**
 * Barge-in by voice on one call: feeds the caller's audio and what the phone plays (each frame at
 * its estimated play time) to a {@link BargeInDetector}, and hands its decisions to the call.
 * Provider-neutral: it takes line bytes in the line's format and clock times, and owns the one
 * mapping between the clock and the detector's line timeline (8 kHz samples of inbound audio).
 *
 * The detector loads asynchronously (the VAD's wasm / native model): until it is ready, inbound
 * and played audio wait in a bounded queue ({@link MAX_PENDING_MS} of inbound audio; older audio
 * is dropped and the timeline keeps its place), and the call works as without barge-in.
 *
 * ## The line timeline
 * Inbound sample n of the stream is line sample n (with the provider's timestamps, gaps are kept
 * as gaps). The clock time of line sample 0 is estimated as the earliest "arrival time − audio
 * received so far" over inbound frames (network delay only makes a frame late, never early), so a
 * frame the pacer expects to start playing at clock time T is noted at `T − origin` ms. An error
 * in that estimate is covered by the echo gate's 0–300 ms delay range.
 */
import { TelephonyError, VoicewireError } from '../errors.js';
import { S16_BYTES } from '../internal/s16.js';
import {
  createBargeInDetector,
  type BargeInDecision,
  type BargeInDetector,
  type BargeInDetectorOptions,
  type CallerTurn,
} from './bargeIn/index.js';
import { bytesPerSample, decodeLineAudio, type LineFormat } from './lineFormat.js';
import type { VadBackend } from './vad/types.js';

/** Barge-in by voice: `true` for the defaults, or the detector's options. */
export type BargeInOptions = BargeInDetectorOptions;

/** The detector's rate: its line timeline is 8 kHz samples. */
const DETECTOR_RATE = 8000;
const MS_PER_SECOND = 1000;
/**
 * Inbound audio kept while the detector loads: 2 s. Silero (onnxruntime-node) loads in well under
 * a second on this machine; anything older is dropped (memory stays bounded), the timeline keeps
 * its place.
 */
export const MAX_PENDING_MS = 2000;

/** What the call does with the detector's decisions. */
export interface BargeInActions {
  /** Stop sending new media (the bot is speaking and the caller started). */
  pause(decision: BargeInDecision & { type: 'pause' }): void;
  /** The speech was short: send again from the first unsent frame. */
  resume(decision: BargeInDecision & { type: 'falseInterruption' }): void;
  /** The caller spoke for minInterruptionMs: do what `interrupt()` does. */
  interrupt(decision: BargeInDecision & { type: 'interrupt' }): void;
  turnStarted(event: CallerSpeechStartedEvent): void;
  turnEnded(event: CallerSpeechEndedEvent): void;
  warning(error: VoicewireError): void;
}

/** `callerSpeechStarted`: times on the line timeline (8 kHz samples of inbound audio; ms = sample / 8). */
export interface CallerSpeechStartedEvent {
  /** The speech onset. */
  sample: number;
  /** Where the detector decided (end of the window that confirmed it). */
  detectedAt: number;
  /** `detectedAt` in ms. */
  atMs: number;
}

/** `callerSpeechEnded`, after endOfTurnSilenceMs of silence, with the turn's audio. */
export interface CallerSpeechEndedEvent {
  /** The end of the speech (first sample of the silence). */
  sample: number;
  detectedAt: number;
  atMs: number;
  /** The turn's PCM (with its pre-roll), at 8 or 16 kHz; null when no audio was kept. */
  turn: CallerTurn | null;
}

/** Audio waiting for the detector to load: inbound (caller) or played (bot), in order. */
interface Pending {
  inbound: boolean;
  pcm: Int16Array | Uint8Array;
  atMs: number;
}

const noticed = new Set<string>();
/** The VAD's fallback notice, once per process (not once per call). */
function noticeOnce(message: string): void {
  if (noticed.has(message)) return;
  noticed.add(message);
  console.warn(message);
}

export class VoiceBargeIn {
  private detector: BargeInDetector | null = null;
  private closed = false;
  private pending: Pending[] = [];
  private pendingInboundSamples = 0;
  /** Inbound audio dropped while the detector loaded, in 8 kHz samples. */
  droppedSamples = 0;
  /** Clock time of line sample 0 (NaN until known). */
  private origin = Number.NaN;
  /** Line samples of inbound audio so far (8 kHz). */
  private position = 0;
  /** The provider's timestamp of the first inbound frame, if it gives them. */
  private firstTimestamp: number | undefined;
  /** Whether any inbound audio came (until then the origin is the stream's start). */
  private heardInbound = false;
  private format: LineFormat;

  constructor(
    options: BargeInOptions,
    format: LineFormat,
    private readonly actions: BargeInActions,
    /** Called once the detector is ready (the call tells it whether the bot is speaking). */
    private readonly onReady: (detector: BargeInDetector) => void,
  ) {
    this.format = format;
    const vad = { onNotice: noticeOnce, ...options.vad };
    createBargeInDetector({ ...options, vad }).then(
      (detector) => {
        if (this.closed) {
          detector.close();
          return;
        }
        this.detector = detector;
        this.onReady(detector);
        const queued = this.pending;
        this.pending = [];
        this.pendingInboundSamples = 0;
        for (const p of queued) {
          if (p.inbound) this.run(() => detector.push(p.pcm, p.atMs));
          else this.notePlayedNow(detector, p.pcm, p.atMs);
        }
      },
      (err: unknown) => {
        if (this.closed) return;
        this.closed = true;
        this.pending = [];
        this.actions.warning(
          err instanceof VoicewireError
            ? err
            : new TelephonyError('BARGE_IN_UNAVAILABLE', `barge-in by voice is off: ${(err as Error)?.message ?? String(err)}`, {
                field: 'bargeIn',
                cause: err,
              }),
        );
      },
    );
  }

  /** The VAD backend once the detector has loaded (null before, and after close). */
  get backend(): VadBackend | null {
    return this.detector?.vadBackend ?? null;
  }

  /** The stream started on `format`. */
  setLine(format: LineFormat, now: number): void {
    this.format = format;
    if (Number.isNaN(this.origin)) this.origin = now;
  }

  setBotSpeaking(speaking: boolean): void {
    this.detector?.setBotSpeaking(speaking);
  }

  /** Caller audio (line bytes) that arrived at clock time `now`; `timestamp`: the provider's, in ms. */
  inbound(audio: Uint8Array, now: number, timestamp?: number): void {
    if (this.closed) return;
    const pcm = this.toDetector(audio);
    if (pcm.length === 0) return;
    let atMs = (this.position * MS_PER_SECOND) / DETECTOR_RATE;
    if (timestamp !== undefined && Number.isFinite(timestamp)) {
      this.firstTimestamp ??= timestamp;
      atMs = Math.max(atMs, timestamp - this.firstTimestamp);
    }
    this.position = Math.round((atMs * DETECTOR_RATE) / MS_PER_SECOND) + pcm.length;
    // The earliest arrival − audio so far: network delay only ever makes a frame late.
    const originNow = now - (this.position * MS_PER_SECOND) / DETECTOR_RATE;
    this.origin = this.heardInbound ? Math.min(this.origin, originNow) : originNow;
    this.heardInbound = true;
    const detector = this.detector;
    if (detector !== null) {
      this.run(() => detector.push(pcm, atMs));
      return;
    }
    this.pending.push({ inbound: true, pcm: pcm === audio ? audio.slice() : pcm, atMs });
    this.pendingInboundSamples += pcm.length;
    const max = (MAX_PENDING_MS * DETECTOR_RATE) / MS_PER_SECOND;
    while (this.pendingInboundSamples > max && this.pending.length > 0) {
      const dropped = this.pending.shift()!;
      if (dropped.inbound) {
        this.pendingInboundSamples -= dropped.pcm.length;
        this.droppedSamples += dropped.pcm.length;
      }
    }
  }

  /** Line bytes the phone starts playing at clock time `playAt` (the bot's audio). */
  played(audio: Uint8Array, playAt: number): void {
    if (this.closed || Number.isNaN(this.origin)) return;
    const pcm = this.toDetector(audio);
    if (pcm.length === 0) return;
    const atMs = playAt - this.origin;
    const detector = this.detector;
    if (detector !== null) this.notePlayedNow(detector, pcm, atMs);
    else this.pending.push({ inbound: false, pcm: pcm === audio ? audio.slice() : pcm, atMs });
  }

  /** The call ended: an open turn is reported, the detector is freed. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.pending = [];
    const detector = this.detector;
    this.detector = null;
    if (detector === null) return;
    try {
      this.dispatch(detector.flush());
    } finally {
      detector.close();
    }
  }

  private notePlayedNow(detector: BargeInDetector, pcm: Int16Array | Uint8Array, atMs: number): void {
    if (atMs < 0) return; // before the line timeline began: nothing inbound can echo it
    try {
      detector.notePlayed(pcm, atMs);
    } catch (err) {
      this.actions.warning(asError(err));
    }
  }

  private run(push: () => BargeInDecision[]): void {
    let decisions: BargeInDecision[];
    try {
      decisions = push();
    } catch (err) {
      this.actions.warning(asError(err));
      return;
    }
    this.dispatch(decisions);
  }

  private dispatch(decisions: BargeInDecision[]): void {
    for (let i = 0; i < decisions.length; i++) {
      const d = decisions[i]!;
      switch (d.type) {
        case 'pause':
          this.actions.pause(d);
          break;
        case 'falseInterruption':
          this.actions.resume(d);
          break;
        case 'interrupt':
          this.actions.interrupt(d);
          break;
        case 'callerSpeechStarted':
          this.actions.turnStarted({ sample: d.sample, detectedAt: d.detectedAt, atMs: d.atMs });
          break;
        case 'callerSpeechEnded': {
          const next = decisions[i + 1];
          const turn = next?.type === 'callerTurn' ? next.turn : null;
          if (turn !== null) i++;
          this.actions.turnEnded({ sample: d.sample, detectedAt: d.detectedAt, atMs: d.atMs, turn });
          break;
        }
        case 'resume': // always followed by falseInterruption, which carries the sample
        case 'callerTurn': // follows callerSpeechEnded
          break;
      }
    }
  }

  /**
   * Line bytes → what the detector takes: μ-law 8 kHz bytes as they are; A-law decoded to s16;
   * L16 decoded (16 kHz averaged pairwise down to 8 kHz: a two-tap low-pass, enough for a speech
   * detector and an energy gate).
   */
  private toDetector(audio: Uint8Array): Uint8Array | Int16Array {
    const f = this.format;
    if (f.encoding === 'mulaw' && f.sampleRate === DETECTOR_RATE) return audio;
    const n = f.encoding === 'l16' ? Math.floor(audio.length / S16_BYTES) : audio.length;
    const pcm = new Int16Array(n);
    decodeLineAudio(audio.subarray(0, n * bytesPerSample(f)), f, pcm);
    if (f.sampleRate === DETECTOR_RATE) return pcm;
    const half = new Int16Array(n >> 1);
    for (let i = 0; i < half.length; i++) half[i] = (pcm[2 * i]! + pcm[2 * i + 1]!) >> 1;
    return half;
  }
}

function asError(err: unknown): VoicewireError {
  if (err instanceof VoicewireError) return err;
  return new TelephonyError('BARGE_IN_UNAVAILABLE', `barge-in detector failed: ${(err as Error)?.message ?? String(err)}`, {
    field: 'bargeIn',
    cause: err,
  });
}
