/**
 * `voicewire/service`: the local voice service.
 */
export { startLocalService, TTS_PATH, AGENT_PREFIX } from './LocalService.js';
export type { LocalService, LocalServiceOptions, PlatformHandler, ServiceRequestContext } from './LocalService.js';
export { LOCAL_CALL_TIMEOUT_MS } from './localServiceApi.js';
export type {
  LocalServiceApi,
  SimulateCallRequest,
  SimulateCallResult,
  SimulatedTurnInput,
  ConversationInitReport,
  RerunAnalysisRequest,
  RerunAnalysisResult,
  PublishedAgentVersion,
  FaultHeaderOptions,
} from './localServiceApi.js';
export type { SimulationTarget } from './platform/callSimulator.js';
export type { ConversationInitOutcome } from './platform/conversationInit.js';
export type { AnalysisResult, AnalysisStatus, DialStatus, EndReason } from './platform/types.js';
export type { SynthesisResult } from './synthesizeToMemory.js';
export type { SynthesisSummary } from './stream/synthesizeSpeech.js';
export { FAULT_HEADER, ATTEMPT_KEY_HEADER, parseFaults, formatFaults } from './faults.js';
export type { FaultSpec, MalformedKind } from './faults.js';
export { VOICES, EMOTIONS, DEFAULT_VOICE_ID } from './speech/voices.js';
export type { VoiceSpec, EmotionStyle } from './speech/voices.js';
export { MODEL_RESPONSE_HEADER } from './handleTts.js';
export { REALTIME_LEAD_SEC } from './stream/SseResponder.js';
export type { Pace, ServiceClock } from './stream/SseResponder.js';
export {
  createAgentPlatform,
  createPlatformHandler,
  handlePlatformRequest,
  AgentPlatform,
  type PlatformRequestContext,
  type PlatformOptions,
  type PlatformLogEntry,
  type PlatformRates,
  type DeliveryReport,
  type AttemptReport,
} from './platform/index.js';
