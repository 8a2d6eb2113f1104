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
 * ## Where the detector runs (`detectorThread`)
 * `'worker'` (the default): on a detector thread (./bargeIn/DetectorThreads.ts), so neither its
 * loading nor its VAD windows delay the timers that pace every call's media. The call hands its
 * audio and notes there (by default through its ring in shared memory, ./bargeIn/frameRing.ts,
 * the thread woken on the threads' tick: at most one tick later, `DEFAULT_DETECTOR_TICK_MS`)
 * and gets the decisions back one message hop later, in the same order and on the same sample
 * timeline as in-thread (native-notes/vad.md, "Detectors off the pacing loop").
 * The thread keeps a call's audio while its detector loads there (the loading queue below is the
 * inline mode's). At most {@link MAX_IN_FLIGHT_MS} of audio waits for the thread per call; more is dropped,
 * counted ({@link VoiceBargeIn.droppedSamples}) and warned of once. `'inline'`: on the call's own
 * thread, decisions handed back within the push (what a test on an injected clock wants). A
 * custom `vad.loadOnnxRuntime` (a function, which cannot cross threads) keeps a call inline.
 *
 * ## Call end
 * {@link VoiceBargeIn.close} reports an open caller turn before it calls back, in both modes, so the
 * call emits `callerSpeechEnded` (with the turn's audio) before its `close`. Inline, that is within
 * the call; on a thread, the thread flushes the call's detector and the call waits for its answer,
 * at most {@link CLOSE_ANSWER_TIMEOUT_MS} on the call's clock (then it calls back anyway with a
 * `BARGE_IN_CLOSE_TIMEOUT` warning); a thread that dies meanwhile calls back at once.
 *
 * ## The line timeline
 * Inbound sample n of the stream is line sample n (with the provider's timestamps, gaps are kept
 * as gaps). The clock time of line sample 0 is estimated as the earliest "arrival time − audio
 * received so far" over inbound frames (network delay only makes a frame late, never early), so a
 * frame the pacer expects to start playing at clock time T is noted at `T − origin` ms. An error
 * in that estimate is covered by the echo gate's 0–300 ms delay range.
 */
import { InvalidOptionError, TelephonyError, VoicewireError } from '../errors.js';
import { systemClock, type TelephonyClock } from './clock.js';
import { S16_BYTES } from '../internal/s16.js';
import {
  createBargeInDetector,
  type BargeInDecision,
  type BargeInDetector,
  type BargeInDetectorOptions,
  type CallerTurn,
} from './bargeIn/index.js';
import { detectorThreads } from './bargeIn/DetectorThreads.js';
import { FrameRing } from './bargeIn/frameRing.js';
import type { FromDetector, PortableDetectorOptions, PortableError } from './bargeIn/detectorMessages.js';
import { bytesPerSample, decodeLineAudio, type LineFormat } from './lineFormat.js';
import type { VadBackend } from './vad/types.js';

/** Where a call's barge-in detector runs: a detector thread, or the call's own event loop. */
export type DetectorThread = 'worker' | 'inline';

/** Barge-in by voice: `true` for the defaults, or the detector's options. */
export interface BargeInOptions extends BargeInDetectorOptions {
  /**
   * `'worker'`: the detector runs on a detector thread shared with other calls (see
   * `configureDetectorThreads`), off the loop that paces the calls' media; decisions arrive one
   * message hop after the audio. `'inline'`: on the call's own thread, within each push.
   * @defaultValue 'worker'
   */
  detectorThread?: DetectorThread | undefined;
}

/** What the call needs of its detector once it is ready. */
export interface BargeInReady {
  setBotSpeaking(speaking: boolean): void;
}

/** The detector's rate: its line timeline is 8 kHz samples. */
const DETECTOR_RATE = 8000;
const MS_PER_SECOND = 1000;
/**
 * Inbound audio kept while the detector loads: 2 s. Silero (onnxruntime-node) loads in well under
 * a second on this machine; anything older is dropped (memory stays bounded), the timeline keeps
 * its place.
 */
export const MAX_PENDING_MS = 2000;
/**
 * Audio (inbound and played) a call may have on its way to its detector thread: 5 s. Media can
 * arrive in bursts of a few seconds after a network stall (the example bridge's test sends a whole
 * sentence at once), which must pass; a thread 5 s behind is overloaded, and newer audio is then
 * dropped (the timeline keeps its place: the detector fills the gap with silence). 5 s of μ-law is
 * 40 KB per call.
 */
export const MAX_IN_FLIGHT_MS = 5000;
/**
 * At call end, how long the call waits for its detector thread to flush the call's detector (an
 * open turn) before it closes anyway: 1 s on the call's clock. The answer takes one message hop
 * each way plus at most {@link MAX_IN_FLIGHT_MS} of queued audio, which the thread works through
 * in tens of ms (native-notes/vad.md: ~12 CPU ms per call-second with Silero on every window); a
 * thread that has not answered in 1 s is stuck, and a hang-up must not wait on it.
 */
export const CLOSE_ANSWER_TIMEOUT_MS = 1000;

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
  /** The call's place on a detector thread (worker mode), once opened. */
  private remote: RemoteDetector | null = null;
  private closed = false;
  private pending: Pending[] = [];
  private pendingInboundSamples = 0;
  /** Inbound audio dropped (while the detector loaded, or while its thread was behind), in 8 kHz samples. */
  droppedSamples = 0;
  /** Played-audio notes dropped while the detector thread was behind, in 8 kHz samples. */
  droppedPlayedSamples = 0;
  /** Clock time of line sample 0 (NaN until known). */
  private origin = Number.NaN;
  /** Line samples of inbound audio so far (8 kHz). */
  private position = 0;
  /** The provider's timestamp of the first inbound frame, if it gives them. */
  private firstTimestamp: number | undefined;
  /** Whether any inbound audio came (until then the origin is the stream's start). */
  private heardInbound = false;
  private format: LineFormat;
  private botSpeaking = false;

  constructor(
    options: BargeInOptions,
    format: LineFormat,
    private readonly actions: BargeInActions,
    /** Called once the detector is ready (the call tells it whether the bot is speaking). */
    private readonly onReady: (detector: BargeInReady) => void,
    /** The call's clock: times the wait for the detector thread at call end. @defaultValue the system clock */
    private readonly clock: TelephonyClock = systemClock,
  ) {
    this.format = format;
    const { detectorThread = 'worker', ...detectorOptions } = options;
    const onNotice = options.vad?.onNotice ?? noticeOnce;
    if (detectorThread !== 'worker' && detectorThread !== 'inline') {
      queueMicrotask(() =>
        this.fail(
          new InvalidOptionError('bargeIn.detectorThread', `detectorThread must be 'worker' or 'inline', got ${String(detectorThread)}`),
        ),
      );
      return;
    }
    if (detectorThread === 'worker' && options.vad?.loadOnnxRuntime === undefined) {
      this.remote = new RemoteDetector(portable(detectorOptions), onNotice, this.clock, {
        ready: (link) =>
          this.ready(link, (p) => {
            if (p.inbound) {
              if (!link.push(p.pcm, p.atMs)) this.dropInFlight(p.pcm.length);
            } else if (p.atMs >= 0 && !link.notePlayed(p.pcm, p.atMs)) this.droppedPlayedSamples += p.pcm.length;
          }),
        failed: (error) => this.fail(fromPortable(error, 'barge-in by voice is off')),
        decisions: (decisions) => this.dispatch(decisions),
        warning: (error) => this.actions.warning(fromPortable(error, 'barge-in detector failed')),
      });
      return;
    }
    const vad = { onNotice, ...options.vad };
    createBargeInDetector({ ...detectorOptions, vad }).then(
      (detector) => {
        if (this.closed) {
          detector.close();
          return;
        }
        this.detector = detector;
        this.ready(detector, (p) =>
          p.inbound ? this.run(() => detector.push(p.pcm, p.atMs)) : this.notePlayedNow(detector, p.pcm, p.atMs),
        );
      },
      (err: unknown) => this.fail(err),
    );
  }

  /** The VAD backend once the detector has loaded (null before, and after close). */
  get backend(): VadBackend | null {
    if (this.closed) return null;
    return this.detector?.vadBackend ?? this.remote?.backend ?? null;
  }

  /** Where the detector runs (`'inline'` when a custom `loadOnnxRuntime` kept it in this thread). */
  get thread(): DetectorThread {
    return this.remote === null ? 'inline' : 'worker';
  }

  /**
   * Resolves once the detector thread has answered everything posted so far (at once inline);
   * what waits for the threads' tick is sent at once.
   */
  settled(): Promise<void> {
    return this.remote?.settled() ?? Promise.resolve();
  }

  /** The stream started on `format`. */
  setLine(format: LineFormat, now: number): void {
    this.format = format;
    if (Number.isNaN(this.origin)) this.origin = now;
  }

  setBotSpeaking(speaking: boolean): void {
    this.botSpeaking = speaking;
    if (this.closed) return;
    this.detector?.setBotSpeaking(speaking);
    if (this.remote?.isReady) this.remote.setBotSpeaking(speaking);
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
    if (this.remote?.isReady) {
      if (!this.remote.push(pcm, atMs)) this.dropInFlight(pcm.length);
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
    else if (this.remote?.isReady) {
      if (atMs >= 0 && !this.remote.notePlayed(pcm, atMs)) this.droppedPlayedSamples += pcm.length;
    } else this.pending.push({ inbound: false, pcm: pcm === audio ? audio.slice() : pcm, atMs });
  }

  /**
   * The call ended: an open turn is reported, the detector is freed, then `onClosed` is called (the
   * call emits its `close` there, so the last turn comes first). Inline, all before this returns.
   * On a detector thread, when the thread has answered with the call's last decisions; if it has
   * not within {@link CLOSE_ANSWER_TIMEOUT_MS}, with one `BARGE_IN_CLOSE_TIMEOUT` warning first (a
   * late answer is dropped); if the thread dies meanwhile, at once with one `BARGE_IN_UNAVAILABLE`.
   * A detector still loading has decided nothing yet: called back at once.
   */
  close(onClosed?: () => void): void {
    if (this.closed) {
      onClosed?.();
      return;
    }
    this.closed = true;
    this.pending = [];
    const remote = this.remote;
    if (remote !== null) {
      remote.close((outcome) => {
        if (outcome === 'timeout') {
          this.actions.warning(
            new TelephonyError(
              'BARGE_IN_CLOSE_TIMEOUT',
              `barge-in detector thread did not answer within ${CLOSE_ANSWER_TIMEOUT_MS} ms of the call's end: ` +
                'an open caller turn is not reported',
              { field: 'bargeIn' },
            ),
          );
        } else if (outcome === 'threadStopped') {
          this.actions.warning(
            new TelephonyError(
              'BARGE_IN_UNAVAILABLE',
              `barge-in detector thread stopped at the call's end: an open caller turn is not reported`,
              {
                field: 'bargeIn',
              },
            ),
          );
        }
        onClosed?.();
      });
      return;
    }
    const detector = this.detector;
    this.detector = null;
    if (detector !== null) {
      try {
        this.dispatch(detector.flush());
      } finally {
        detector.close();
      }
    }
    onClosed?.();
  }

  /** The detector is ready: it hears whether the bot speaks, then what waited while it loaded. */
  private ready(link: BargeInReady, replay: (p: Pending) => void): void {
    link.setBotSpeaking(this.botSpeaking);
    this.onReady(link);
    const queued = this.pending;
    this.pending = [];
    this.pendingInboundSamples = 0;
    for (const p of queued) replay(p);
  }

  private fail(err: unknown): void {
    if (this.closed) return;
    this.closed = true;
    this.pending = [];
    this.remote?.close(noop);
    this.actions.warning(
      err instanceof VoicewireError
        ? err
        : new TelephonyError('BARGE_IN_UNAVAILABLE', `barge-in by voice is off: ${(err as Error)?.message ?? String(err)}`, {
            field: 'bargeIn',
            cause: err,
          }),
    );
  }

  private dropInFlight(samples: number): void {
    if (this.droppedSamples === 0) {
      this.actions.warning(
        new TelephonyError(
          'BARGE_IN_BEHIND',
          `barge-in detector thread is more than ${MAX_IN_FLIGHT_MS} ms behind: caller audio dropped (heard as silence)`,
          { field: 'bargeIn' },
        ),
      );
    }
    this.droppedSamples += samples;
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

interface RemoteEvents {
  ready(link: RemoteDetector): void;
  failed(error: PortableError): void;
  decisions(decisions: BargeInDecision[]): void;
  warning(error: PortableError): void;
}

/**
 * Whether to transfer each frame's copy to the detector thread rather than clone it. Measured
 * (native-notes/vad.md, "Detectors off the pacing loop"): for a 160-byte frame both cost the
 * same within noise; transfer avoids the second copy the clone makes.
 */
const TRANSFER_FRAMES = true;

/** How a call's wait for its detector thread at call end ended. */
type CloseOutcome = 'answered' | 'notLoaded' | 'timeout' | 'threadStopped';

/**
 * A call's detector on a detector thread: hands it its audio and notes, hands back what the thread
 * decides. With the shared transport (the default, `configureDetectorThreads({ transport })`) the
 * audio, notes and bot changes go through the call's ring in shared memory (./bargeIn/frameRing.ts)
 * and the thread is rung on the threads' tick; else each goes as a message.
 */
class RemoteDetector implements BargeInReady {
  private readonly id: number;
  /** The call's ring (shared transport), or null (messages). */
  private readonly ring: FrameRing | null;
  /** A bot change the full ring refused: written before the next record (order kept). */
  private botBacklog: boolean | null = null;
  /** The thread is gone or the call released: nothing is in flight any more. */
  private detached = false;
  private ready = false;
  private closing = false;
  /** At call end: called once the thread has answered (or not in time, or died). */
  private onClosed: ((outcome: CloseOutcome) => void) | null = null;
  private closeTimer: unknown = null;
  backend: VadBackend | null = null;
  /** Samples posted and not yet answered (inbound and played; messages transport). */
  private posted = 0;
  private waiters: (() => void)[] = [];
  private readonly maxInFlight = (MAX_IN_FLIGHT_MS * DETECTOR_RATE) / MS_PER_SECOND;

  constructor(
    options: PortableDetectorOptions,
    private readonly onNotice: (message: string) => void,
    private readonly clock: TelephonyClock,
    private readonly events: RemoteEvents,
  ) {
    this.ring = detectorThreads.transport === 'shared' ? new FrameRing() : null;
    this.id = detectorThreads.attach({ message: (m) => this.message(m), failed: (e) => this.failed(e) });
    detectorThreads.post(
      this.id,
      this.ring === null ? { t: 'open', id: this.id, options } : { t: 'open', id: this.id, options, ring: this.ring.buffer },
    );
  }

  /** Samples handed to the thread and not yet taken by it (inbound and played). */
  private get inFlight(): number {
    if (this.detached) return 0;
    return this.ring === null ? this.posted : this.ring.inFlight;
  }

  /**
   * Whether the call may post to the thread: from the start (until close). While the detector
   * loads, the thread keeps the call's messages in order (within {@link MAX_IN_FLIGHT_MS}), so the
   * call's own loading queue stays empty: with the pacing loop free, a burst of caller audio
   * during the load would otherwise overflow its 2 s.
   */
  get isReady(): boolean {
    return !this.closing;
  }

  setBotSpeaking(speaking: boolean): void {
    const ring = this.ring;
    if (ring === null) {
      detectorThreads.post(this.id, { t: 'bot', id: this.id, speaking });
      return;
    }
    // The latest change supersedes a refused one (no audio was written after it: send writes it first).
    this.botBacklog = ring.writeBot(speaking) ? null : speaking;
    detectorThreads.ring(this.id);
  }

  /** false: the thread is {@link MAX_IN_FLIGHT_MS} behind and the audio was not sent. */
  push(pcm: Uint8Array | Int16Array, atMs: number): boolean {
    return this.send('in', pcm, atMs);
  }

  notePlayed(pcm: Uint8Array | Int16Array, atMs: number): boolean {
    return this.send('played', pcm, atMs);
  }

  settled(): Promise<void> {
    // With a ring, the thread is asked to answer once it has emptied it, decisions or not.
    const taken = this.inFlight === 0 || this.ring?.wantAnswer() === true;
    if (taken && (!this.closing || !detectorThreads.has(this.id))) return Promise.resolve();
    detectorThreads.flushNow(this.id); // a waiter does not wait for the tick
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Asks the thread to flush and free the call's detector; `onClosed` once it has answered (bounded). */
  close(onClosed: (outcome: CloseOutcome) => void): void {
    if (this.closing) return;
    this.closing = true;
    detectorThreads.post(this.id, { t: 'close', id: this.id });
    if (!this.ready || !detectorThreads.has(this.id)) {
      // Not yet loaded: the thread frees it when it is, and answers nothing (it decided nothing yet).
      this.release();
      onClosed('notLoaded');
      return;
    }
    this.onClosed = onClosed;
    this.closeTimer = this.clock.setTimeout(() => {
      this.closeTimer = null;
      this.release(); // a late answer is dropped: the call has closed
      this.closed('timeout');
      this.wake();
    }, CLOSE_ANSWER_TIMEOUT_MS);
  }

  /** The wait at call end is over. */
  private closed(outcome: CloseOutcome): void {
    const onClosed = this.onClosed;
    if (onClosed === null) return;
    this.onClosed = null;
    if (this.closeTimer !== null) this.clock.clearTimeout(this.closeTimer);
    this.closeTimer = null;
    onClosed(outcome);
  }

  private send(t: 'in' | 'played', pcm: Uint8Array | Int16Array, atMs: number): boolean {
    const ring = this.ring;
    if (ring !== null && !this.detached) {
      if (!ring.fits(pcm.length, this.maxInFlight)) return false;
    } else if (this.inFlight + pcm.length > this.maxInFlight) return false;
    if (ring !== null) {
      if (this.botBacklog !== null) {
        if (!ring.writeBot(this.botBacklog)) return false;
        this.botBacklog = null;
      }
      if (!ring.writeAudio(t === 'in', pcm, atMs)) return false;
      detectorThreads.ring(this.id);
      return true;
    }
    this.posted += pcm.length;
    // A frame of its own: a view on the socket's pooled buffer would clone the whole pool.
    const own = pcm.byteOffset === 0 && pcm.byteLength === pcm.buffer.byteLength ? pcm : pcm.slice();
    detectorThreads.post(
      this.id,
      { t, id: this.id, pcm: own, atMs },
      TRANSFER_FRAMES && own !== pcm ? (own.buffer as ArrayBuffer) : undefined,
    );
    return true;
  }

  private message(m: FromDetector): void {
    switch (m.t) {
      case 'ready':
        this.ready = true;
        this.backend = m.backend;
        if (!this.closing) this.events.ready(this);
        break;
      case 'failed':
        this.release();
        this.events.failed(m.error);
        break;
      case 'decisions':
        this.posted -= m.samples;
        this.events.decisions(m.decisions);
        break;
      case 'warning':
        this.events.warning(m.error);
        break;
      case 'notice':
        this.onNotice(m.message);
        break;
      case 'closed':
        this.release();
        this.events.decisions(m.decisions);
        this.closed('answered');
        break;
    }
    this.wake();
  }

  private failed(error: PortableError): void {
    this.posted = 0;
    this.detached = true;
    this.events.failed({ ...error, message: `its detector thread stopped: ${error.message}` });
    this.closed('threadStopped'); // a dead thread does not hold the call's close back
    this.wake();
  }

  private release(): void {
    detectorThreads.release(this.id);
    this.posted = 0;
    this.detached = true;
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    // More came after the answer: ask again, and send the doorbell for it now rather than at the tick's end.
    if (this.inFlight > 0 && this.ring?.wantAnswer() !== true) {
      detectorThreads.flushNow(this.id);
      return;
    }
    if (this.closing && detectorThreads.has(this.id)) return;
    for (const w of this.waiters.splice(0)) w();
  }
}

/** The options a detector thread can take: `onNotice` is relayed back, functions stay here. */
function portable(options: BargeInDetectorOptions): PortableDetectorOptions {
  const { vad, ...rest } = options;
  if (vad === undefined) return rest;
  const { onNotice: _onNotice, loadOnnxRuntime: _load, ...portableVad } = vad;
  return { ...rest, vad: portableVad };
}

/** A detector thread's fault as a typed error: bad options as they were, anything else as BARGE_IN_UNAVAILABLE. */
function fromPortable(error: PortableError, context: string): VoicewireError {
  if (error.name === 'InvalidOptionError') return new InvalidOptionError(error.field ?? 'bargeIn', error.message);
  return new TelephonyError('BARGE_IN_UNAVAILABLE', `${context}: ${error.message}`, { field: error.field ?? 'bargeIn' });
}

function noop(): void {}

function asError(err: unknown): VoicewireError {
  if (err instanceof VoicewireError) return err;
  return new TelephonyError('BARGE_IN_UNAVAILABLE', `barge-in detector failed: ${(err as Error)?.message ?? String(err)}`, {
    field: 'bargeIn',
    cause: err,
  });
}
