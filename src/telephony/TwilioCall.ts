/**
 * One Twilio bidirectional Media Stream: speech out as paced μ-law `media` with marks whose echoes
 * drive the playhead, barge-in that clears the phone's buffer and tells what was heard, and the
 * caller's audio and DTMF in.
 *
 * The provider-neutral call core ({@link CallCore}) with the Twilio adapter
 * ({@link TwilioAdapter}): all the call logic is the core's, the messages are the adapter's.
 *
 * @see docs/service-interface.md#twilio-media-streams
 */
import { CallCore } from './CallCore.js';
import type { MediaSocket } from './mediaSocket.js';
import type { TwilioCallOptions } from './callOptions.js';
import { TwilioAdapter } from './twilioAdapter.js';
import type { StartInfo } from './twilioMessages.js';

export type { TwilioCallOptions } from './callOptions.js';
export type { CallEndReason, CallState, TelephonyWordEvent, TwilioCallEvents, TwilioCallStats } from './callTypes.js';

export class TwilioCall extends CallCore<StartInfo> {
  constructor(socket: MediaSocket, options: TwilioCallOptions = {}) {
    super(socket, new TwilioAdapter(), options);
  }

  /** The `start` message's details, once it has come. */
  get streamInfo(): StartInfo | null {
    const s = this.state;
    return s.status === 'awaitingStart' ? null : s.stream;
  }
}

/** Attaches a bridge to a Twilio Media Stream socket (from a `ws` WebSocketServer). */
export function attachTwilioMediaStream(socket: MediaSocket, options?: TwilioCallOptions): TwilioCall {
  return new TwilioCall(socket, options);
}
