/**
 * The barge-in state machine: per VAD window (its speech probability, and whether the echo gate
 * says it may be the caller) and "is the bot speaking", decides pause / resume +
 * falseInterruption / interrupt and the caller's turn edges. Pure: no audio, no clock; windows
 * arrive in order, so any split of the audio into pushes gives the same decisions.
 *
 *  idle ──p ≥ start──▶ candidate ──a window p ≥ start that may be the caller──▶ speaking
 *   ▲                    │ (echo alone never leaves it)                        │ pause if the bot speaks
 *   └── silence ≥ falseInterruptionSilenceMs ◀┘                                 │ interrupt at minInterruptionMs
 *   └──────────────── silence ≥ endOfTurnSilenceMs: callerSpeechEnded ◀─────────┘ resume if silent first
 *
 * Out of a turn, a window that may be the caller, loud enough and scored ≥ earlyPauseThreshold
 * pauses the bot early; the confirmation keeps that pause, and without one it resumes after
 * earlyPauseMs. With `'span'` and `spanByBlock`, the detector hands over the 8 ms blocks between
 * windows (`block`) while an interrupt is being decided; with `spanBridgeMs`, a block of the next
 * word (after a short gap, at the same talker's level) extends the span without waiting for a window.
 */
import { InvalidOptionError } from '../../errors.js';
import { choiceOption, dbOption } from './optionChecks.js';
import {
  DEFAULT_BARGE_IN_START_THRESHOLD,
  DEFAULT_BARGE_IN_STOP_THRESHOLD,
  DEFAULT_EARLY_PAUSE_ABOVE_FLOOR_DB,
  DEFAULT_EARLY_PAUSE_MS,
  DEFAULT_EARLY_PAUSE_THRESHOLD,
  DEFAULT_SPAN_BY_BLOCK,
  DEFAULT_SPAN_BRIDGE_MS,
  DEFAULT_END_OF_TURN_SILENCE_MS,
  DEFAULT_FALSE_INTERRUPTION_SILENCE_MS,
  DEFAULT_INTERRUPT_AFTER,
  DEFAULT_INTERRUPT_THRESHOLD,
  DEFAULT_PRESENT_ABOVE_FLOOR_DB,
  DEFAULT_MIN_INTERRUPTION_MS,
  DEFAULT_ONSET_BACKDATE_MS,
  DEFAULT_SPAN_INTERRUPT_THRESHOLD,
  DEFAULT_SPAN_PRESENT_DB,
  LINE_RATE,
  PEAK_BLOCK_SAMPLES,
  SOUND_RANGE_DB,
  type BargeInDecision,
  type BargeInPolicyOptions,
} from './types.js';

const MS_PER_SECOND = 1000;
/**
 * When the caller starts over a run of echo, the turn starts this long before the first window
 * that can only be the caller (the onset is usually one window earlier), not at the echo's start.
 */
export const EVIDENCE_LOOKBACK_MS = 100;

type State = 'idle' | 'candidate' | 'speaking';

/** What the detector measured of a window beyond its probability (used by the `'span'` rule). */
export interface WindowEvidence {
  /** The window's loudest block, dB over the line's noise floor. */
  peakAboveFloorDb: number;
  /**
   * First sample of the run of blocks, up to this window's end, that were all loud enough to be
   * the sound's start and over the echo bound; -1 when the window's last block is not.
   */
  soundSince: number;
  /** End of the window's last block at least presentAboveFloorDb over the floor; -1 if none. */
  presentEnd: number;
  /**
   * The run of blocks that `soundSince` starts fills the detector's whole level history (256 ms):
   * a sound that has not stopped for that long. With `'span'`, such a window that the echo gate
   * cannot tell from the bot, its sound older than the span, does not extend the span.
   */
  soundUnbroken?: boolean | undefined;
}

export class BargeInPolicy {
  readonly interruptible: boolean;
  private readonly start: number;
  private readonly stop: number;
  private readonly interruptAt: number;
  /** A window (with `'span'`, a block) is present while this far over the line's noise floor. */
  readonly presentDb: number;
  private readonly minInterruption: number;
  private readonly falseSilence: number;
  private readonly endSilence: number;
  private readonly lookback: number;
  private state: State = 'idle';
  private botSpeaking = false;
  private paused = false;
  private interrupted = false;
  /** Candidate run start, then the caller's onset. */
  private runStart = 0;
  /** Silence since the last voiced window. */
  private silence = 0;
  private lastVoicedEnd = 0;
  /** Speech counted towards minInterruptionMs in this turn (samples of strong windows). */
  private counted = 0;
  private readonly rule: 'speech' | 'elapsed' | 'span';
  private readonly backdate: number;
  /** `'span'`: where the sound began (block-exact when measured), and the end of its last present block in a speech window. */
  private spanStart = 0;
  private spanEnd = 0;
  /** Early pause: how long it waits for confirmation (samples; 0 off), its threshold and level. */
  private readonly earlyWait: number;
  private readonly earlyAt: number;
  private readonly earlyDb: number;
  /** The pause is early (not yet confirmed) and lapses at this sample; -1 when it is not early. */
  private earlyUntil = -1;
  /** Where the sound of the early pause began (its decisions' sample). */
  private earlyStart = 0;
  /** An early pause lapsed: the next one waits for a window that does not qualify (no chatter on a steady sound). */
  private earlyRearm = true;
  /** `'span'` with blocks: whether blocks after the last window may extend the span now. */
  readonly byBlock: boolean;
  private blockArmed = false;
  /** `spanBridgeMs` in samples (0: off). */
  private readonly bridge: number;
  /** The loudest block (dB over the recent floor) of this turn's windows that extended the span; -Infinity before one. */
  private talkerPeakDb = -Infinity;
  /** A quiet block (not present) came after the span's end: the word ended, so the next word may bridge the gap. */
  private gapSeen = false;

  constructor(options: BargeInPolicyOptions = {}) {
    this.interruptible = options.interruptible ?? true;
    this.start = options.startThreshold ?? DEFAULT_BARGE_IN_START_THRESHOLD;
    this.stop = options.stopThreshold ?? Math.min(this.start, DEFAULT_BARGE_IN_STOP_THRESHOLD);
    if (!(this.start >= 0 && this.start <= 1))
      throw new InvalidOptionError('startThreshold', `startThreshold must be within 0..1, got ${this.start}`);
    if (!(this.stop >= 0 && this.stop <= this.start)) {
      throw new InvalidOptionError('stopThreshold', `stopThreshold must be within 0..startThreshold (${this.start}), got ${this.stop}`);
    }
    const rule = choiceOption('interruptAfter', options.interruptAfter ?? DEFAULT_INTERRUPT_AFTER, ['speech', 'elapsed', 'span']);
    this.rule = rule;
    this.interruptAt = options.interruptThreshold ?? (rule === 'span' ? DEFAULT_SPAN_INTERRUPT_THRESHOLD : DEFAULT_INTERRUPT_THRESHOLD);
    if (!(this.interruptAt >= 0 && this.interruptAt <= 1)) {
      throw new InvalidOptionError('interruptThreshold', `interruptThreshold must be within 0..1, got ${this.interruptAt}`);
    }
    this.presentDb = dbOption(
      'presentAboveFloorDb',
      options.presentAboveFloorDb ?? (rule === 'span' ? DEFAULT_SPAN_PRESENT_DB : DEFAULT_PRESENT_ABOVE_FLOOR_DB),
    );
    const samples = (field: string, ms: number): number => {
      if (!(ms >= 0 && Number.isFinite(ms))) throw new InvalidOptionError(field, `${field} must be a finite number ≥ 0, got ${ms}`);
      return Math.round((ms * LINE_RATE) / MS_PER_SECOND);
    };
    this.minInterruption = samples('minInterruptionMs', options.minInterruptionMs ?? DEFAULT_MIN_INTERRUPTION_MS);
    this.falseSilence = samples('falseInterruptionSilenceMs', options.falseInterruptionSilenceMs ?? DEFAULT_FALSE_INTERRUPTION_SILENCE_MS);
    this.endSilence = samples('endOfTurnSilenceMs', options.endOfTurnSilenceMs ?? DEFAULT_END_OF_TURN_SILENCE_MS);
    if (this.endSilence < this.falseSilence) {
      throw new InvalidOptionError('endOfTurnSilenceMs', 'endOfTurnSilenceMs must not be shorter than falseInterruptionSilenceMs');
    }
    this.lookback = samples('lookback', EVIDENCE_LOOKBACK_MS);
    this.backdate = samples('onsetBackdateMs', options.onsetBackdateMs ?? DEFAULT_ONSET_BACKDATE_MS);
    this.earlyWait = samples('earlyPauseMs', options.earlyPauseMs ?? DEFAULT_EARLY_PAUSE_MS);
    this.earlyAt = options.earlyPauseThreshold ?? DEFAULT_EARLY_PAUSE_THRESHOLD;
    if (!(this.earlyAt >= 0 && this.earlyAt <= 1)) {
      throw new InvalidOptionError('earlyPauseThreshold', `earlyPauseThreshold must be within 0..1, got ${this.earlyAt}`);
    }
    this.earlyDb = dbOption('earlyPauseAboveFloorDb', options.earlyPauseAboveFloorDb ?? DEFAULT_EARLY_PAUSE_ABOVE_FLOOR_DB);
    this.byBlock = rule === 'span' && (options.spanByBlock ?? DEFAULT_SPAN_BY_BLOCK);
    const bridge = samples('spanBridgeMs', options.spanBridgeMs ?? DEFAULT_SPAN_BRIDGE_MS);
    this.bridge = this.byBlock ? bridge : 0;
  }

  /** Whether new media is held back now (between `pause` and `resume` / `interrupt`). */
  get isPaused(): boolean {
    return this.paused;
  }

  /** A possible onset awaits confirmation, or the bot is paused until the turn is long enough or ends. */
  get deciding(): boolean {
    return this.state === 'candidate' || this.paused;
  }

  /** Whether a caller turn is open (between callerSpeechStarted and callerSpeechEnded). */
  get inTurn(): boolean {
    return this.state === 'speaking';
  }

  /**
   * The bot started or stopped speaking (an utterance began, ended, or was interrupted). Stopping
   * while paused drops the pause: there is nothing left to resume.
   */
  setBotSpeaking(speaking: boolean): void {
    this.botSpeaking = speaking;
    if (!speaking) {
      this.paused = false;
      this.earlyUntil = -1;
    }
  }

  /**
   * Whether the detector should look at each 8 ms block as it arrives (`'span'` with blocks): the
   * bot is paused for a confirmed onset and the last window was speech present to its end.
   */
  get wantsBlocks(): boolean {
    return (this.blockArmed || this.talkerPeakDb > -Infinity) && this.paused && !this.interrupted && this.earlyUntil < 0;
  }

  /**
   * One 8 ms block [start, end) between window ends, `present` when it stands over the noise and
   * the echo bound, `levelDb` over the recent floor. Contiguous present blocks after a speech
   * window extend the span; the first block that is not present stops that until the next window.
   * With `spanBridgeMs`, a present block of the same talker's level (within
   * {@link SOUND_RANGE_DB} of the turn's loudest) starting at most that long after the span's end
   * extends it across the gap.
   */
  block(start: number, end: number, present: boolean, out: BargeInDecision[], levelDb = -Infinity): void {
    if (!this.wantsBlocks) return;
    if (start === this.spanEnd && this.blockArmed) {
      if (!present) {
        this.blockArmed = false;
        this.gapSeen = true; // the word ended at the span's end
        return;
      }
    } else if (!present) {
      if (start >= this.spanEnd) this.gapSeen = true;
      return;
    } else if (!this.bridges(start, levelDb)) {
      return;
    }
    this.spanEnd = end;
    this.blockArmed = this.byBlock;
    this.gapSeen = false;
    if (this.longEnough(end)) {
      this.paused = false;
      this.interrupted = true;
      this.blockArmed = false;
      out.push(decision('interrupt', this.runStart, end));
    }
  }

  /** Whether a present block at `start` is the next word of the turn's talker, within the bridge of the span's end. */
  private bridges(start: number, levelDb: number): boolean {
    return (
      this.bridge > 0 &&
      this.gapSeen &&
      start > this.spanEnd &&
      start - this.spanEnd <= this.bridge &&
      levelDb >= Math.max(this.presentDb, this.talkerPeakDb - SOUND_RANGE_DB)
    );
  }

  /** One VAD window [sample, sample + samples) on the line timeline. Decisions go to `out`. */
  window(
    sample: number,
    samples: number,
    probability: number,
    possiblyCaller: boolean,
    out: BargeInDecision[],
    aboveFloorDb = Infinity,
    evidence?: WindowEvidence,
  ): void {
    const end = sample + samples;
    this.blockArmed = false;
    const before = out.length;
    this.decide(sample, samples, probability, possiblyCaller, out, aboveFloorDb, evidence);
    if (this.earlyWait > 0 && this.state !== 'speaking') this.early(sample, end, probability, possiblyCaller, out, before, evidence);
  }

  /**
   * The early pause, out of a turn: lapses (resume + falseInterruption) when not confirmed in time;
   * starts on a window that may be the caller, scores earlyPauseThreshold and is loud enough.
   */
  private early(
    sample: number,
    end: number,
    probability: number,
    possiblyCaller: boolean,
    out: BargeInDecision[],
    before: number,
    evidence: WindowEvidence | undefined,
  ): void {
    if (this.earlyUntil >= 0 && end >= this.earlyUntil) {
      this.earlyUntil = -1;
      if (this.paused) {
        this.paused = false;
        out.push(decision('resume', this.earlyStart, end), decision('falseInterruption', this.earlyStart, end));
      }
      return;
    }
    const qualifies = evidence !== undefined && possiblyCaller && probability >= this.earlyAt && evidence.peakAboveFloorDb >= this.earlyDb;
    if (!qualifies) {
      this.earlyRearm = true;
      return;
    }
    if (this.paused || !this.earlyRearm || !this.interruptible || !this.botSpeaking || out.length > before) return;
    this.paused = true;
    this.earlyRearm = false;
    this.earlyUntil = end + this.earlyWait;
    this.earlyStart = evidence.soundSince >= 0 ? Math.max(evidence.soundSince, sample - this.backdate) : sample;
    out.push(decision('pause', this.earlyStart, end));
  }

  private decide(
    sample: number,
    samples: number,
    probability: number,
    possiblyCaller: boolean,
    out: BargeInDecision[],
    aboveFloorDb: number,
    evidence: WindowEvidence | undefined,
  ): void {
    const end = sample + samples;
    const voiced = probability >= (this.state === 'idle' ? this.start : this.stop);
    if (this.state === 'idle') {
      if (!voiced) return;
      this.state = 'candidate';
      this.runStart = sample;
      this.silence = 0;
    } else if (voiced) {
      this.silence = 0;
    } else {
      this.silence += samples;
    }
    if (voiced) this.lastVoicedEnd = end;
    const level = this.rule === 'span' ? (evidence?.peakAboveFloorDb ?? aboveFloorDb) : aboveFloorDb;
    const strong = probability >= this.interruptAt && level >= this.presentDb && this.mayBeTalker(possiblyCaller, evidence);
    const presentEnd = evidence !== undefined && evidence.presentEnd >= 0 ? evidence.presentEnd : end;
    if (this.state === 'candidate') {
      if (voiced && probability >= this.start && possiblyCaller) {
        this.confirm(sample, end, strong, out, evidence?.soundSince ?? -1, presentEnd, level);
      } else if (this.silence >= this.falseSilence) {
        this.state = 'idle';
      }
      return;
    }
    if (strong) {
      this.counted += samples;
      if (this.bridge > 0) {
        // A bridged block may already have taken the span into this window.
        this.spanEnd = Math.max(this.spanEnd, presentEnd);
        this.talkerPeakDb = Math.max(this.talkerPeakDb, level);
        this.gapSeen = false;
      } else {
        this.spanEnd = presentEnd;
      }
      this.blockArmed = this.byBlock && this.spanEnd === end;
    }
    // The window's last block is quiet: a gap after the span (the word ended).
    if (this.bridge > 0 && evidence !== undefined && evidence.presentEnd < end && end - PEAK_BLOCK_SAMPLES >= this.spanEnd)
      this.gapSeen = true;
    if (this.paused && !this.interrupted && strong && this.longEnough(end)) {
      this.paused = false;
      this.interrupted = true;
      out.push(decision('interrupt', this.runStart, end));
    }
    if (this.paused && this.silence >= this.falseSilence) {
      this.paused = false;
      out.push(decision('resume', this.runStart, end), decision('falseInterruption', this.runStart, end));
    }
    if (this.silence >= this.endSilence) this.endTurn(end, out);
  }

  private confirm(
    sample: number,
    end: number,
    strong: boolean,
    out: BargeInDecision[],
    soundSince: number,
    presentEnd: number,
    level: number,
  ): void {
    this.state = 'speaking';
    this.runStart = Math.max(this.runStart, sample - this.lookback);
    // The span starts where the sound that the first speech window belongs to began (block-exact;
    // the echo bound may have held its first windows back), at most onsetBackdateMs before it.
    this.spanStart = soundSince >= 0 ? Math.max(soundSince, sample - this.backdate) : this.runStart;
    if (this.rule === 'span') this.runStart = Math.min(this.runStart, this.spanStart);
    this.interrupted = false;
    this.counted = strong ? end - sample : 0;
    this.spanEnd = strong ? presentEnd : this.spanStart;
    this.blockArmed = this.byBlock && strong && presentEnd === end;
    this.talkerPeakDb = strong && this.bridge > 0 ? level : -Infinity;
    this.gapSeen = false;
    out.push(decision('callerSpeechStarted', this.runStart, end));
    if (this.interruptible && this.botSpeaking) {
      // An early pause already holds the bot: it is now confirmed.
      if (!this.paused) out.push(decision('pause', this.runStart, end));
      this.paused = true;
      this.earlyUntil = -1;
      this.earlyRearm = true;
      if (strong && this.longEnough(end)) {
        this.paused = false;
        this.interrupted = true;
        out.push(decision('interrupt', this.runStart, end));
      }
    }
  }

  /**
   * `'span'`: whether a window may be the turn's talker. Not one the echo gate cannot tell from the
   * bot's echo whose sound was already there before the span began and has not stopped for the
   * detector's whole level history: that is the line's own noise, loud over a recent floor that
   * has not caught up with it (digital silence, then noise), and after a burst Silero's tail scores
   * it high (a Telnyx call's 150 ms burst counted two such windows and interrupted:
   * native-notes/vad.md, "The Telnyx burst traced").
   */
  private mayBeTalker(possiblyCaller: boolean, evidence: WindowEvidence | undefined): boolean {
    if (this.rule !== 'span' || possiblyCaller || this.state !== 'speaking' || evidence?.soundUnbroken !== true) return true;
    return evidence.soundSince >= this.spanStart;
  }

  /** Whether the turn has lasted minInterruptionMs: its counted speech, its span, or the time since its onset. */
  private longEnough(end: number): boolean {
    const heard = this.rule === 'speech' ? this.counted : this.rule === 'span' ? this.spanEnd - this.spanStart : end - this.runStart;
    return heard >= this.minInterruption;
  }

  private endTurn(at: number, out: BargeInDecision[]): void {
    if (this.paused) {
      this.paused = false;
      out.push(decision('resume', this.runStart, at), decision('falseInterruption', this.runStart, at));
    }
    out.push(decision('callerSpeechEnded', this.lastVoicedEnd, at));
    this.state = 'idle';
    this.silence = 0;
  }

  /** End of input at `endSample`: an open turn ends where its last voiced window ended. */
  flush(endSample: number, out: BargeInDecision[]): void {
    if (this.state === 'speaking') this.endTurn(endSample, out);
    this.reset();
  }

  reset(): void {
    this.state = 'idle';
    this.paused = false;
    this.interrupted = false;
    this.silence = 0;
    this.earlyUntil = -1;
    this.earlyRearm = true;
    this.blockArmed = false;
    this.talkerPeakDb = -Infinity;
  }
}

function decision(
  type: 'callerSpeechStarted' | 'pause' | 'resume' | 'falseInterruption' | 'interrupt' | 'callerSpeechEnded',
  sample: number,
  detectedAt: number,
): BargeInDecision {
  const atMs = (detectedAt * MS_PER_SECOND) / LINE_RATE;
  return type === 'resume' ? { type, detectedAt, atMs } : { type, sample, detectedAt, atMs };
}
