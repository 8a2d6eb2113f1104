/**
 * `createBargeInDetector()`: one call's barge-in by voice. Wires the caller-audio VAD
 * (`createVad`, its per-window probabilities), the echo gate (fed what the bridge played) and the
 * barge-in policy, and keeps each caller turn's audio. Push the caller's audio (μ-law bytes or L16
 * at 8 kHz) and note every frame the bot plays; each call returns the decisions its audio
 * completed. Clock-free: times are samples on the line timeline (see ./types.ts).
 */
import { InvalidOptionError } from '../../errors.js';
import { mulawDecode } from '../../dsp/mulaw.js';
import { loadResampler } from '../../dsp/Resampler.js';
import { createVad, type Vad } from '../vad/createVad.js';
import { SILERO_WINDOW_SAMPLES, type SileroBatch } from '../vad/silero.js';
import type { VadBackend, VadEvent, VadOptions } from '../vad/types.js';
import { BargeInPolicy, type WindowEvidence } from './BargeInPolicy.js';
import { CallerTurns, INBOUND_SLICE_SAMPLES } from './CallerTurns.js';
import { EchoGate } from './EchoGate.js';
import { LINE_BANDS_WINDOW, LineBands } from './LineBands.js';
import { NoiseFloor } from './NoiseFloor.js';
import { choiceOption, countOption, dbOption } from './optionChecks.js';
import {
  DEFAULT_ECHO_COMPARE,
  DEFAULT_ONSET_ABOVE_FLOOR_DB,
  LINE_RATE,
  PEAK_BLOCK_SAMPLES,
  SOUND_RANGE_DB,
  type BargeInDecision,
  type BargeInPolicyOptions,
  type CallerTurnOptions,
  type EchoGateOptions,
} from './types.js';

const MS_PER_SECOND = 1000;
/** A push whose `atMs` is later than the audio so far by more than one 20 ms media frame fills the gap with silence. */
export const INBOUND_GAP_TOLERANCE_MS = 20;
/** The longest gap filled with silence; a later push starts after this much (bounded work per push). */
export const MAX_INBOUND_GAP_MS = 10_000;
/**
 * In a caller turn already decided, the Silero network runs only on windows this far above the
 * line's noise floor; the others are silence. 3 dB: the noise itself sits 1–2 dB above its
 * tracked floor. Waking on this level out of a turn delayed onsets (pause p95 144 → 400 ms), so
 * it is not used there (native-notes/vad.md, "Silero only where it decides").
 */
export const DEFAULT_MODEL_WAKE_ABOVE_FLOOR_DB = 3;
/** Blocks of level history kept for finding where a sound began: 32 × 8 ms = 256 ms (over the longest backdate). */
const SOUND_HISTORY_BLOCKS = 32;
/**
 * `'level'`: Silero on 23 % of the noisy mix's windows instead of 75 % (12 % instead of 51 % on
 * the quiet one), the same pauses and interrupts, turn ends on the corpus as the model's (p95
 * +6 ms); the price: a sudden loud noise right after a turn (pink noise at −25 dBFS after
 * near-silence) keeps the turn open until the recent floor catches up (~1 s), so 3 of 15 turns
 * of the noisy mix merged with the next (native-notes/vad.md).
 */
export const DEFAULT_TURN_TRACKING: 'model' | 'level' = 'level';
/** 6 dB: at 3 dB, turns ended 450 ms late at p95 on the corpus (noise at 5 dB SNR kept them open). */
export const DEFAULT_TURN_LEVEL_ABOVE_FLOOR_DB = 6;
/**
 * With `turnTracking: 'level'`, a window over the floor in a decided turn stands for speech with
 * this probability (over the policy's stop threshold: it keeps the turn going).
 */
const LEVEL_SPEECH_PROBABILITY = 0.5;
/**
 * Out of a turn, a running network may skip up to this many windows in a row (`idleModelHold`)
 * where the line is steady. 2: Silero on 20 % of the noisy mix's windows instead of 29 % (25
 * instead of 37 on the telephony bench's caller track), every decision on the mixes the same, the
 * corpus's and the call's targets kept; 4 lost the pause p95 (176 → 240 ms), an unbounded hold
 * lost onsets at 10 dB (the state goes stale). 0: off. native-notes/vad.md, "Silero inside a turn".
 */
export const DEFAULT_IDLE_MODEL_HOLD = 2;
/** `idleModelHold`: a window is steady while its loudest block is under this far (dB) over the recent floor (or under the echo bound). */
export const DEFAULT_IDLE_HOLD_BELOW_DB = 3;
/** `idleModelHold`: …and the network's last score is under this (it has settled on non-speech). */
export const IDLE_HOLD_UNDER_PROBABILITY = 0.1;
/**
 * How the idle hold (`idleModelHold`) judges a window steady line noise: `'level'`, its loudest
 * 8 ms block under `idleHoldBelowDb` over the recent floor, at most `idleModelHold` windows in a
 * row; `'bands'`, every sub-band of the window within `bandHoldBelowDb` of its own floor
 * (./LineBands.ts), at most `bandModelHold` windows in a row. `'bands'`: Silero on 14.3 % of the
 * noisy mix's windows instead of 20.2, 15.4 instead of 24.7 on the telephony bench's caller track,
 * 8.5 instead of 10.7 on the quiet mix, the corpus's interrupts and pauses the same, through a call
 * pause p95 138 ms instead of 143 and clear p95 300 ms for both (native-notes/vad.md, "A per-band
 * judge of line noise"). It was held back by a Telnyx call's 150 ms burst that interrupted: the
 * span counted the line's noise after it, which the span rule no longer does
 * (native-notes/vad.md, "The Telnyx burst traced").
 */
export const DEFAULT_LINE_JUDGE: 'level' | 'bands' = 'bands';
/**
 * `lineJudge: 'bands'`: a window is steady while no band rose this far (dB) over its floor. 6: the
 * most risen of six bands of the corpus's stationary noise clips stays under it (max 5.6 dB), and
 * 39 of 40 utterances at 10 dB SNR lift a band this far within two windows of their onset; 5 held
 * a little less (14.6 % of the noisy mix), 7 moved the interrupt p95 328 → 368 ms.
 */
export const DEFAULT_BAND_HOLD_BELOW_DB = 6;
/**
 * `lineJudge: 'bands'`: the most windows held in a row. 3: one more than the level judge's 2; at 4
 * and 5 the pause p95 on the corpus moved 176 → 240 ms, at 8 to 368 ms with 5 dB onsets lost (the
 * network's state goes stale over a long hold, as with the level judge).
 */
export const DEFAULT_BAND_MODEL_HOLD = 3;
/** The VAD's window at 8 kHz: inbound audio reaches the VAD cut at its edges (see `slice`). */
const VAD_WINDOW = SILERO_WINDOW_SAMPLES[LINE_RATE];

export interface BargeInDetectorOptions extends BargeInPolicyOptions, EchoGateOptions, CallerTurnOptions {
  /** The VAD's backend and notices (its sample rate is the line's 8 kHz). */
  vad?: Pick<VadOptions, 'backend' | 'webrtcMode' | 'onNotice' | 'loadOnnxRuntime'> | undefined;
  /** false: no echo gating (every window may be the caller). For measurements. @defaultValue true */
  echoGate?: boolean | undefined;
  /**
   * In a caller turn already decided, Silero runs only on windows at least this far (dB) above the
   * line's noise floor. For measurements (`modelWake: false` runs it wherever the WebRTC gate is open).
   * @defaultValue {@link DEFAULT_MODEL_WAKE_ABOVE_FLOOR_DB}
   */
  modelWakeAboveFloorDb?: number | undefined;
  /**
   * How a caller turn already decided (interrupted, or the bot silent) is followed to its end:
   * `'model'`, Silero on windows over the floor (modelWakeAboveFloorDb); `'level'`, Silero sleeps
   * and a window is speech while its loudest block is turnLevelAboveFloorDb over the recent floor.
   * @defaultValue {@link DEFAULT_TURN_TRACKING}
   */
  turnTracking?: 'model' | 'level' | undefined;
  /**
   * With `turnTracking: 'level'`: how far over the recent floor a window's loudest block keeps a
   * decided turn going. @defaultValue {@link DEFAULT_TURN_LEVEL_ABOVE_FLOOR_DB}
   */
  turnLevelAboveFloorDb?: number | undefined;
  /** false: Silero wherever the WebRTC gate is open, as the plain gated VAD. For measurements. @defaultValue true */
  modelWake?: boolean | undefined;
  /**
   * Out of a turn, with no onset or pause being decided: a running Silero network skips up to this
   * many windows in a row whose loudest block stands under `idleHoldBelowDb` over the recent floor
   * (or, with `idleHoldEcho`, under the echo bound), while its last score is under
   * {@link IDLE_HOLD_UNDER_PROBABILITY} (steady line noise it has already judged): its state is
   * kept and the window scores that last probability. 0: off. With `lineJudge: 'bands'` (the
   * default) the judge and the bound are the bands' (`bandHoldBelowDb`, `bandModelHold`).
   * @defaultValue {@link DEFAULT_IDLE_MODEL_HOLD}
   */
  idleModelHold?: number | undefined;
  /** See `idleModelHold`. @defaultValue {@link DEFAULT_IDLE_HOLD_BELOW_DB} */
  idleHoldBelowDb?: number | undefined;
  /**
   * `idleModelHold` also on windows under the echo bound: Silero on 18 % of the noisy mix's windows
   * instead of 20 % (the level judge), the corpus's targets kept; it was held back because through a
   * Telnyx (A-law) call a 150 ms burst then interrupted instead of resuming (native-notes/vad.md,
   * "Silero inside a turn"), which the span rule no longer lets happen ("The Telnyx burst traced").
   * For measurements. @defaultValue false
   */
  idleHoldEcho?: boolean | undefined;
  /** How the idle hold judges steady line noise. @defaultValue {@link DEFAULT_LINE_JUDGE} */
  lineJudge?: 'level' | 'bands' | undefined;
  /** See `lineJudge`. @defaultValue {@link DEFAULT_BAND_HOLD_BELOW_DB} */
  bandHoldBelowDb?: number | undefined;
  /** See `lineJudge`. @defaultValue {@link DEFAULT_BAND_MODEL_HOLD} */
  bandModelHold?: number | undefined;
}

export interface BargeInDetector {
  /** The VAD backend in use (`'webrtc'` after a fallback). */
  readonly vadBackend: VadBackend;
  /** Inbound samples taken so far: the line timeline's end. */
  readonly position: number;
  readonly isPaused: boolean;
  /** VAD windows scored so far and how many ran the Silero network (its cost). */
  readonly stats: { readonly windows: number; readonly modelWindows: number };
  /**
   * The caller's audio, in order. `atMs`, if given, is the time of its first sample: a gap over
   * one frame is filled with silence (lost packets); an earlier time is ignored.
   */
  push(audio: Uint8Array | Int16Array, atMs?: number): BargeInDecision[];
  /** A frame the phone plays from `atMs` (the bot's audio, μ-law or L16 8 kHz). Note it before the inbound audio that may echo it. */
  notePlayed(audio: Uint8Array | Int16Array, atMs: number): void;
  /** The bot started / stopped speaking (an utterance is in progress, paused or not). */
  setBotSpeaking(speaking: boolean): void;
  /** End of the call's audio: closes an open turn. */
  flush(): BargeInDecision[];
  /** A new stream: everything starts again from sample 0. */
  reset(): void;
  close(): void;
}

export function createBargeInDetector(options: BargeInDetectorOptions = {}): Promise<BargeInDetector> {
  return build(options, null);
}

/**
 * A detector whose pushes can wait for Silero: {@link steps} yields each time one of its windows
 * waits on the batch; the owner (the detector thread, with many calls' detectors on one batch)
 * runs the batch and resumes it. Decisions are the same as `push()`'s; `push()` itself runs the
 * batch at each wait.
 */
export interface SteppedBargeInDetector extends BargeInDetector {
  /** `push()` in steps: the decisions go to `out` as they are made; yields while a window waits on the batch. */
  steps(audio: Uint8Array | Int16Array, atMs: number | undefined, out: BargeInDecision[]): Generator<void, void, void>;
}

/**
 * @internal The detector thread's detectors: their Silero windows wait on `batch` (see
 * ../vad/silero.ts); null: scored at once, `steps` never yields.
 */
export function createSteppedBargeInDetector(options: BargeInDetectorOptions, batch: SileroBatch | null): Promise<SteppedBargeInDetector> {
  return build(options, batch);
}

async function build(options: BargeInDetectorOptions, batch: SileroBatch | null): Promise<Detector> {
  const gate = new EchoGate(options);
  const policy = new BargeInPolicy(options);
  const turns = new CallerTurns(options);
  if (turns.sampleRate !== LINE_RATE) await loadResampler();
  const wakeDb = dbOption('modelWakeAboveFloorDb', options.modelWakeAboveFloorDb ?? DEFAULT_MODEL_WAKE_ABOVE_FLOOR_DB);
  const compare = choiceOption('echoCompare', options.echoCompare ?? DEFAULT_ECHO_COMPARE, ['window', 'peak']);
  const onsetDb = dbOption('onsetAboveFloorDb', options.onsetAboveFloorDb ?? DEFAULT_ONSET_ABOVE_FLOOR_DB);
  const tracking = choiceOption('turnTracking', options.turnTracking ?? DEFAULT_TURN_TRACKING, ['model', 'level']);
  const levelDb = dbOption('turnLevelAboveFloorDb', options.turnLevelAboveFloorDb ?? DEFAULT_TURN_LEVEL_ABOVE_FLOOR_DB);
  const holdMax = countOption('idleModelHold', options.idleModelHold ?? DEFAULT_IDLE_MODEL_HOLD);
  const holdDb = dbOption('idleHoldBelowDb', options.idleHoldBelowDb ?? DEFAULT_IDLE_HOLD_BELOW_DB);
  const judge = choiceOption('lineJudge', options.lineJudge ?? DEFAULT_LINE_JUDGE, ['level', 'bands']);
  const bandDb = dbOption('bandHoldBelowDb', options.bandHoldBelowDb ?? DEFAULT_BAND_HOLD_BELOW_DB);
  const bandMax = countOption('bandModelHold', options.bandModelHold ?? DEFAULT_BAND_MODEL_HOLD);
  const detector = new Detector(
    gate,
    policy,
    turns,
    options.echoGate ?? true,
    wakeDb,
    compare === 'peak',
    onsetDb,
    {
      byLevel: tracking === 'level' && options.modelWake !== false,
      levelDb,
    },
    batch,
    judge === 'bands' && holdMax > 0
      ? { max: bandMax, belowDb: holdDb, echo: options.idleHoldEcho ?? false, bands: new LineBands(), bandDb }
      : { max: holdMax, belowDb: holdDb, echo: options.idleHoldEcho ?? false, bands: null, bandDb },
  );
  const vad = await createVad({
    ...options.vad,
    sampleRate: LINE_RATE,
    probabilities: true,
    ...(batch === null ? {} : { modelBatch: batch }),
    ...(options.modelWake === false ? {} : { modelWake: (start: number, window: Int16Array) => detector.wake(start, window) }),
  });
  detector.attach(vad);
  return detector;
}

/** The idle hold's judge and bounds (`idleModelHold`, `lineJudge`). */
interface IdleHold {
  /** The most windows held in a row (0: off). */
  max: number;
  /** `'level'`: a window is steady while its loudest block is under this over the recent floor. */
  belowDb: number;
  echo: boolean;
  /** `'bands'`: the judge (null: `'level'`), and how far a band may rise over its floor in a steady window. */
  bands: LineBands | null;
  bandDb: number;
}

/** What the detector measured of one VAD window (once: the noise floor tracks each window once). */
interface WindowFeatures extends WindowEvidence {
  start: number;
  possiblyCaller: boolean;
  aboveFloorDb: number;
  /** `lineJudge: 'bands'`: the window's most risen band over its floor (dB); Infinity without the judge. */
  bandRiseDb: number;
}

class Detector implements SteppedBargeInDetector {
  private readonly decoded = new Int16Array(INBOUND_SLICE_SAMPLES);
  private readonly windowBuf = new Int16Array(INBOUND_SLICE_SAMPLES);
  private lastDecodedView = new Int16Array(0);
  private closed = false;
  private readonly floor = new NoiseFloor(LINE_RATE);
  private vad!: Vad;
  private readonly features: WindowFeatures = {
    start: -1,
    possiblyCaller: true,
    aboveFloorDb: 0,
    bandRiseDb: Infinity,
    peakAboveFloorDb: 0,
    soundSince: -1,
    presentEnd: -1,
    soundUnbroken: false,
  };
  /** Levels (dB over the recent floor) of the latest blocks, by block index modulo the ring length. */
  private readonly blockDb = new Float64Array(SOUND_HISTORY_BLOCKS);
  private blocksDone = 0;
  /** Blocks in the run that the last `soundStart` walked back over. */
  private soundBlocks = 0;
  /** The window (its first sample) that the decided turn follows by level instead of the model; -1 if none. */
  private levelOnly = -1;

  constructor(
    private readonly gate: EchoGate,
    private readonly policy: BargeInPolicy,
    private readonly turns: CallerTurns,
    private readonly gating: boolean,
    private readonly wakeDb: number,
    private readonly comparePeak: boolean,
    private readonly onsetDb: number,
    private readonly tracking: { byLevel: boolean; levelDb: number },
    private readonly batch: SileroBatch | null,
    private readonly idleHold: IdleHold = { max: 0, belowDb: 0, echo: false, bands: null, bandDb: 0 },
  ) {}

  /** The last window's probability as the VAD reported it, and the windows held in a row (`idleModelHold`). */
  private lastProbability = 0;
  private held = 0;

  attach(vad: Vad): void {
    this.vad = vad;
  }

  /**
   * The gated VAD asks before scoring each window (in order; the policy has seen every earlier
   * window, because `slice` feeds the VAD at most one window per call). Out of a turn, and while
   * an onset or a pause is being decided, Silero runs wherever the WebRTC gate is open; in a turn
   * already decided (interrupted, resumed, or the bot silent) it sleeps: with `turnTracking:
   * 'level'` on every window (the level stands for speech, see `part`); with `'model'` on windows
   * at the line's noise floor, which then count as silence towards the turn's end. Out of a turn
   * on a steady line the network already scored as non-speech, it holds (`idleModelHold`).
   */
  wake(start: number, window: Int16Array): boolean | 'hold' {
    const f = this.measure(start, window);
    const p = this.policy;
    const hold = this.idleHold;
    if (
      hold.max > 0 &&
      this.held < hold.max &&
      !p.deciding &&
      !p.inTurn &&
      (this.steady(f) || (hold.echo && !f.possiblyCaller)) &&
      this.lastProbability < IDLE_HOLD_UNDER_PROBABILITY
    ) {
      // Out of a turn on a steady line (or, with idleHoldEcho, under the echo bound) the network has judged
      // as non-speech: its score here cannot start an early pause (it needs a window over the echo
      // bound, 9 dB up and ≥ 0.2) and, held under 0.1, starts no candidate; a running network skips it.
      this.held++;
      return 'hold';
    }
    this.held = 0;
    if (p.deciding) return true;
    if (p.inTurn && this.tracking.byLevel) {
      this.levelOnly = start;
      return false;
    }
    return !p.inTurn || f.aboveFloorDb >= this.wakeDb;
  }

  /** Whether the idle hold's judge takes the window for steady line noise. */
  private steady(f: WindowFeatures): boolean {
    const hold = this.idleHold;
    if (hold.bands === null) return f.peakAboveFloorDb < hold.belowDb;
    return f.bandRiseDb < hold.bandDb;
  }

  private measure(start: number, window: Int16Array): WindowFeatures {
    const f = this.features;
    if (f.start === start) return f;
    const energy = meanSquare(window);
    const bound = this.gating ? this.gate.echoBound(start, window.length) : -1;
    f.start = start;
    f.aboveFloorDb = this.floor.level(energy, window.length);
    let peak = 0;
    f.presentEnd = -1;
    const blocks = this.blockDb;
    for (let i = 0; i < window.length; i += PEAK_BLOCK_SAMPLES) {
      const e = meanSquareOf(window, i, Math.min(window.length, i + PEAK_BLOCK_SAMPLES));
      const db = this.floor.overRecent(e);
      blocks[this.blocksDone++ % blocks.length] = db;
      if (e > peak) peak = e;
      if (db >= this.policy.presentDb) f.presentEnd = start + i + Math.min(PEAK_BLOCK_SAMPLES, window.length - i);
    }
    f.peakAboveFloorDb = this.floor.overRecent(peak);
    f.possiblyCaller = (this.comparePeak ? peak : energy) > bound;
    f.soundSince = this.soundStart(start + window.length, f.peakAboveFloorDb);
    f.soundUnbroken = this.soundBlocks === SOUND_HISTORY_BLOCKS;
    // The band judge only where the idle hold may apply (out of a turn, nothing being decided): its floors never see a turn's speech.
    const bands = this.idleHold.bands;
    const idle = !this.policy.deciding && !this.policy.inTurn;
    f.bandRiseDb = bands !== null && idle && window.length === LINE_BANDS_WINDOW ? bands.window(window) : Infinity;
    return f;
  }

  /**
   * Where the sound that ends at `end` began: walking back from its last block, the first of the
   * run of blocks at least onsetAboveFloorDb over the recent floor and within
   * {@link SOUND_RANGE_DB} of the window's loudest block (so line noise the floor has not caught
   * up with is not taken for the start of a louder sound); -1 if the window's last block is quiet.
   * The run's length in blocks is left in {@link soundBlocks}.
   */
  private soundStart(end: number, peakDb: number): number {
    const floorDb = Math.max(this.onsetDb, peakDb - SOUND_RANGE_DB);
    const n = Math.min(this.blocksDone, SOUND_HISTORY_BLOCKS);
    let k = 0;
    while (k < n && this.blockDb[(this.blocksDone - 1 - k) % SOUND_HISTORY_BLOCKS]! >= floorDb) k++;
    this.soundBlocks = k;
    return k === 0 ? -1 : end - k * PEAK_BLOCK_SAMPLES;
  }

  get vadBackend(): VadBackend {
    return this.vad.backend;
  }

  get position(): number {
    return this.turns.position;
  }

  get isPaused(): boolean {
    return this.policy.isPaused;
  }

  get stats(): { windows: number; modelWindows: number } {
    return this.vad.stats;
  }

  push(audio: Uint8Array | Int16Array, atMs?: number): BargeInDecision[] {
    const out: BargeInDecision[] = [];
    const steps = this.steps(audio, atMs, out);
    while (steps.next().done !== true) this.batch?.run();
    return out;
  }

  *steps(audio: Uint8Array | Int16Array, atMs: number | undefined, out: BargeInDecision[]): Generator<void, void, void> {
    if (this.closed) return;
    checkAudio('audio', audio);
    if (atMs !== undefined) yield* this.fillGap(atMs, out);
    if (audio.length <= INBOUND_SLICE_SAMPLES) {
      // One slice (a 20 ms frame: always): no views of the audio, and the decoded view is kept while the length stays.
      yield* this.slice(audio instanceof Int16Array ? audio : mulawDecode(audio, this.decodedView(audio.length)), out);
      return;
    }
    for (let i = 0; i < audio.length; i += INBOUND_SLICE_SAMPLES) {
      const end = Math.min(audio.length, i + INBOUND_SLICE_SAMPLES);
      const pcm =
        audio instanceof Int16Array ? audio.subarray(i, end) : mulawDecode(audio.subarray(i, end), this.decoded.subarray(0, end - i));
      yield* this.slice(pcm, out);
    }
  }

  /** The first `n` samples of {@link decoded} (the same view while `n` stays the same). */
  private decodedView(n: number): Int16Array {
    if (this.lastDecodedView.length !== n) this.lastDecodedView = this.decoded.subarray(0, n);
    return this.lastDecodedView;
  }

  private *fillGap(atMs: number, out: BargeInDecision[]): Generator<void, void, void> {
    if (!Number.isFinite(atMs)) throw new InvalidOptionError('atMs', `atMs must be a finite number, got ${atMs}`);
    const expectedMs = (this.turns.position * MS_PER_SECOND) / LINE_RATE;
    if (atMs - expectedMs <= INBOUND_GAP_TOLERANCE_MS) return;
    let gap = Math.round((Math.min(atMs - expectedMs, MAX_INBOUND_GAP_MS) * LINE_RATE) / MS_PER_SECOND);
    const zeros = this.decoded.fill(0);
    while (gap > 0) {
      const n = Math.min(gap, zeros.length);
      yield* this.slice(zeros.subarray(0, n), out);
      gap -= n;
    }
  }

  /**
   * Feeds the VAD up to each window edge at a time, so every window is decided before the next is
   * scored; while the policy follows the span block by block (`spanByBlock`), up to each 8 ms
   * block edge, so a block is decided when it is complete whatever the split of the pushes. With a
   * batch, a window that needs Silero waits on it (the piece ends at that window's edge, so it is
   * the piece's last event): this yields, and its probability is in `events` when the owner has
   * run the batch and resumed.
   */
  private *slice(pcm: Int16Array, out: BargeInDecision[]): Generator<void, void, void> {
    for (let i = 0; i < pcm.length;) {
      const at = this.turns.position;
      let n = Math.min(pcm.length - i, VAD_WINDOW - (at % VAD_WINDOW));
      const blocks = this.policy.wantsBlocks;
      if (blocks) n = Math.min(n, PEAK_BLOCK_SAMPLES - (at % PEAK_BLOCK_SAMPLES));
      const piece = pcm.subarray(i, i + n);
      this.turns.append(piece);
      const deferrals = this.batch?.deferrals ?? 0;
      const events = this.vad.push(piece);
      if (this.batch !== null && this.batch.deferrals !== deferrals) yield;
      this.part(events, out);
      i += n;
      const end = at + n;
      if (blocks && end % PEAK_BLOCK_SAMPLES === 0 && end % VAD_WINDOW !== 0) this.blockDone(end, out);
    }
  }

  /** A block between window ends is complete: is it still the caller (over the recent floor and the echo bound)? */
  private blockDone(end: number, out: BargeInDecision[]): void {
    const start = end - PEAK_BLOCK_SAMPLES;
    const block = this.turns.read(start, this.windowBuf.subarray(0, PEAK_BLOCK_SAMPLES));
    const e = meanSquare(block);
    const db = this.floor.overRecent(e);
    const present = db >= this.policy.presentDb && (!this.gating || e > this.gate.echoBound(start, PEAK_BLOCK_SAMPLES));
    const before = out.length;
    this.policy.block(start, end, present, out, db);
    this.afterDecisions(out, before);
  }

  private part(events: VadEvent[], out: BargeInDecision[]): void {
    for (const e of events) {
      if (e.type !== 'probability') continue;
      // Measured when the gated VAD asked; read back from the ring only for the other backends.
      const f =
        this.features.start === e.sample
          ? this.features
          : this.measure(e.sample, this.turns.read(e.sample, this.windowBuf.subarray(0, e.samples)));
      const before = out.length;
      const p = this.levelOnly === e.sample ? (f.peakAboveFloorDb >= this.tracking.levelDb ? LEVEL_SPEECH_PROBABILITY : 0) : e.probability;
      this.lastProbability = e.probability;
      this.policy.window(e.sample, e.samples, p, f.possiblyCaller, out, f.aboveFloorDb, f);
      this.afterDecisions(out, before);
    }
  }

  /** Opens and closes turn audio on the policy's edges. */
  private afterDecisions(out: BargeInDecision[], from: number): void {
    for (let k = from; k < out.length; k++) {
      const d = out[k]!;
      if (d.type === 'callerSpeechStarted') this.turns.start(d.sample, d.detectedAt);
      if (d.type === 'callerSpeechEnded') {
        const turn = this.turns.end(d.sample);
        if (turn) out.splice(++k, 0, { type: 'callerTurn', turn, detectedAt: d.detectedAt, atMs: d.atMs });
      }
    }
  }

  notePlayed(audio: Uint8Array | Int16Array, atMs: number): void {
    if (this.closed) return;
    checkAudio('audio', audio);
    if (!Number.isFinite(atMs)) throw new InvalidOptionError('atMs', `atMs must be a finite number, got ${atMs}`);
    const start = (atMs * LINE_RATE) / MS_PER_SECOND;
    // μ-law: the gate sums each block's energy from the codes (no decode, no views per frame).
    if (audio instanceof Uint8Array) this.gate.notePlayedMulaw(audio, start);
    else this.gate.notePlayed(audio, start);
  }

  setBotSpeaking(speaking: boolean): void {
    this.policy.setBotSpeaking(speaking);
  }

  flush(): BargeInDecision[] {
    const out: BargeInDecision[] = [];
    if (this.closed) return out;
    this.vad.flush();
    this.policy.flush(this.turns.position, out);
    this.afterDecisions(out, 0);
    return out;
  }

  reset(): void {
    this.vad.reset();
    this.gate.reset();
    this.policy.reset();
    this.turns.reset();
    this.floor.reset();
    this.idleHold.bands?.reset();
    this.features.start = -1;
    this.blocksDone = 0;
    this.levelOnly = -1;
    this.lastProbability = 0;
    this.held = 0;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.vad.close();
  }
}

function meanSquare(x: Int16Array): number {
  return meanSquareOf(x, 0, x.length);
}

/** {@link meanSquare} of `x[from, to)` (no view made). */
function meanSquareOf(x: Int16Array, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += x[i]! * x[i]!;
  return sum / Math.max(1, to - from);
}

function checkAudio(field: string, audio: unknown): void {
  if (!(audio instanceof Uint8Array) && !(audio instanceof Int16Array)) {
    throw new InvalidOptionError(field, `${field} must be μ-law bytes (Uint8Array) or L16 samples (Int16Array)`);
  }
}
