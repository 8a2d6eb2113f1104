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
  /**
   * What of an inbound window is compared with the echo bound: `'window'`, its mean energy;
   * `'peak'`, its loudest {@link PEAK_BLOCK_SAMPLES}-sample block (a caller's onset late in a
   * window passes at once; an echo block can never be louder than the loudest played block less
   * the return loss either). @defaultValue {@link DEFAULT_ECHO_COMPARE}
   */
  echoCompare?: 'window' | 'peak' | undefined;
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
   * interrupt on a cough. @defaultValue {@link DEFAULT_SPAN_INTERRUPT_THRESHOLD} with `'span'`, else {@link DEFAULT_INTERRUPT_THRESHOLD}
   */
  interruptThreshold?: number | undefined;
  /**
   * …and only windows this far above the line's noise floor (the sound is still there; with
   * `'span'`, the window's 8 ms blocks over the recent floor).
   * @defaultValue {@link DEFAULT_SPAN_PRESENT_DB} with `'span'`, else {@link DEFAULT_PRESENT_ABOVE_FLOOR_DB}
   */
  presentAboveFloorDb?: number | undefined;
  /**
   * What must reach minInterruptionMs: `'speech'`, the time the caller was heard speaking (windows
   * with p ≥ interruptThreshold, and present if presentAboveFloorDb is set), so a pause or the
   * model's after-glow does not stretch a short sound; `'elapsed'`, the time since the onset;
   * `'span'`, the caller's speech span: from the onset (moved back to where the sound began, see
   * `onsetBackdateMs`) to the end of the last window that is speech (p ≥ interruptThreshold) and
   * present (its loudest block ≥ presentAboveFloorDb over the floor), so neither the hangover nor
   * the model's after-glow lengthens a short sound.
   * @defaultValue {@link DEFAULT_INTERRUPT_AFTER}
   */
  interruptAfter?: 'speech' | 'elapsed' | 'span' | undefined;
  /**
   * `'span'` only: the onset may be moved back to where the sound began (the run of 8 ms blocks,
   * up to the first speech window, at least `onsetAboveFloorDb` over the recent noise floor and
   * within 12 dB of that window's loudest block), at most this far before that window. 0: the
   * first speech window is the onset.
   * @defaultValue {@link DEFAULT_ONSET_BACKDATE_MS}
   */
  onsetBackdateMs?: number | undefined;
  /**
   * `'span'` only: how far over the recent noise floor a block must be to count as part of the sound.
   * @defaultValue {@link DEFAULT_ONSET_ABOVE_FLOOR_DB}
   */
  onsetAboveFloorDb?: number | undefined;
  /**
   * Pause before Silero confirms an onset: a window that may be the caller (over the echo bound),
   * scores at least `earlyPauseThreshold` and whose loudest block stands `earlyPauseAboveFloorDb`
   * over the recent noise floor pauses the bot at once; if no window confirms speech within this
   * long, the bot resumes (`falseInterruption`), inside the lead the phone holds, so the caller
   * hears no gap. 0: pause only on confirmed speech. @defaultValue {@link DEFAULT_EARLY_PAUSE_MS}
   */
  earlyPauseMs?: number | undefined;
  /** See `earlyPauseMs`. @defaultValue {@link DEFAULT_EARLY_PAUSE_THRESHOLD} */
  earlyPauseThreshold?: number | undefined;
  /** See `earlyPauseMs`. @defaultValue {@link DEFAULT_EARLY_PAUSE_ABOVE_FLOOR_DB} */
  earlyPauseAboveFloorDb?: number | undefined;
  /**
   * `'span'` only: between VAD windows, once a window was speech and present to its end, each
   * following 8 ms block over the noise (and over the echo bound) extends the span as it arrives,
   * so `interrupt` comes at the block where the span reaches minInterruptionMs rather than at the
   * next window's end. @defaultValue {@link DEFAULT_SPAN_BY_BLOCK}
   */
  spanByBlock?: boolean | undefined;
  /**
   * `'span'` with `spanByBlock`: once a window confirmed speech, a block of the caller's next word
   * extends the span at once, across the gap after the span's last present block, when it starts
   * within this long of that block and is the same talker's level (at least `presentAboveFloorDb`
   * over the recent floor, within {@link SOUND_RANGE_DB} of the turn's loudest block, over the echo
   * bound); so `interrupt` comes at the next word's first loud block rather than at its first
   * window Silero scores ≥ interruptThreshold. 0: the span crosses a gap only at such a window.
   * @defaultValue {@link DEFAULT_SPAN_BRIDGE_MS}
   */
  spanBridgeMs?: number | undefined;
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
  /**
   * Stop sending new media now (the bot is speaking and the caller started, or may have: an early
   * pause comes before `callerSpeechStarted`, and resumes with `falseInterruption` if nothing
   * confirms it within earlyPauseMs).
   */
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
 * The caller's speech span (the `'span'` rule) that interrupts: 160 ms of sound over the noise.
 * Over phone-band noise a corpus utterance labelled ≥ 300 ms (its quiet edges included) stands
 * 150–250 ms over the noise at 10 dB SNR, a 150 ms "mm-hm" ~150 ms; at 160 ms every tuning-voice
 * utterance ≥ 300 ms interrupts at 20/10/5 dB, 150 ms bursts 4.5 % (native-notes/vad.md, 28 Nov,
 * second half). With `'elapsed'` the first default was 220 ms of time since the onset.
 * Swept again with today's rules (128–250 ms, native-notes/vad.md, "minInterruptionMs against its
 * own target"): through a call the clear p95 sits 115–150 ms after the value at every setting, so
 * no value meets p95 ≤ minInterruptionMs + 100 (160: 309 ms against 260); from 184 ms the tuning
 * voices' one-word utterances at 10 dB fall under 98 % (95.5 %), and below 160 every 150 ms
 * "mm-hm" interrupts. 160 stays.
 */
export const DEFAULT_MIN_INTERRUPTION_MS = 160;
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
 * `'speech'` and `'elapsed'`: Silero's start threshold: 0.6–0.8 lost 300–400 ms utterances at 10
 * and 5 dB before they kept 150 ms bursts from interrupting (native-notes/vad.md). `'span'` uses
 * {@link DEFAULT_SPAN_INTERRUPT_THRESHOLD}.
 */
export const DEFAULT_INTERRUPT_THRESHOLD = DEFAULT_SILERO_START_THRESHOLD;
/**
 * Silero's probability stays above 0.5 for 100–150 ms after a sound stops; the level does not. A
 * window counts as speech only while it is 3 dB over the line's noise floor (the noise sits 1–2 dB
 * over its tracked floor): with counted speech, 150 ms bursts interrupted 32 % instead of 80 % at 128 ms
 * (native-notes/vad.md).
 */
export const DEFAULT_PRESENT_ABOVE_FLOOR_DB = -Infinity; // `'speech'` / `'elapsed'`: off (with elapsed, 3 dB lost 27 % at 10 dB)
/**
 * `'span'`: the caller's speech span, from where the sound began to the last block still over the
 * noise in a speech window, so neither the gate's hangover nor Silero's after-glow lengthens a
 * short sound. Counted speech (`'speech'`, 128 ms) let music on hold interrupt a call; `'elapsed'`
 * (220 ms) let 94 % of 150 ms "mm-hm"s interrupt. Both stay options (native-notes/vad.md).
 */
export const DEFAULT_INTERRUPT_AFTER: 'speech' | 'elapsed' | 'span' = 'span';
/** Inbound windows are also measured in blocks of this many samples (8 ms; 4 per 32 ms window). */
export const PEAK_BLOCK_SAMPLES = 64;
/**
 * `'peak'`: a caller whose onset falls late in a window passes the echo bound one window sooner
 * (pause p50 112 → 80 ms on the corpus; echo clips still 0 % paused), and echo cannot pass it:
 * no echo block is louder than the loudest played block less the return loss.
 */
export const DEFAULT_ECHO_COMPARE: 'window' | 'peak' = 'peak';
/** How far the `'span'` rule may move an onset back before the first speech window: 5 windows (Silero's onset lag, p95 144 ms). */
export const DEFAULT_ONSET_BACKDATE_MS = 160;
/** A block this far over the recent floor may be part of the sound (the noise sits 1–2 dB over its tracked floor). */
export const DEFAULT_ONSET_ABOVE_FLOOR_DB = 3;
/**
 * With `'span'`, only windows at or above this probability extend the span: through a call, a
 * music-on-hold chord scored 0.56–0.85 for ~190 ms and reached 160 ms at 0.5; at 0.6 it stops at
 * ~130 ms, and the corpus's ≥ 300 ms utterances still interrupt (native-notes/vad.md).
 */
export const DEFAULT_SPAN_INTERRUPT_THRESHOLD = 0.6;
/** With `'span'`, a block is still sound while this far over the recent floor (the noise sits 1–2 dB over it). */
export const DEFAULT_SPAN_PRESENT_DB = 3;
/**
 * How long an early pause (before Silero confirms) may wait for confirmation: 3 windows. Within
 * the phone's 200 ms lead a released pause is inaudible (the pacer refills the lead at once).
 * Measured: native-notes/vad.md, "Barge-in latency through the call".
 */
export const DEFAULT_EARLY_PAUSE_MS = 96;
/**
 * Silero's score that may start an early pause (under the 0.5 that confirms speech): 0.1 and 0.2
 * gained the same on the corpus, 0.3 lost the gain (native-notes/vad.md).
 */
export const DEFAULT_EARLY_PAUSE_THRESHOLD = 0.2;
/**
 * How far over the recent floor a window's loudest block must stand to start an early pause: 6 and
 * 9 dB gained the same on the corpus, 12 dB kept none of the tuning voices' gain; the higher of the
 * two keeps quieter noise from pausing the bot.
 */
export const DEFAULT_EARLY_PAUSE_ABOVE_FLOOR_DB = 9;
/**
 * A sound's start (and, with `spanBridgeMs`, the next word of the same talker) is looked for within
 * this many dB of the loudest block: line noise that the floor has not caught up with (digital
 * silence, then noise) stays 15–25 dB under a caller.
 */
export const SOUND_RANGE_DB = 12;
/**
 * The gap a word's first loud block may follow the span's last present block and still extend the
 * span at once (`spanBridgeMs`): the gaps between "no" and "thanks" in the corpus are 80–100 ms
 * over the noise; 4 windows leaves room and stays under the 320 ms after which a pause resumes.
 * Measured: native-notes/vad.md, "The clear tail"; with minInterruptionMs 200–250, 160 and 192 ms
 * gave the same clears as 128 and 96 ms a later p95 ("minInterruptionMs against its own target").
 */
export const DEFAULT_SPAN_BRIDGE_MS = 128;
/** Extend the span by 8 ms blocks between windows (see `spanByBlock`). */
export const DEFAULT_SPAN_BY_BLOCK = true;
export const DEFAULT_BARGE_IN_START_THRESHOLD = DEFAULT_SILERO_START_THRESHOLD;
export const DEFAULT_BARGE_IN_STOP_THRESHOLD = DEFAULT_SILERO_STOP_THRESHOLD;
