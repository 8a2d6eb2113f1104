/**
 * Options of a bridged call, their defaults, and their checks.
 */
import { InvalidOptionError } from '../errors.js';
import type { TtsRequest } from '../protocol/ttsRequest.js';
import type { TelephonyClock } from './clock.js';
import { systemClock } from './clock.js';
import { TELEPHONY_FRAME_MS, type SpeechSource } from './speechSource.js';
import type { BargeInOptions } from './VoiceBargeIn.js';

/** @defaultValue 200 ms of audio buffered at the phone ahead of what it plays. */
export const DEFAULT_LEAD_MS = 200;
/** @defaultValue a mark every 5 frames (100 ms), besides those at word starts. */
export const DEFAULT_MARK_EVERY_FRAMES = 5;
/** @defaultValue pause when this much is queued in the socket. */
export const DEFAULT_MAX_SOCKET_BUFFERED_BYTES = 64 * 1024;
/** Slack over lead + mark spacing before an unechoed phone pauses sending. */
export const UNACKNOWLEDGED_SLACK_MS = 1000;
export const DEFAULT_MAX_QUEUED_UTTERANCES = 16;

/** Options of a call on any provider (`TwilioCallOptions` is this). */
export interface CallOptions {
  /**
   * Where speech comes from.
   * @defaultValue `createClientSpeechSource()`: the voicewire client from `VOICEWIRE_BASE_URL`.
   */
  source?: SpeechSource;
  /** Audio kept buffered at the phone ahead of what it plays. @defaultValue {@link DEFAULT_LEAD_MS} */
  leadMs?: number;
  /** A mark after every N frames (0: only at words and the end). @defaultValue 5 */
  markEveryFrames?: number;
  /** Marks exactly at known word starts (a frame is split there). @defaultValue true */
  wordMarks?: boolean;
  /** Sent-but-unechoed audio that pauses sending. @defaultValue lead + mark spacing + 1000 ms */
  maxUnacknowledgedMs?: number;
  /** `socket.bufferedAmount` above which sending (and so the engine) pauses. @defaultValue 64 KiB */
  maxSocketBufferedBytes?: number;
  /** Caller audio kept for a slow reader before new audio is dropped. @defaultValue 5 s */
  maxInboundBufferBytes?: number;
  /** @defaultValue 16 */
  maxQueuedUtterances?: number;
  /** Merged under the request when `speak()` gets text. @defaultValue `{format:'pcm', sample_rate:` the line's rate `}` */
  requestDefaults?: Partial<TtsRequest>;
  /** @defaultValue the system clock */
  clock?: TelephonyClock;
  /**
   * Barge-in by voice: a VAD on the caller's audio pauses the bot when the caller starts speaking,
   * interrupts it (as `interrupt()` does) once the speech lasts `minInterruptionMs`, and resumes it
   * from the first unsent frame after a cough; `callerSpeechStarted` / `callerSpeechEnded` report
   * every caller turn with its audio. `true`: the defaults; from an agent configuration, use
   * {@link bargeInFromAgent}. @defaultValue off
   */
  bargeIn?: boolean | BargeInOptions;
}

/**
 * Barge-in options for an agent configuration: `conversation.interruptible` (absent: true) becomes
 * `interruptible`; turns are reported either way.
 * @example attachTwilioMediaStream(ws, { bargeIn: bargeInFromAgent(agent.config) })
 */
export function bargeInFromAgent(
  config: { conversation?: { interruptible?: boolean } | undefined },
  options: BargeInOptions = {},
): BargeInOptions {
  return { ...options, interruptible: config.conversation?.interruptible ?? true };
}

/** The options with defaults applied, in the units the call works in. */
export interface ResolvedCallOptions {
  clock: TelephonyClock;
  leadMs: number;
  markEveryFrames: number;
  wordMarks: boolean;
  /** Sent-but-unacknowledged audio that pauses sending (the outbound side floors it at lead + a batch). */
  maxUnacknowledgedMs: number;
  maxSocketBufferedBytes: number;
  maxQueuedUtterances: number;
}

export type TwilioCallOptions = CallOptions;

export function resolveCallOptions(options: CallOptions): ResolvedCallOptions {
  const leadMs = checked(options.leadMs ?? DEFAULT_LEAD_MS, 'leadMs', true);
  const every = Math.floor(checked(options.markEveryFrames ?? DEFAULT_MARK_EVERY_FRAMES, 'markEveryFrames', true));
  const markSpacingMs = (every === 0 ? FALLBACK_MARK_SPACING_FRAMES : every) * TELEPHONY_FRAME_MS;
  const maxUnackMs = checked(options.maxUnacknowledgedMs ?? leadMs + markSpacingMs + UNACKNOWLEDGED_SLACK_MS, 'maxUnacknowledgedMs', false);
  return {
    clock: options.clock ?? systemClock,
    leadMs,
    markEveryFrames: every,
    wordMarks: options.wordMarks ?? true,
    maxUnacknowledgedMs: maxUnackMs,
    maxSocketBufferedBytes: checked(options.maxSocketBufferedBytes ?? DEFAULT_MAX_SOCKET_BUFFERED_BYTES, 'maxSocketBufferedBytes', false),
    maxQueuedUtterances: checked(options.maxQueuedUtterances ?? DEFAULT_MAX_QUEUED_UTTERANCES, 'maxQueuedUtterances', false),
  };
}

/** With no periodic marks, the unacknowledged bound still assumes marks this far apart. */
const FALLBACK_MARK_SPACING_FRAMES = 10;

function checked(value: number, field: string, allowZero: boolean): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new InvalidOptionError(field, `${field} must be a finite number ${allowZero ? '≥' : '>'} 0, got ${String(value)}`);
  }
  return value;
}
