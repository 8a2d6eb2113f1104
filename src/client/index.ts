/**
 * `voicewire/client`: the typed client of the service (speech, agents, sessions).
 */
export {
  createClient,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_RETRIES,
  BASE_URL_ENV,
  API_KEY_ENV,
  type Client,
  type ClientOptions,
} from './createClient.js';
export type { HttpCore, HttpCoreConfig, HttpRequest, HttpMethod, RawResponse } from '../internal/http/http.js';
export { DEFAULT_RETRY_TIMING, type RetryPolicy, type RetryTiming } from '../internal/http/retry.js';
export {
  DEFAULT_API_PATHS,
  ROUTE_TEMPLATES,
  SESSION_LIST_QUERY,
  TTS_STREAM_WITH_TIMESTAMP_PATH,
  AGENTS_BASE_PATH,
  SESSIONS_BASE_PATH,
  AGENT_CONFIG_SUFFIX,
  AGENT_PUBLISH_SUFFIX,
  type ApiPaths,
} from '../protocol/paths.js';
export type { AgentsApi } from './agents.js';
export type { SessionsApi } from './sessions.js';
export type { RequestOptions } from '../internal/http/requestOptions.js';
export { Page, PagePromise } from './pagination.js';
export { validateAgentCreate, validateAgentConfig, AGENT_CONFIG_SCHEMA } from '../protocol/validateAgentConfig.js';
export type * from '../protocol/agentTypes.js';
export type * from '../protocol/sessionTypes.js';
export { isMessageItem, isToolCallItem, isToolResultItem, isUnknownItem, KNOWN_SESSION_ITEM_TYPES } from '../protocol/sessionTypes.js';
export type * from './tts.js';
export { unknownFields, type UnknownFields } from '../protocol/unknownFields.js';
export {
  ApiError,
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  PayloadTooLargeError,
  UnprocessableEntityError,
  RateLimitError,
  InternalServerError,
  ApiConnectionError,
  ApiTimeoutError,
  NotEventStreamError,
  StreamInterruptedError,
  AbortError,
  RequestValidationError,
} from '../errors.js';
