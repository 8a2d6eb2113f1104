/**
 * Types of agents and their configuration, one interface per section of the spec's config table.
 *
 * Where the spec lists values "not shown beyond the values listed" (transfer type, mode,
 * warm_connect, voicemail action, data field type), the type is the known values **or any
 * string** (`KnownOrString`): editors suggest the known ones, and new values never break a build.
 *
 * Request and config types are **closed**: an object literal with a misspelt field
 * (`system_promt`) does not compile. The API grows, so a field these types do not know yet is sent
 * by spreading {@link unknownFields} into the literal; at run time unknown fields always pass
 * through. Response types (`Agent`, `AgentPublishResult`) stay open (`Extensible`), so fields the
 * service adds can be read.
 *
 * @see docs/service-interface.md#agents
 */

/** A known value, or any other string the service may add later. */
export type KnownOrString<T extends string> = T | (string & {});

/** A response object: fields the service adds later can still be read. */
export interface Extensible {
  [field: string]: unknown;
}

export interface PromptConfig {
  /** System prompt. May hold `{{placeholder}}` names filled by dynamic variables. */
  system_prompt?: string;
  /** Opening message; may hold placeholders. */
  first_message?: string;
  /** Prompt used to generate the opening message. */
  first_message_prompt?: string;
}

export interface VoiceConfig {
  voice_id?: string;
  speaking_language?: string;
  expressive?: boolean;
  keyterms?: string[];
  speed?: number;
}

export interface TransferDestination {
  /** Value `phone` shown. */
  type?: KnownOrString<'phone'>;
  /** @defaultValue `''` */
  label?: string;
  phone_number?: string;
  sip_uri?: string;
  /** @defaultValue `''` */
  description?: string;
  /** Value `cold` shown. */
  mode?: KnownOrString<'cold'>;
  /** Value `confirm` shown. */
  warm_connect?: KnownOrString<'confirm'>;
  /** @defaultValue `''` */
  warm_briefing_instructions?: string;
}

export interface VoicemailConfig {
  /** Value `hangup` shown. */
  action?: KnownOrString<'hangup'>;
  /** @defaultValue `''` */
  message?: string;
}

export interface OutboundConfig {
  /** Answering-machine detection flag. */
  amd_enabled?: boolean;
  voicemail?: VoicemailConfig;
}

export interface ConversationConfig {
  max_duration_seconds?: number;
  interruptible?: boolean;
  reengage_enabled?: boolean;
  hangup_after_seconds?: number;
  hangup_farewell_enabled?: boolean;
  record_audio?: boolean;
  timezone?: string;
  transfer_destinations?: TransferDestination[];
  outbound?: OutboundConfig;
}

export interface SystemToolsConfig {
  hang_up_call?: boolean;
}

export interface ToolsConfig {
  enabled?: boolean;
  tool_ids?: string[];
  system_tools?: SystemToolsConfig;
}

export interface ConversationInitWebhookConfig {
  url?: string;
  /** Write-only: never returned by reads. */
  secret?: string;
  timeout_seconds?: number;
}

export interface PostCallWebhookConfig {
  url?: string;
  /** Write-only. Sent without a secret, the entry keeps the secret stored for that url. */
  secret?: string;
}

export interface WebhooksConfig {
  /** Inbound-call webhook; `null` removes it. */
  conversation_init?: ConversationInitWebhookConfig | null;
  /** A list (one object is accepted as a one-element list); `null` or `[]` stops deliveries. */
  post_call?: PostCallWebhookConfig[] | PostCallWebhookConfig | null;
}

export interface KnowledgeBaseConfig {
  enabled?: boolean;
  knowledge_source_ids?: string[];
}

export interface AnalysisSummaryConfig {
  enabled?: boolean;
  prompt?: string;
  language?: string;
}

export interface AnalysisDataField {
  name?: string;
  /** Value `text` shown. */
  type?: KnownOrString<'text'>;
  /** @defaultValue `''` */
  description?: string;
  enum_options?: string[];
}

export interface AnalysisCriterion {
  name?: string;
  /** @defaultValue `''` */
  description?: string;
}

export interface AnalysisConfig {
  summary?: AnalysisSummaryConfig;
  data_fields?: AnalysisDataField[];
  criteria?: AnalysisCriterion[];
}

export interface GuardrailsConfig {
  focus?: boolean;
  manipulation?: boolean;
}

export interface CustomLlmConfig {
  base_url?: string;
  model?: string;
  api_key?: string;
}

export interface LlmConfig {
  custom?: CustomLlmConfig;
}

/** The full agent configuration; every section optional (used by PATCH). */
export interface AgentConfig {
  prompt?: PromptConfig;
  voice?: VoiceConfig;
  conversation?: ConversationConfig;
  tools?: ToolsConfig;
  webhooks?: WebhooksConfig;
  knowledge_base?: KnowledgeBaseConfig;
  analysis?: AnalysisConfig;
  guardrails?: GuardrailsConfig;
  llm?: LlmConfig;
}

/** The configuration of a creation request: the minimal request's fields are required. */
export interface AgentCreateConfig extends AgentConfig {
  prompt: PromptConfig & { system_prompt: string };
  voice: VoiceConfig & { voice_id: string; speaking_language: string };
}

/** Body of `POST /v1/agent/agents`. */
export interface AgentCreateParams {
  name: string;
  /** @defaultValue `''` (sent when omitted, as the minimal request carries it) */
  description?: string;
  config: AgentCreateConfig;
}

export type AgentStatus = KnownOrString<'active' | 'archived'>;
export type PublicationState = KnownOrString<'draft' | 'live'>;
export type OverridableField = KnownOrString<'first_message' | 'system_prompt' | 'voice_id' | 'language'>;

/** The agent document returned by creation and retrieval. */
export interface Agent extends Extensible {
  agent_id: string;
  workspace_id?: string;
  name?: string;
  status?: AgentStatus;
  /** `live` once a version is published; `draft` agents cannot take sessions. */
  publication_state?: PublicationState;
  created_at?: string;
  updated_at?: string;
  description?: string;
  public_enabled?: boolean;
  allowed_origins?: string[];
  overrides_allowed?: OverridableField[];
  /**
   * Present on reads that include the configuration; secrets are never returned. Typed with the
   * closed config types: a field they do not know yet is still there at run time, read it through
   * a cast (`(agent.config?.voice as Record<string, unknown> | undefined)?.['accent']`).
   */
  config?: AgentConfig;
}

/** Answer of publishing (operation "not shown" in the spec; the fields below are what we expect). */
export interface AgentPublishResult extends Extensible {
  agent_id?: string;
  /** The published version's number or id. */
  version?: number | string;
  publication_state?: PublicationState;
  published_at?: string;
}
