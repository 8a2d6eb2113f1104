/**
 * `voicewire/webhooks`: verify, parse, deduplicate and answer the service's webhooks.
 */
export { WebhookVerificationError, DedupStoreUnavailableError, MissingDependencyError } from '../errors.js';
export {
  verifyWebhookSignature,
  signWebhookPayload,
  DEFAULT_SIGNATURE_HEADER,
  DEFAULT_TOLERANCE_SECONDS,
  MAX_SIGNATURE_HEADER_LENGTH,
  type VerifyWebhookSignatureParams,
  type SignWebhookPayloadParams,
  type WebhookPayload,
} from '../protocol/webhookSignature.js';
export {
  parseWebhookEvent,
  CALL_ENDED,
  CALL_ANALYZED,
  DIAL_FINISHED,
  KNOWN_WEBHOOK_EVENTS,
  CALL_ENDED_REASONS,
  type WebhookEvent,
  type KnownWebhookEventName,
  type WebhookSession,
  type WebhookAnalysis,
  type CallEndedPayload,
  type CallAnalyzedPayload,
  type DialFinishedPayload,
  type UnknownWebhookPayload,
} from './events.js';
export {
  dedupKeyOf,
  runOnce,
  DEFAULT_CLAIM_TTL_SECONDS,
  DEFAULT_DONE_TTL_SECONDS,
  type DedupStore,
  type DedupKey,
  type ClaimResult,
  type DedupOutcome,
  type DedupTtlOptions,
} from './dedup.js';
export { comparableInstant } from './instant.js';
export { MemoryDedupStore, type MemoryDedupStoreOptions } from './MemoryDedupStore.js';
export { RedisDedupStore, type RedisDedupStoreOptions, type RedisLikeClient } from './RedisDedupStore.js';
export { createWebhookReceiver, type WebhookReceiver, type WebhookReceiverOptions, type WebhookContext } from './receiver.js';
export {
  createConversationInitReceiver,
  CALL_INBOUND,
  type ConversationInitRequest,
  type ConversationInitAnswer,
  type ConversationInitOptions,
  type ConversationInitReceiver,
} from './inbound.js';
export {
  validateDynamicVariables,
  dynamicVariablesToObject,
  fillPlaceholders,
  DYNAMIC_VARIABLE_NAME_PATTERN,
  MAX_DYNAMIC_VARIABLES,
  MAX_DYNAMIC_VARIABLE_STRING_LENGTH,
  type DynamicVariableValue,
  type DynamicVariableWarning,
  type DynamicVariableRule,
  type DynamicVariablesResult,
  type FillOptions,
} from '../protocol/dynamicVariables.js';
export { getHeader, type HeadersLike, type WebhookResponse } from './httpUtil.js';
