/**
 * Types of session detail, listing and creation.
 *
 * - Money and rates are **decimal strings** (`DecimalString`) and stay strings: never parse them
 *   into floats. Use a decimal library if you need arithmetic.
 * - `items` is a union of message, tool call and tool result; item variants the client does not
 *   know are kept as they came (`UnknownSessionItem`), never dropped. Narrow with the type guards.
 * - Which session fields are always present is not shown in the spec, so most are optional.
 *
 * @see docs/service-interface.md#sessions
 */
import type { Extensible, KnownOrString } from './agentTypes.js';

/** A decimal number carried as a string, e.g. `"0.000125"`. Keep it a string. */
export type DecimalString = string;

export type SessionStatus = KnownOrString<'pending' | 'active' | 'completed' | 'failed' | 'unknown'>;
export type SessionSource = KnownOrString<'api_key' | 'dashboard' | 'public' | 'phone'>;
export type EndReason = KnownOrString<
  | 'user_hangup'
  | 'agent_hangup'
  | 'escalated'
  | 'conversation_timeout'
  | 'heartbeat_timeout'
  | 'agent_join_timeout'
  | 'internal_error'
  | 'llm_endpoint_failure'
  | 'room_join_timeout'
  | 'cancelled'
  | 'dial_failed'
>;
export type Direction = KnownOrString<'inbound' | 'outbound'>;
export type DialStatus = KnownOrString<'answered' | 'busy' | 'no_answer' | 'failed'>;
/**
 * @deprecated Answering-machine detection is removed: the value is `unknown` once answered and
 * null before; older records may hold `human` or `voicemail`.
 */
export type AnsweredBy = KnownOrString<'human' | 'voicemail' | 'unknown'>;

export interface TokenUsage extends Extensible {
  model?: string;
  rate_version?: string;
  /** Value `input` shown. */
  category?: KnownOrString<'input'>;
  tokens?: number;
  rate_per_million?: DecimalString;
  cost_usd?: DecimalString;
}

export interface UsageObject extends Extensible {
  /** Value `complete` shown. */
  status?: KnownOrString<'complete'>;
  /** Value `tokens` shown. */
  billing_mode?: KnownOrString<'tokens'>;
  message_generation_id?: string;
  turn_id?: number;
  /** @defaultValue 0 */
  call_count?: number;
  /** @defaultValue false */
  usage_complete?: boolean;
  call_ids?: string[];
  cost_usd?: DecimalString;
  billable_cost_usd?: DecimalString;
  /** @defaultValue `"0"` */
  known_cost_usd?: DecimalString;
  tokens?: TokenUsage[];
}

/** A transcript message. System messages never appear. */
export interface SessionMessageItem extends Extensible {
  type: 'message';
  /** Value `user` shown; agent turns use another role. */
  role?: KnownOrString<'user' | 'assistant'>;
  content?: string;
  id?: string;
  runtime_message_id?: string;
  message_generation_id?: string;
  llm_usage?: UsageObject | null;
  turn_id?: number;
  created_at?: string;
}

/** A tool call. Its fields are not shown in the spec; these are the ones we expect. */
export interface SessionToolCallItem extends Extensible {
  type: 'tool_call';
  id?: string;
  tool_call_id?: string;
  name?: string;
  arguments?: unknown;
  turn_id?: number;
  created_at?: string;
}

/** A tool result. Its fields are not shown in the spec; these are the ones we expect. */
export interface SessionToolResultItem extends Extensible {
  type: 'tool_result';
  id?: string;
  tool_call_id?: string;
  name?: string;
  result?: unknown;
  is_error?: boolean;
  turn_id?: number;
  created_at?: string;
}

/** An item variant this client does not know; kept exactly as received. */
export interface UnknownSessionItem extends Extensible {
  type: string;
}

export type SessionItem = SessionMessageItem | SessionToolCallItem | SessionToolResultItem | UnknownSessionItem;

export const KNOWN_SESSION_ITEM_TYPES = ['message', 'tool_call', 'tool_result'] as const;

export function isMessageItem(item: SessionItem): item is SessionMessageItem {
  return item.type === 'message';
}
export function isToolCallItem(item: SessionItem): item is SessionToolCallItem {
  return item.type === 'tool_call';
}
export function isToolResultItem(item: SessionItem): item is SessionToolResultItem {
  return item.type === 'tool_result';
}
/** True for item variants this client does not know (kept, never dropped). */
export function isUnknownItem(item: SessionItem): item is UnknownSessionItem {
  return !(KNOWN_SESSION_ITEM_TYPES as readonly string[]).includes(item.type);
}

export interface AnalysisDataResult extends Extensible {
  name?: string;
  /** Value `boolean` shown. */
  type?: KnownOrString<'boolean'>;
  value?: string | number | boolean | null;
  /** @defaultValue `''` */
  rationale?: string;
}

export interface CriterionResult extends Extensible {
  name?: string;
  result?: KnownOrString<'success' | 'failure' | 'unknown'>;
  /** @defaultValue `''` */
  rationale?: string;
}

/** Public trim of the post-call analysis: outcomes only. */
export interface SessionAnalysis extends Extensible {
  /** Value `queued` shown; `skipped` and `error` also occur. */
  status?: KnownOrString<'queued' | 'skipped' | 'error'>;
  summary?: string | null;
  data?: AnalysisDataResult[];
  criteria_results?: CriterionResult[];
}

/** The session document of `GET /v1/agent/sessions/{session_id}`. */
export interface Session extends Extensible {
  session_id: string;
  agent_id?: string;
  agent_name?: string;
  status?: SessionStatus;
  source?: SessionSource;
  created_at?: string;
  name?: string;
  end_reason?: EndReason | null;
  direction?: Direction | null;
  dial_status?: DialStatus | null;
  /**
   * @deprecated Answering-machine detection is removed: `unknown` once answered, null before;
   * older records may hold `human` or `voicemail`. Do not branch on it.
   */
  answered_by?: AnsweredBy | null;
  caller_number?: string | null;
  dialed_number?: string | null;
  timezone?: string | null;
  started_at?: string | null;
  ended_at?: string | null;
  duration_seconds?: number | null;
  /** Echoed exactly as set at session creation. */
  metadata?: Record<string, unknown> | null;
  unattributed_llm_usage?: UsageObject[];
  /** Conversation timeline in order. Present in the detail; listings may leave it out. */
  items?: SessionItem[];
  analysis?: SessionAnalysis | null;
}

/**
 * Query of the session listing (`GET /v1/agent/sessions?status=&agent_id=&limit=&cursor=`): wire
 * fields, so wire casing. Pass an `AbortSignal` in the second argument's `signal`.
 */
export interface SessionListParams {
  status?: SessionStatus;
  agent_id?: string;
  /** Page size. */
  limit?: number;
  /** Opaque cursor from a previous page's `next_cursor`. */
  cursor?: string;
  /** @deprecated Use `agent_id` (the query's own name). Accepted until the next minor release. */
  agentId?: string;
  /** @deprecated Pass `{ signal }` as the second argument. Accepted until the next minor release. */
  signal?: AbortSignal;
}

/** Wire shape of one listing page (operation "not shown" in the spec; this is our REST shape). */
export interface SessionListResponse extends Extensible {
  data: Session[];
  /** Cursor of the next page, or null on the last page. */
  next_cursor: string | null;
}

/** A dynamic variable value (spec: string up to 1000 characters, number or boolean). */
export type { DynamicVariableValue } from './dynamicVariables.js';

/**
 * Body of `POST /v1/agent/sessions`, sent as written (a wire object, so wire casing). Fields the
 * type does not know yet go in through `unknownFields({...})`.
 */
export interface SessionCreateParams {
  agent_id: string;
  end_user_id?: string;
  /** Echoed exactly in the session and in webhooks. */
  metadata?: Record<string, unknown>;
  /**
   * Fill `{{placeholders}}`. The dynamic-variable rules run before sending: invalid entries are
   * dropped with a warning through the client's `onWarning`, the rest are sent as an object. A
   * `Map` keeps insertion order and names such as `__proto__` safe.
   */
  dynamic_variables?: Record<string, unknown> | Map<string, unknown>;
}

/**
 * The camelCase form `sessions.create` took before the casing rule (wire objects keep the
 * service's snake_case).
 *
 * @deprecated Use {@link SessionCreateParams} (`agent_id`, `end_user_id`, `dynamic_variables`)
 * and pass `signal` in the second argument. Accepted until the next minor release.
 */
export interface LegacySessionCreateParams {
  agentId: string;
  endUserId?: string;
  metadata?: Record<string, unknown>;
  dynamicVariables?: Record<string, unknown> | Map<string, unknown>;
  signal?: AbortSignal;
}
