/**
 * Options, decisions and default constants of barge-in by voice. Every time is a sample index at
 * 8 kHz on the **line timeline**: inbound sample n was heard at n; an outbound frame noted at
 * sample s is the bot's audio the phone plays from s (so its echo can come back from s on).
 * `atMs` is the same instant in milliseconds (sample / 8). Figures behind each default:
 * native-notes/vad.md, "Barge-in".
 */
import { DEFAULT_MIN_SILENCE_MS, DEFAULT_SILERO_START_THRESHOLD, DEFAULT_SILERO_STOP_THRESHOLD } from '../vad/types.js';

/** The rate of the line timeline (μ-law telephone audio). */
export const LINE_RATE = 8000;

export interface EchoGateOptions {
  /** Shortest echo path delay looked at. @defaultValue {@link DEFAULT_ECHO_MIN_DELAY_MS} */
  echoMinDelayMs?: number | undefined;
  /** Longest echo path delay looked at (plus any error in the play-time estimate). @defaultValue {@link DEFAULT_ECHO_MAX_DELAY_MS} */
  echoMaxDelayMs?: number | undefined;
  /**
   * Inbound audio counts as possibly the caller only when its energy is above the loudest played
   * 10 ms block in the delay range minus this many dB. @defaultValue {@link DEFAULT_ECHO_RETURN_LOSS_DB}
   */
  echoReturnLossDb?: number | undefined;
}

export interface BargeInPolicyOptions {
  /** false: caller speech never pauses or interrupts the bot; turns are still reported. @defaultValue true */
  interruptible?: boolean | undefined;
  /**
   * Caller speech must add up to this long (see `interruptAfter`) before `interrupt`.
   * @defaultValue {@link DEFAULT_MIN_INTERRUPTION_MS}
   */
  minInterruptionMs?: number | undefined;
  /**
   * A paused bot resumes (`falseInterruption`) after this much silence short of an interruption.
   * @defaultValue {@link DEFAULT_FALSE_INTERRUPTION_SILENCE_MS}
   */
  falseInterruptionSilenceMs?: number | undefined;
  /** `callerSpeechEnded` after this much silence. @defaultValue {@link DEFAULT_END_OF_TURN_SILENCE_MS} */
  endOfTurnSilenceMs?: number | undefined;
  /**
   * Only windows at or above this speech probability count towards minInterruptionMs: Silero's
   * probability stays above 0.5 for 100–150 ms after a sound stops, so counting those would
   * interrupt on a cough. @defaultValue {@link DEFAULT_INTERRUPT_THRESHOLD}
   */
  interruptThreshold?: number | undefined;
  /**
   * …and only windows this far above the line's noise floor (the sound is still there).
   * @defaultValue {@link DEFAULT_PRESENT_ABOVE_FLOOR_DB}
   */
  presentAboveFloorDb?: number | undefined;
  /**
   * What must reach minInterruptionMs: `'speech'`, the time the caller was heard speaking (windows
   * with p ≥ interruptThreshold, and present if presentAboveFloorDb is set), so a pause or the
   * model's after-glow does not stretch a short sound; `'elapsed'`, the time since the onset.
   * @defaultValue {@link DEFAULT_INTERRUPT_AFTER}
   */
  interruptAfter?: 'speech' | 'elapsed' | undefined;
  /** A window with speech probability ≥ this starts speech. @defaultValue Silero's 0.5 */
  startThreshold?: number | undefined;
  /** While speaking, a window below this is silence. @defaultValue Silero's 0.35 */
  stopThreshold?: number | undefined;
}

export interface CallerTurnOptions {
  /** Audio kept before the speech onset in each turn. @defaultValue {@link DEFAULT_PRE_ROLL_MS} */
  preRollMs?: number | undefined;
  /** A turn longer than this is cut (`truncated: true`), bounding memory. @defaultValue {@link DEFAULT_MAX_TURN_MS} */
  maxTurnMs?: number | undefined;
  /** Rate of the turn audio: 8000 as heard, or 16000 (Speex resampler). @defaultValue 8000 */
  turnSampleRate?: 8000 | 16000 | undefined;
}

interface Timed {
  /** The sample at which the decision was taken (end of the window that completed it). */
  detectedAt: number;
  /** `detectedAt` in milliseconds on the line timeline. */
  atMs: number;
}

export type BargeInDecision =
  /** Caller speech (not the bot's echo) began at `sample`. */
  | ({ type: 'callerSpeechStarted'; sample: number } & Timed)
  /** Stop sending new media now (the bot is speaking and the caller started). */
  | ({ type: 'pause'; sample: number } & Timed)
  /** The speech was shorter than minInterruptionMs: send again from the first unsent frame. */
  | ({ type: 'resume' } & Timed)
  /** Follows `resume`: the pause was a false interruption (cough, "mm-hm", a door). */
  | ({ type: 'falseInterruption'; sample: number } & Timed)
  /** The caller has spoken for minInterruptionMs: clear the phone and end the utterance. */
  | ({ type: 'interrupt'; sample: number } & Timed)
  /** The turn ended at `sample` (first sample of the silence), decided after endOfTurnSilenceMs. */
  | ({ type: 'callerSpeechEnded'; sample: number } & Timed)
  | ({ type: 'callerTurn'; turn: CallerTurn } & Timed);

export interface CallerTurn {
  /** First sample of the audio (onset − pre-roll, never before the stream) and the end, line timeline. */
  startSample: number;
  endSample: number;
  /** The speech onset (startSample + the pre-roll actually kept). */
  onsetSample: number;
  sampleRate: 8000 | 16000;
  /** PCM s16 mono at `sampleRate`: exactly (endSample − startSample) × sampleRate / 8000 samples. */
  audio: Int16Array;
  /** The turn reached maxTurnMs and was cut there. */
  truncated: boolean;
}

/**
 * Time since the onset while the turn lasts (the `'elapsed'` rule): every corpus utterance ≥ 300 ms
 * interrupts at 20 and 10 dB SNR and music on hold never does through a call. With `'speech'`,
 * 128 ms of counted speech separates short speech bursts better on the corpus but lets music on
 * hold interrupt a call (test/telephony/VoiceBargeIn.test.ts; native-notes/vad.md).
 */
export const DEFAULT_MIN_INTERRUPTION_MS = 220;
/** The VAD's own minimum silence: longer than the pauses between words of the corpus sentences. */
export const DEFAULT_FALSE_INTERRUPTION_SILENCE_MS = DEFAULT_MIN_SILENCE_MS;
/** Pipecat's VAD stop time (0.8 s): the end of a turn, not a pause between phrases. */
export const DEFAULT_END_OF_TURN_SILENCE_MS = 800;
/** Enough for a recogniser to hear the onset that the VAD confirmed one window late. */
export const DEFAULT_PRE_ROLL_MS = 300;
/** Bounds a turn's memory: 30 s of 8 kHz s16 is 480 KB. */
export const DEFAULT_MAX_TURN_MS = 30_000;
/** Echo path delays of 50–200 ms (issue 22), with slack for the play-time estimate. */
export const DEFAULT_ECHO_MIN_DELAY_MS = 0;
export const DEFAULT_ECHO_MAX_DELAY_MS = 300;
/** Echo returns at ≥ 15 dB below what was sent; 3 dB of margin for μ-law and noise (measured). */
export const DEFAULT_ECHO_RETURN_LOSS_DB = 12;
/**
 * Silero's start threshold: 0.6–0.8 lost 300–400 ms utterances at 10 and 5 dB before they kept
 * 150 ms bursts from interrupting (native-notes/vad.md).
 */
export const DEFAULT_INTERRUPT_THRESHOLD = DEFAULT_SILERO_START_THRESHOLD;
/**
 * Silero's probability stays above 0.5 for 100–150 ms after a sound stops; the level does not. A
 * window counts as speech only while it is 3 dB over the line's noise floor (the noise sits 1–2 dB
 * over its tracked floor): with counted speech, 150 ms bursts interrupted 32 % instead of 80 % at 128 ms
 * (native-notes/vad.md).
 */
export const DEFAULT_PRESENT_ABOVE_FLOOR_DB = -Infinity; // off by default: with the elapsed rule, 3 dB lost 27 % at 10 dB
/**
 * `'elapsed'`: counted speech (`'speech'`, with minInterruptionMs 128) let music on hold interrupt
 * a call, which a false clear must never do; it stays an option (native-notes/vad.md).
 */
export const DEFAULT_INTERRUPT_AFTER = 'elapsed';
export const DEFAULT_BARGE_IN_START_THRESHOLD = DEFAULT_SILERO_START_THRESHOLD;
export const DEFAULT_BARGE_IN_STOP_THRESHOLD = DEFAULT_SILERO_STOP_THRESHOLD;
