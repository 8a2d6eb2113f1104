/**
 * `voicewire/telephony`: speak into a phone call's media stream (Twilio, Telnyx, Plivo, Vonage
 * and Exotel, each through a {@link ProviderAdapter} on the same {@link CallCore}) with word events timed by
 * what the caller actually heard (mark echoes), and barge-in that clears the phone and tells the
 * truth about what was heard.
 */
export {
  TwilioCall,
  attachTwilioMediaStream,
  type TwilioCallOptions,
  type TwilioCallEvents,
  type TwilioCallStats,
  type CallState,
  type CallEndReason,
  type TelephonyWordEvent,
} from './TwilioCall.js';
export {
  DEFAULT_LEAD_MS,
  DEFAULT_MARK_EVERY_FRAMES,
  DEFAULT_MAX_SOCKET_BUFFERED_BYTES,
  DEFAULT_MAX_QUEUED_UTTERANCES,
  UNACKNOWLEDGED_SLACK_MS,
} from './callOptions.js';
export { CallCore } from './CallCore.js';
export { bargeInFromAgent, type CallOptions } from './callOptions.js';
export type { BargeInEvent, CallEvents, CallStats } from './callTypes.js';
export {
  MAX_PENDING_MS as BARGE_IN_MAX_PENDING_MS,
  type BargeInOptions,
  type CallerSpeechEndedEvent,
  type CallerSpeechStartedEvent,
  type DetectorThread,
} from './VoiceBargeIn.js';
export {
  configureDetectorThreads,
  defaultDetectorThreads,
  DEFAULT_DETECTOR_THREAD_IDLE_MS,
  DEFAULT_DETECTOR_TICK_MS,
  DEFAULT_DETECTOR_THREAD_NICE,
  type DetectorThreadOptions,
} from './bargeIn/DetectorThreads.js';
export {
  UNBATCHED,
  socketBytes,
  socketText,
  type CallStart,
  type OutboundChunking,
  type ProviderAdapter,
  type ProviderEvent,
  type ProviderMessage,
} from './providerAdapter.js';
export {
  MULAW_8K,
  bytesPerSample,
  decodeLineAudio,
  describeLineFormat,
  type LineEncoding,
  type LineFormat,
  type LineSampleRate,
} from './lineFormat.js';
export { TwilioAdapter } from './twilioAdapter.js';
export {
  PROVIDERS,
  attachMediaStream,
  createProviderAdapter,
  isProviderName,
  type AnyProviderCall,
  type MediaStreamOptions,
  type ProviderCalls,
  type ProviderName,
  type ProviderStartInfo,
} from './mediaStream.js';
export { createMediaBridge, type MediaBridge, type MediaBridgeOptions } from './MediaBridgeServer.js';
export { TelnyxAdapter, TelnyxCall, attachTelnyxMediaStream, telnyxLineFormat } from './providers/telnyxAdapter.js';
export { PlivoAdapter, PlivoCall, attachPlivoMediaStream, plivoLineFormat } from './providers/plivoAdapter.js';
export { VonageAdapter, VonageCall, attachVonageMediaStream, vonageLineFormat } from './providers/vonageAdapter.js';
export { ExotelAdapter, ExotelCall, attachExotelMediaStream, exotelLineFormat } from './providers/exotelAdapter.js';
export type { TelnyxStart, TelnyxMediaFormat } from './providers/telnyxMessages.js';
export type { PlivoStart, PlivoMediaFormat } from './providers/plivoMessages.js';
export type { VonageConnected } from './providers/vonageMessages.js';
export type { ExotelStart, ExotelMediaFormat } from './providers/exotelMessages.js';
export { createTwilioBridge, type TwilioBridge, type TwilioBridgeOptions } from './TwilioBridgeServer.js';
export type { MediaSocket, MediaSocketData, MediaSocketServer } from './mediaSocket.js';
export { createClientSpeechSource, type ClientSpeechSourceOptions } from './clientSpeechSource.js';
export {
  TELEPHONY_OUTPUT,
  TELEPHONY_REQUEST_DEFAULTS,
  telephonyOutputFor,
  telephonyRequestDefaults,
  type SpeechSource,
  type SpeechSourceContext,
  type SpeechStream,
  type SpeechWord,
  type SpeechWordEvent,
} from './speechSource.js';
export { MARK_PREFIX, type UtteranceResult, type UtteranceStatus } from './Utterance.js';
export { BufferedSpeechStream, createPromptSpeechSource } from './BufferedSpeechStream.js';
export { InboundAudio, DEFAULT_INBOUND_BUFFER_BYTES } from './InboundAudio.js';
export { LatenessHistogram } from './LatenessHistogram.js';
export { systemClock, type TelephonyClock } from './clock.js';
export {
  parseInboundMessage,
  checkMediaFormat,
  TWILIO_ENCODING,
  TWILIO_SAMPLE_RATE,
  type InboundMessage,
  type StartInfo,
  type MediaFormat,
} from './twilioMessages.js';
export { TelephonyError } from '../errors.js';
export * from './vad/index.js';
export * from './auth/index.js';
export * from './answer/index.js';
export * from './bargeIn/index.js';
