/**
 * Records the platform keeps in memory, and the shapes it puts on the wire.
 * Wire names follow docs/service-interface.md (snake_case); records are internal.
 */

/** Any JSON object. Agent configs are kept as plain JSON so unknown fields pass through. */
export type JsonObject = { [key: string]: unknown };

export type PublicationState = 'draft' | 'live';
export type SessionStatus = 'pending' | 'active' | 'completed' | 'failed' | 'unknown';
export type SessionSource = 'api_key' | 'dashboard' | 'public' | 'phone';
export type Direction = 'inbound' | 'outbound';
export type DialStatus = 'answered' | 'busy' | 'no_answer' | 'failed';
export type AnalysisStatus = 'queued' | 'completed' | 'skipped' | 'error';

/** End reasons of a session in which a participant connected (the ones `call.ended` may carry). */
export const CONNECTED_END_REASONS = [
  'user_hangup',
  'agent_hangup',
  'escalated',
  'conversation_timeout',
  'heartbeat_timeout',
  'agent_join_timeout',
  'internal_error',
  'llm_endpoint_failure',
] as const;
/** End reasons of a session in which nobody ever connected. */
export const NEVER_CONNECTED_END_REASONS = ['room_join_timeout', 'cancelled', 'dial_failed'] as const;
export type EndReason = (typeof CONNECTED_END_REASONS)[number] | (typeof NEVER_CONNECTED_END_REASONS)[number];

/** One `post_call` endpoint, with its write-only secret. */
export interface WebhookEndpoint {
  url: string;
  secret?: string;
}

/** A published, frozen configuration. */
export interface AgentVersion {
  version: number;
  /** Internal lineage id; surfaces as `branch_id` in webhook payloads. */
  branchId: string;
  publishedAt: string;
  /** Full config, secrets included (never rendered as is). */
  config: JsonObject;
}

export interface AgentRecord {
  agentId: string;
  workspaceId: string;
  name: string;
  description: string;
  status: 'active' | 'archived';
  createdAt: string;
  updatedAt: string;
  publicEnabled: boolean;
  allowedOrigins: string[];
  overridesAllowed: string[];
  /** The working config (secrets included). Applies to production calls only once published. */
  draft: JsonObject;
  versions: AgentVersion[];
  /** Extra top-level fields of the creation request, passed through. */
  extra: JsonObject;
}

/** A usage object of the spec (`llm_usage`, `unattributed_llm_usage[]`). */
export interface UsageObject {
  status: 'complete';
  billing_mode: string;
  message_generation_id: string;
  turn_id: number;
  call_count: number;
  usage_complete: boolean;
  call_ids: string[];
  cost_usd: string;
  billable_cost_usd: string;
  known_cost_usd: string;
  tokens: UsageTokens[];
  [extra: string]: unknown;
}
export interface UsageTokens {
  model: string;
  rate_version: string;
  category: string;
  tokens: number;
  rate_per_million: string;
  cost_usd: string;
}

/** One timeline item, already in wire shape. */
export type SessionItem = JsonObject & { type: 'message' | 'tool_call' | 'tool_result'; id: string; turn_id: number };

export interface AnalysisResult {
  status: AnalysisStatus;
  finished_at: string | null;
  error: string | null;
  summary: string | null;
  data: JsonObject[];
  criteria_results: JsonObject[];
}

export interface SessionRecord {
  seq: number;
  sessionId: string;
  agentId: string;
  workspaceId: string;
  agentName: string;
  /** The version the call ran on (null: builder preview on the draft). */
  version: AgentVersion | null;
  preview: boolean;
  status: SessionStatus;
  source: SessionSource;
  name: string;
  createdAt: string;
  endUserId: string | null;
  metadata: unknown;
  dynamicVariables: Map<string, string | number | boolean>;
  direction: Direction | null;
  dialStatus: DialStatus | null;
  answeredBy: 'human' | 'voicemail' | 'unknown' | null;
  callerNumber: string | null;
  dialedNumber: string | null;
  carrierCallSid: string | null;
  timezone: string | null;
  startedAt: string | null;
  endedAt: string | null;
  durationSeconds: number | null;
  endReason: EndReason | string | null;
  connected: boolean;
  items: SessionItem[];
  unattributedUsage: UsageObject[];
  /** Total cost of the session in micro-dollars, by kind. */
  costMicros: { llm: bigint; tts: bigint };
  tts: { characters: number; audioSeconds: number };
  analysis: AnalysisResult | null;
  /** Forces the next analysis run to fail with this cause (simulation only). */
  analysisFailure: string | null;
}
