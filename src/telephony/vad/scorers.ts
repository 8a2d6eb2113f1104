/**
 * The three ways of scoring windows of caller audio. Each cuts its own windows (so results do not
 * depend on push sizes) and reports (start sample, length, probability) in input order.
 */
import { Framer } from './framer.js';
import type { SileroBatch, SileroVad } from './silero.js';
import type { WebrtcVad } from './webrtc.js';

export type OnWindow = (start: number, samples: number, probability: number) => void;

/**
 * Asked for every window of the gated scorer, in order, before the window is scored: whether the
 * Silero network may run on it (the WebRTC gate must also be open). A caller that knows more than
 * the VAD (the barge-in detector: the echo bound, the line's noise floor, whether a turn is open)
 * keeps the network asleep where its answer cannot change a decision (the window scores 0; a
 * network that slept is reset and warmed when it wakes). `'hold'`: if the network is running
 * (it scored the window before), it skips this window but keeps its state (the context moves on to
 * this window's end) and the window scores the last probability again; otherwise as true. Omitted: always.
 */
export type ModelWake = (start: number, window: Int16Array) => boolean | 'hold';

/**
 * Whether a window's mean square reaches `floor` (s16 units squared; 0 lets everything through).
 * A level floor rejects what is too quiet to be the caller, such as the bot's own echo.
 */
export function loudEnough(window: Int16Array, floor: number): boolean {
  if (floor <= 0) return true;
  let sum = 0;
  for (let i = 0; i < window.length; i++) sum += window[i]! * window[i]!;
  return sum >= floor * window.length;
}

export interface Scorer {
  feed(pcm: Int16Array, onWindow: OnWindow): void;
  reset(): void;
  close(): void;
  /** Windows scored, and how many of them ran the Silero network. */
  readonly stats: { windows: number; modelWindows: number };
}

/** What a single-detector scorer needs of its detector: a score per fixed-size window. */
interface WindowDetector {
  process(window: Int16Array): number;
  reset(): void;
}

/**
 * One detector on its own windows (WebRTC's 10 ms frames, or Silero's windows). The detector sees
 * every window, so a network's state follows the whole stream; the level floor masks after.
 */
export class FramedScorer implements Scorer {
  readonly stats = { windows: 0, modelWindows: 0 };
  private readonly framer: Framer;

  private constructor(
    private readonly detector: WindowDetector,
    windowSamples: number,
    /** Whether the detector is the Silero network (counted in `stats.modelWindows`). */
    private readonly isModel: boolean,
    private readonly floor: number,
    private readonly release: () => void,
  ) {
    this.framer = new Framer(windowSamples);
  }

  static webrtc(vad: WebrtcVad, floor = 0): FramedScorer {
    return new FramedScorer(vad, vad.frameSamples, false, floor, () => vad.close());
  }

  /** The Silero session is shared by the process: closing a scorer leaves it open. */
  static silero(vad: SileroVad, floor = 0): FramedScorer {
    return new FramedScorer(vad, vad.windowSamples, true, floor, () => undefined);
  }

  feed(pcm: Int16Array, onWindow: OnWindow): void {
    this.framer.push(pcm, (window, start) => {
      this.stats.windows++;
      if (this.isModel) this.stats.modelWindows++;
      const score = this.detector.process(window);
      onWindow(start, window.length, loudEnough(window, this.floor) ? score : 0);
    });
  }

  reset(): void {
    this.framer.reset();
    this.detector.reset();
  }

  close(): void {
    this.release();
  }
}

/** The gate stays open this long after the last frame WebRTC called voice. */
export const GATE_HANGOVER_MS = 200;
/**
 * Windows before the opening replayed into a fresh Silero state: the network needs a few windows
 * of context, and the onset WebRTC found may be late by a frame or two.
 */
export const GATE_WARM_WINDOWS = 3;
/** The largest slice of input handled at once, so the gate's memory is bounded. */
export const GATE_SLICE_SAMPLES = 4096;
const MS_PER_SECOND = 1000;

/**
 * WebRTC runs on every 10 ms frame; Silero runs only on windows whose span, or the hangover
 * before it, holds a voiced WebRTC frame. Each opening starts Silero from a zero state warmed on
 * the last {@link GATE_WARM_WINDOWS} windows; a closed gate scores 0.
 */
export class GatedScorer implements Scorer {
  readonly stats = { windows: 0, modelWindows: 0 };
  private readonly frames: Framer;
  private readonly windows: Framer;
  /** Voice flags of recent WebRTC frames, by frame index modulo the ring length. */
  private readonly flags: Uint8Array;
  private framesDone = 0;
  private readonly hangover: number;
  private readonly history: Int16Array[];
  private historyCount = 0;
  private open = false;

  constructor(
    private readonly gate: WebrtcVad,
    private readonly silero: SileroVad,
    sampleRate: number,
    private readonly floor = 0,
    private readonly wake: ModelWake | null = null,
    /**
     * Given, the network's windows are left on the batch (run with other calls' windows) and
     * `onWindow` is called for a window that needs the network when the batch runs, after
     * `feed` has returned; the other windows are reported at once.
     */
    private readonly batch: SileroBatch | null = null,
  ) {
    this.frames = new Framer(gate.frameSamples);
    this.windows = new Framer(silero.windowSamples);
    this.hangover = (GATE_HANGOVER_MS * sampleRate) / MS_PER_SECOND;
    const span = GATE_SLICE_SAMPLES + this.hangover + 2 * silero.windowSamples;
    this.flags = new Uint8Array(Math.ceil(span / gate.frameSamples) + 2);
    this.history = Array.from({ length: GATE_WARM_WINDOWS }, () => new Int16Array(silero.windowSamples));
  }

  /** The caller's `onWindow` during {@link feed} (kept in a field so the framers' callbacks are made once, not per push). */
  private onWindow: OnWindow | null = null;
  private readonly onFrame = (frame: Int16Array): void => {
    this.flags[this.framesDone++ % this.flags.length] = this.gate.process(frame);
  };
  private readonly onModelWindow = (window: Int16Array, start: number): void => this.window(window, start, this.onWindow!);

  feed(pcm: Int16Array, onWindow: OnWindow): void {
    this.onWindow = onWindow;
    for (let i = 0; i < pcm.length; i += GATE_SLICE_SAMPLES) {
      // A push within one slice (a 20 ms frame: always) goes as it is, without a view.
      const slice = pcm.length <= GATE_SLICE_SAMPLES ? pcm : pcm.subarray(i, Math.min(pcm.length, i + GATE_SLICE_SAMPLES));
      this.frames.push(slice, this.onFrame);
      this.windows.push(slice, this.onModelWindow);
    }
    this.onWindow = null;
  }

  private window(window: Int16Array, start: number, onWindow: OnWindow): void {
    this.stats.windows++;
    const end = start + window.length;
    // The hook sees every window (it may track levels), so it is asked first.
    const answer = this.wake === null || this.wake(start, window);
    const open = answer !== false && this.voiced(start - this.hangover, end) && loudEnough(window, this.floor);
    let p = 0;
    let deferred = false;
    if (open && answer === 'hold' && this.open && this.silero.hold(window)) {
      // The network skipped this window (nothing of this stream was queued): its state stays, its
      // context moved on, its score is held.
      p = this.silero.lastProbability;
    } else if (open) {
      const batch = this.batch;
      // An opening starts the network afresh, warmed on the windows before it (in order, before this one).
      let fresh = !this.open;
      if (fresh) {
        if (batch === null) this.silero.reset();
        for (let k = Math.min(this.historyCount, GATE_WARM_WINDOWS); k > 0; k--) {
          const warm = this.history[(this.historyCount - k) % GATE_WARM_WINDOWS]!;
          if (batch === null) this.silero.process(warm);
          else batch.defer(this.silero, warm, null, fresh);
          fresh = false;
          this.stats.modelWindows++;
        }
      }
      this.stats.modelWindows++;
      if (batch === null) p = this.silero.process(window);
      else {
        const samples = window.length;
        batch.defer(this.silero, window, (q) => onWindow(start, samples, q), fresh);
        deferred = true;
      }
    }
    this.open = open;
    this.history[this.historyCount++ % GATE_WARM_WINDOWS]!.set(window);
    if (!deferred) onWindow(start, window.length, p);
  }

  /** Whether any WebRTC frame lying wholly inside [from, to) was voiced. */
  private voiced(from: number, to: number): boolean {
    const size = this.gate.frameSamples;
    const first = Math.max(0, Math.ceil(from / size));
    const last = Math.min(this.framesDone, Math.floor(to / size));
    for (let f = first; f < last; f++) if (this.flags[f % this.flags.length] === 1) return true;
    return false;
  }

  reset(): void {
    this.frames.reset();
    this.windows.reset();
    this.gate.reset();
    this.silero.reset();
    this.flags.fill(0);
    this.framesDone = 0;
    this.historyCount = 0;
    this.open = false;
  }

  close(): void {
    this.gate.close();
  }
}
