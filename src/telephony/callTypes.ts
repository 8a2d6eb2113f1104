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

/** The call's life: one discriminated union, changed only by `transition()`. */
export type CallState =
  | { status: 'awaitingStart' }
  | { status: 'idle'; stream: StartInfo }
  | { status: 'speaking'; stream: StartInfo; utterance: Utterance }
  | { status: 'ended'; reason: CallEndReason; stream: StartInfo | null; error?: VoicewireError };

export interface TelephonyWordEvent extends SpeechWordEvent {
  utteranceId: number;
}

export interface TwilioCallEvents {
  connected: [];
  start: [info: StartInfo];
  word: [word: TelephonyWordEvent];
  dtmf: [dtmf: { digit: string; track: string }];
  /** The echo of a mark the bridge did not send (e.g. one the user sent through `sendMark`). */
  mark: [name: string];
  utteranceStart: [info: { id: number; request: TtsRequest }];
  utteranceEnd: [result: UtteranceResult];
  interrupted: [result: UtteranceResult];
  warning: [warning: VoicewireError];
  stateChange: [previous: CallState, next: CallState];
  close: [info: { reason: CallEndReason; error?: VoicewireError }];
}

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
