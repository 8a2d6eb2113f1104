/**
 * The shapes a bridged call exposes: its state union, its events and its counters.
 */
import type { VoicewireError } from '../errors.js';
import type { TtsRequest } from '../protocol/ttsRequest.js';
import type { LatenessHistogram } from './LatenessHistogram.js';
import type { SpeechWordEvent } from './speechSource.js';
import type { StartInfo } from './twilioMessages.js';
import type { Utterance, UtteranceResult } from './Utterance.js';

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
