/**
 * The agent platform of the local service: agents with draft-and-publish, sessions, simulated
 * calls and real webhook deliveries. State lives in memory, scoped per workspace (one workspace
 * per bearer token).
 *
 * @see docs/service-interface.md#agents, #sessions, #post-call-webhook-events
 */
import { createHash, randomBytes } from 'node:crypto';
import { InvalidOptionError } from '../../errors.js';
import { applyConfigPatch, assertPublishable, isObject, redactConfig, validateConfig } from './agentConfig.js';
import { badRequest, conflict, notFound, unprocessable } from './http.js';
import {
  DEFAULT_CONVERSATION_INIT_TIMEOUT_SECONDS,
  DEFAULT_DELIVERY_ATTEMPTS,
  DEFAULT_DELIVERY_BACKOFF_MS,
  DEFAULT_DELIVERY_TIMEOUT_MS,
  DEFAULT_PAGE_SIZE,
  DEFAULT_RATES,
  DEFAULT_SIGNATURE_HEADER,
  MAX_PAGE_SIZE,
  type PlatformOptions,
  type ResolvedPlatformOptions,
} from './options.js';
import { sessionDetail, sessionSummary } from './sessionView.js';
import { assertStorableJson } from './storableJson.js';
import type { AgentRecord, JsonObject, SessionRecord, SessionSource } from './types.js';
import { invalidEntries, readDynamicVariables, type DynamicVariables } from './variables.js';
import { WebhookDeliverer, type DeliveryReport } from './webhookDelivery.js';

/** Workspace of requests made without a token. */
export const LOCAL_WORKSPACE = 'ws_local';
const OVERRIDABLE = ['first_message', 'system_prompt', 'voice_id', 'language'];

export function resolveOptions(o: PlatformOptions = {}): ResolvedPlatformOptions {
  const attempts = o.delivery?.attempts ?? DEFAULT_DELIVERY_ATTEMPTS;
  if (!Number.isInteger(attempts) || attempts < 1)
    throw new InvalidOptionError('delivery.attempts', `delivery.attempts must be a positive integer, got ${String(attempts)}`);
  return {
    now: o.now ?? Date.now,
    speak: o.speak,
    attempts,
    backoffMs: o.delivery?.backoffMs ?? DEFAULT_DELIVERY_BACKOFF_MS,
    timeoutMs: o.delivery?.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
    signatureHeader: o.delivery?.signatureHeader ?? DEFAULT_SIGNATURE_HEADER,
    initDefaultTimeoutSeconds: o.conversationInit?.defaultTimeoutSeconds ?? DEFAULT_CONVERSATION_INIT_TIMEOUT_SECONDS,
    initTimeoutMs: o.conversationInit?.timeoutMs ?? ((s) => s * 1000),
    rates: { ...DEFAULT_RATES, ...o.rates },
    newId: o.newId ?? ((prefix) => `${prefix}_${randomBytes(8).toString('hex')}`),
    onLog: o.onLog ?? (() => {}),
  };
}

/** One workspace per bearer token, so two tokens never see each other's agents. */
export function workspaceFor(token: string | undefined): string {
  if (token === undefined || token === '') return LOCAL_WORKSPACE;
  return `ws_${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
}

const optionalString = (body: JsonObject, field: string): string | undefined => {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw badRequest('invalid_request', `${field} must be a string`);
  return v;
};

export class AgentPlatform {
  readonly options: ResolvedPlatformOptions;
  readonly deliverer: WebhookDeliverer;
  private readonly agents = new Map<string, AgentRecord>();
  private readonly sessions = new Map<string, SessionRecord>();
  private seq = 0;

  constructor(options: PlatformOptions = {}) {
    this.options = resolveOptions(options);
    this.deliverer = new WebhookDeliverer(this.options);
  }

  iso(ms = this.options.now()): string {
    return new Date(ms).toISOString();
  }

  // ----------------------------------------------------------------------------------- agents

  agentDocument(a: AgentRecord): JsonObject {
    const latest = a.versions.at(-1);
    return {
      ...a.extra,
      agent_id: a.agentId,
      workspace_id: a.workspaceId,
      name: a.name,
      status: a.status,
      publication_state: a.versions.length > 0 ? 'live' : 'draft',
      created_at: a.createdAt,
      updated_at: a.updatedAt,
      description: a.description,
      public_enabled: a.publicEnabled,
      allowed_origins: a.allowedOrigins,
      overrides_allowed: a.overridesAllowed,
      published_version: latest?.version ?? null,
      published_at: latest?.publishedAt ?? null,
      config: redactConfig(a.draft),
    };
  }

  createAgent(workspaceId: string, body: JsonObject): JsonObject {
    const { name, description = '', config = {}, public_enabled, allowed_origins, overrides_allowed, ...extra } = body;
    if (typeof name !== 'string' || name === '') throw badRequest('invalid_request', 'name is required and must be a string');
    if (typeof description !== 'string') throw badRequest('invalid_request', 'description must be a string');
    validateConfig(config ?? {});
    assertStorableJson(config, 'config');
    assertStorableJson(extra, "the agent's extra fields");
    if (public_enabled !== undefined && typeof public_enabled !== 'boolean')
      throw badRequest('invalid_request', 'public_enabled must be a boolean');
    const list = (v: unknown, field: string, allowed?: string[]): string[] => {
      if (v === undefined || v === null) return [];
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || (allowed && !allowed.includes(x)))) {
        throw badRequest('invalid_request', `${field} must be an array of ${allowed ? allowed.join(' | ') : 'strings'}`);
      }
      return v as string[];
    };
    const draft = applyConfigPatch(undefined, (config ?? {}) as JsonObject);
    assertStorableJson(draft, 'config');
    const now = this.iso();
    const agent: AgentRecord = {
      agentId: this.options.newId('agent'),
      workspaceId,
      name,
      description,
      status: 'active',
      createdAt: now,
      updatedAt: now,
      publicEnabled: public_enabled === true,
      allowedOrigins: list(allowed_origins, 'allowed_origins'),
      overridesAllowed: list(overrides_allowed, 'overrides_allowed', OVERRIDABLE),
      draft,
      versions: [],
      extra: extra as JsonObject,
    };
    this.agents.set(agent.agentId, agent);
    return this.agentDocument(agent);
  }

  agent(workspaceId: string, agentId: string): AgentRecord {
    const a = this.agents.get(agentId);
    if (!a || a.workspaceId !== workspaceId) throw notFound('agent', agentId);
    return a;
  }

  /** PATCH of the draft config (body: the config object, or `{config: {...}}`). */
  patchConfig(workspaceId: string, agentId: string, body: JsonObject): JsonObject {
    const a = this.agent(workspaceId, agentId);
    const patch = Object.keys(body).length === 1 && isObject(body['config']) ? body['config'] : body;
    validateConfig(patch);
    assertStorableJson(patch, 'config');
    const draft = applyConfigPatch(a.draft, patch);
    assertStorableJson(draft, 'the patched config');
    a.draft = draft;
    a.updatedAt = this.iso();
    return this.agentDocument(a);
  }

  /** Freezes the draft as a new version; the first publish turns the agent `live`. */
  publish(workspaceId: string, agentId: string): JsonObject {
    const a = this.agent(workspaceId, agentId);
    assertPublishable(a.draft);
    const publishedAt = this.iso();
    const version = a.versions.length + 1;
    a.versions.push({ version, branchId: `${a.agentId}:v${version}`, publishedAt, config: structuredClone(a.draft) });
    a.updatedAt = publishedAt;
    return { ...this.agentDocument(a), version, published_at: publishedAt };
  }

  versions(workspaceId: string, agentId: string): JsonObject {
    const a = this.agent(workspaceId, agentId);
    return { data: a.versions.map((v) => ({ version: v.version, published_at: v.publishedAt, config: redactConfig(v.config) })) };
  }

  // --------------------------------------------------------------------------------- sessions

  /** A new pending session record. `version` null means the builder preview on the draft. */
  newSession(
    a: AgentRecord,
    init: {
      source: SessionSource;
      preview: boolean;
      endUserId: string | null;
      metadata: unknown;
      variables: DynamicVariables;
    },
  ): SessionRecord {
    const latest = a.versions.at(-1) ?? null;
    const s: SessionRecord = {
      seq: ++this.seq,
      sessionId: this.options.newId('sess'),
      agentId: a.agentId,
      workspaceId: a.workspaceId,
      agentName: a.name,
      version: init.preview ? null : latest,
      preview: init.preview,
      status: 'pending',
      source: init.source,
      name: `${a.name} session`,
      createdAt: this.iso(),
      endUserId: init.endUserId,
      metadata: init.metadata,
      dynamicVariables: init.variables,
      direction: null,
      dialStatus: null,
      answeredBy: null,
      callerNumber: null,
      dialedNumber: null,
      carrierCallSid: null,
      timezone: null,
      startedAt: null,
      endedAt: null,
      durationSeconds: null,
      endReason: null,
      connected: false,
      items: [],
      unattributedUsage: [],
      costMicros: { llm: 0n, tts: 0n },
      tts: { characters: 0, audioSeconds: 0 },
      analysis: null,
      analysisFailure: null,
    };
    this.sessions.set(s.sessionId, s);
    return s;
  }

  /** Reads `end_user_id`, `metadata` and `dynamic_variables` of a creation or simulation body. */
  sessionInputs(body: JsonObject): { endUserId: string | null; metadata: unknown; variables: DynamicVariables } {
    const endUserId = optionalString(body, 'end_user_id') ?? null;
    const metadata = body['metadata'] ?? null;
    if (metadata !== null && !isObject(metadata)) throw badRequest('invalid_request', 'metadata must be an object');
    assertStorableJson(metadata, 'metadata');
    const raw = body['dynamic_variables'];
    let variables: DynamicVariables = new Map();
    if (raw !== undefined && raw !== null) {
      const read = readDynamicVariables(raw);
      if (read === null) throw badRequest('invalid_request', 'dynamic_variables must be an object');
      const invalid = invalidEntries(read.warnings);
      if (invalid.length > 0) throw unprocessable('invalid_dynamic_variables', invalid.map((w) => w.message).join('; '));
      variables = read.variables;
    }
    return { endUserId, metadata, variables };
  }

  /** Session creation: refused (409) while the agent is a draft. */
  createSession(workspaceId: string, body: JsonObject): JsonObject {
    const agentId = optionalString(body, 'agent_id');
    if (agentId === undefined) throw badRequest('invalid_request', 'agent_id is required');
    const a = this.agent(workspaceId, agentId);
    if (a.versions.length === 0)
      throw conflict('agent_not_published', `agent '${agentId}' is a draft: publish a version before starting sessions`);
    const s = this.newSession(a, { source: 'api_key', preview: false, ...this.sessionInputs(body) });
    const name = optionalString(body, 'name');
    if (name !== undefined) s.name = name;
    return sessionDetail(s);
  }

  session(workspaceId: string, sessionId: string): SessionRecord {
    const s = this.sessions.get(sessionId);
    if (!s || s.workspaceId !== workspaceId) throw notFound('session', sessionId);
    return s;
  }

  getSession(workspaceId: string, sessionId: string): JsonObject {
    return sessionDetail(this.session(workspaceId, sessionId));
  }

  /** Newest first; `cursor` is the opaque position after the last session of the previous page. */
  listSessions(workspaceId: string, query: URLSearchParams): JsonObject {
    const status = query.get('status');
    const agentId = query.get('agent_id');
    const limitText = query.get('limit');
    const limit = limitText === null ? DEFAULT_PAGE_SIZE : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE)
      throw badRequest('invalid_request', `limit must be an integer 1..${MAX_PAGE_SIZE}`);
    const cursorText = query.get('cursor');
    let before = Number.POSITIVE_INFINITY;
    if (cursorText !== null && cursorText !== '') {
      const m = /^s:(\d{1,15})$/.exec(Buffer.from(cursorText, 'base64url').toString('utf8'));
      if (!m) throw badRequest('invalid_cursor', 'cursor is not one this service gave');
      before = Number(m[1]);
    }
    const matches = [...this.sessions.values()]
      .filter(
        (s) =>
          s.workspaceId === workspaceId &&
          s.seq < before &&
          (status === null || s.status === status) &&
          (agentId === null || s.agentId === agentId),
      )
      .sort((x, y) => y.seq - x.seq);
    const page = matches.slice(0, limit);
    const last = page.at(-1);
    const next = matches.length > limit && last ? Buffer.from(`s:${last.seq}`).toString('base64url') : null;
    return { data: page.map(sessionSummary), next_cursor: next };
  }

  deliveries(workspaceId: string, sessionId: string): DeliveryReport[] {
    return this.deliverer.reports(this.session(workspaceId, sessionId).sessionId);
  }

  /** Resolves once every queued webhook delivery has settled. */
  settled(): Promise<void> {
    return this.deliverer.settled();
  }
}
