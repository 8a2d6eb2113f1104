/**
 * The shapes a bridged call exposes: its state union, its events and its counters.
 */
import type { VoicewireError } from '../errors.js';
import type { TtsRequest } from '../protocol/ttsRequest.js';
import type { LatenessHistogram } from './LatenessHistogram.js';
import type { SpeechWordEvent } from './speechSource.js';
import type { StartInfo } from './twilioMessages.js';
import type { Utterance, UtteranceResult } from './Utterance.js';
import type { CallerSpeechEndedEvent, CallerSpeechStartedEvent } from './VoiceBargeIn.js';

/** A barge-in decision's place on the line timeline (8 kHz samples of inbound audio; ms = sample / 8). */
export interface BargeInEvent {
  /** The caller's speech onset. */
  sample: number;
  /** Where the detector decided. */
  detectedAt: number;
  atMs: number;
}

export type CallEndReason = 'stop' | 'socketClosed' | 'closed' | 'error';

/**
 * The call's life: one discriminated union, changed only by `transition()`. `S` is the provider's
 * start details (Twilio's `start` message by default).
 */
export type CallState<S = StartInfo> =
  | { status: 'awaitingStart' }
  | { status: 'idle'; stream: S }
  | { status: 'speaking'; stream: S; utterance: Utterance }
  | { status: 'ended'; reason: CallEndReason; stream: S | null; error?: VoicewireError };

export interface TelephonyWordEvent extends SpeechWordEvent {
  utteranceId: number;
}

/** The events of a call on any provider; `S` is the provider's start details. */
export interface CallEvents<S> {
  connected: [];
  start: [info: S];
  word: [word: TelephonyWordEvent];
  dtmf: [dtmf: { digit: string; track: string }];
  /** The acknowledgement of a mark the bridge did not send (e.g. one the user sent through `sendMark`). */
  mark: [name: string];
  utteranceStart: [info: { id: number; request: TtsRequest }];
  utteranceEnd: [result: UtteranceResult];
  interrupted: [result: UtteranceResult];
  /**
   * Barge-in by voice: the caller may be speaking over the bot; new media is held back. An early
   * pause (`earlyPauseMs`) comes before `callerSpeechStarted` and, unconfirmed, ends in a resume
   * and `falseInterruption`.
   */
  bargeInPause: [event: BargeInEvent];
  /** Barge-in by voice fired: the phone was cleared (`interrupted` came just before, with the same result). */
  bargeIn: [result: UtteranceResult, event: BargeInEvent];
  /** The caller's sound was too short to interrupt: the bot resumed from its first unsent frame. */
  falseInterruption: [event: BargeInEvent];
  /** Barge-in by voice: the caller started a turn (reported whether or not the bot was speaking). */
  callerSpeechStarted: [event: CallerSpeechStartedEvent];
  /** The caller's turn ended (endOfTurnSilenceMs of silence), with its audio for a recogniser. */
  callerSpeechEnded: [event: CallerSpeechEndedEvent];
  warning: [warning: VoicewireError];
  stateChange: [previous: CallState<S>, next: CallState<S>];
  close: [info: { reason: CallEndReason; error?: VoicewireError }];
}

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- kept an interface, as it was
export interface TwilioCallEvents extends CallEvents<StartInfo> {}

/** A call's counters (on any provider). */
export interface TwilioCallStats {
  mediaMessages: number;
  markMessages: number;
  mediaBytes: number;
  /** How late paced sends were, in ms. */
  lateness: LatenessHistogram;
  /** Times sending paused because the socket had too much queued. */
  socketPauses: number;
  /** Most audio (ms) ever sent ahead of the last echoed mark. */
  maxUnacknowledgedMs: number;
}

export type CallStats = TwilioCallStats;
