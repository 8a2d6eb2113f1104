/**
 * The seam between the provider-neutral call core (`CallCore`) and one telephony provider's media
 * stream protocol. An adapter only translates: socket messages in → {@link ProviderEvent}s, and
 * the core's three outbound intents (media, acknowledgement request, clear) → socket messages.
 * Pacing, the playhead, barge-in and what was heard stay in the core.
 *
 * ## The acknowledgement contract
 * The core asks for an acknowledgement (Twilio/Telnyx/Exotel `mark`, Plivo `checkpoint`, Vonage
 * `notify`) after audio it sent, and moves the playhead to that audio's end only when the
 * adapter reports `ack` with the same name. So an adapter must report an `ack` ONLY when the
 * provider says the audio before it has been played (not merely received).
 *
 * On clear, the core stops caring about every acknowledgement it asked for before the clear: the
 * utterance is settled from the acks already received, and acks that come back later (Twilio
 * returns all pending marks at once after `clear`; another provider may drop them or return them
 * late) are ignored, never counted as played. An adapter therefore reports what the provider
 * sends as it is; it need not know whether a returned ack was played or cleared. A provider's
 * confirmation of the clear (Plivo `clearedAudio`, Vonage `websocket:cleared`) is reported as
 * `cleared` and is informational: the core treats the phone's buffer as empty from the moment it
 * sends the clear.
 */
import type { LineFormat } from './lineFormat.js';
import type { MediaSocketData } from './mediaSocket.js';

/** What a provider's start tells the core (the provider's own start details travel beside it). */
export interface CallStart {
  /** The provider's id of this media stream (Twilio `streamSid`, Telnyx `stream_id` …). */
  streamId: string;
  /** The provider's id of the call. */
  callId: string;
  customParameters: Record<string, string>;
  /** The audio format both ways. */
  format: LineFormat;
}

/** One inbound socket message, as the core understands it. `S` is the provider's start details. */
export type ProviderEvent<S> =
  | { type: 'connected' }
  /** The stream starts; the core calls {@link ProviderAdapter.start} with `info` if it accepts it. */
  | { type: 'start'; info: S }
  /** Caller audio in the line format (already un-base64'd); `timestamp` in ms when the provider gives one. */
  | { type: 'media'; audio: Uint8Array; timestamp?: number }
  | { type: 'dtmf'; digit: string; track: string }
  /** The provider played the audio before the acknowledgement request `name`. */
  | { type: 'ack'; name: string }
  /** The provider confirms a clear. */
  | { type: 'cleared' }
  | { type: 'stop' }
  /** Anything the core has no use for (a newer provider event, our own outbound track …). */
  | { type: 'unknown'; name: string };

/** A message for the socket: a text (JSON) frame or a binary frame. */
export type ProviderMessage = string | Uint8Array;

/**
 * How outbound media must be cut. `quantumBytes`: every media message's payload is a multiple of
 * it; `minBatchBytes`: and at least this long (the end of an utterance is padded with silence).
 * Both 0: each piece of audio goes out as it comes (Twilio).
 */
export interface OutboundChunking {
  quantumBytes: number;
  minBatchBytes: number;
  /**
   * At most this many bytes a message (a multiple of `quantumBytes`; Vonage: exactly one 20 ms
   * frame, Exotel: its 100 KB limit). Omitted or 0: no limit.
   */
  maxBatchBytes?: number;
}

/** Media goes out as it comes. */
export const UNBATCHED: OutboundChunking = Object.freeze({ quantumBytes: 0, minBatchBytes: 0 });

/**
 * One call's adapter (it may keep per-call state, such as the stream id every outbound message
 * must carry).
 */
export interface ProviderAdapter<S> {
  /** The provider's name, for messages (e.g. 'Twilio'). */
  readonly name: string;
  /**
   * Parses one socket message. Throws a `TelephonyError` (`TELEPHONY_PROTOCOL`, with `field`)
   * for a malformed one; the core reports it as a warning and the call goes on.
   */
  parse(data: MediaSocketData, isBinary: boolean): ProviderEvent<S>;
  /**
   * The core accepted this start: remember what later outbound messages need and say what the
   * stream is. Throws a `TelephonyError` when the stream cannot be served (an unsupported
   * format): the core then ends the call with that error and closes the socket.
   */
  start(info: S): CallStart;
  /**
   * The provider's acknowledgements are coarser than words: a request can only follow a whole
   * media message longer than a frame (Exotel's 3.2 KB batches). The core then moves the playhead
   * with the clock between acknowledgements (`ClockedPlayhead`), so words fire when the phone
   * plays them. Omitted: false (each acknowledgement lands where it was asked for).
   */
  readonly coarseAcknowledgements?: boolean;
  /** How outbound media must be cut on this line. */
  chunking(format: LineFormat): OutboundChunking;
  /** One media message carrying `audio` (line bytes; a view the adapter must not keep). */
  media(audio: Uint8Array): ProviderMessage;
  /** Asks the provider to acknowledge `name` once the audio sent before it has played. */
  ackRequest(name: string): ProviderMessage;
  /** Asks the provider to drop the audio it has buffered. */
  clear(): ProviderMessage;
}

/** The text of a socket message. */
export function socketText(data: MediaSocketData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8'); // fragments of one message
  return Buffer.from(data).toString('utf8');
}

/** The bytes of a socket message (a view when it is one Buffer). */
export function socketBytes(data: MediaSocketData): Uint8Array {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data); // fragments of one message
  return new Uint8Array(data);
}
