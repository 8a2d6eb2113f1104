/**
 * Post-call webhook events: a typed union of `call.ended`, `call.analyzed` and
 * `phone_call.dial_finished`.
 *
 * Receivers must tolerate growth (spec "Events" rule 3, "Versioning" 5): unknown events and unknown
 * reason/status values are kept and flagged in `unrecognized`, never rejected. Only a body that is
 * not a JSON object, or a known event without `session.id`, is refused (`WEBHOOK_BAD_PAYLOAD`).
 *
 * @see docs/service-interface.md#post-call-webhook-events
 */
import { VoicewireError } from '../errors.js';
import type { AnsweredBy, DialStatus, Direction, EndReason } from '../protocol/sessionTypes.js';
import type { Extensible, KnownOrString } from '../protocol/agentTypes.js';

export const CALL_ENDED = 'call.ended';
export const CALL_ANALYZED = 'call.analyzed';
export const DIAL_FINISHED = 'phone_call.dial_finished';
export const KNOWN_WEBHOOK_EVENTS = [CALL_ENDED, CALL_ANALYZED, DIAL_FINISHED] as const;
export type KnownWebhookEventName = (typeof KNOWN_WEBHOOK_EVENTS)[number];

/** Reasons `call.ended` may carry (spec rule 1); others are flagged, not rejected. */
export const CALL_ENDED_REASONS = [
  'user_hangup',
  'agent_hangup',
  'escalated',
  'conversation_timeout',
  'heartbeat_timeout',
  'agent_join_timeout',
  'internal_error',
  'llm_endpoint_failure',
] as const;
export const DIAL_STATUSES = ['answered', 'busy', 'no_answer', 'failed'] as const;
export const ANSWERED_BY_VALUES = ['human', 'voicemail', 'unknown'] as const;
export const DIRECTIONS = ['inbound', 'outbound'] as const;

/** The webhook's session object (names differ from the sessions API: `id`, not `session_id`). */
export interface WebhookSession extends Extensible {
  id: string;
  end_user_id?: string | null;
  /** Echoed exactly as set at session creation. */
  metadata?: Record<string, unknown> | null;
  /** Internal configuration lineage; ignore it. */
  branch_id?: string | null;
  direction?: Direction | null;
  /** Reserved, always null. */
  batch_call_id?: string | null;
  dial_status?: DialStatus | null;
  /** @deprecated `unknown` once answered, null before; older events may hold human or voicemail. */
  answered_by?: AnsweredBy | null;
  conversation_ended_at?: string | null;
  duration_seconds?: number | null;
  end_reason?: EndReason | null;
}

export interface WebhookAnalysis extends Extensible {
  /** The completed result's status, `skipped` or `error`. */
  status?: KnownOrString<'skipped' | 'error'>;
  /** When the analysis settled; a newer one supersedes an older one for the same session. */
  finished_at?: string | null;
  /** Cause when status is `error` (shape not shown in the spec). */
  error?: unknown;
  summary?: string | null;
  data?: Extensible[];
  criteria_results?: Extensible[];
}

export interface CallEndedPayload extends Extensible {
  event: 'call.ended';
  session: WebhookSession;
  /** Null while the reason is not settled. */
  ended_reason: EndReason | null;
}
export interface CallAnalyzedPayload extends Extensible {
  event: 'call.analyzed';
  session: WebhookSession;
  analysis: WebhookAnalysis;
}
export interface DialFinishedPayload extends Extensible {
  event: 'phone_call.dial_finished';
  session: WebhookSession;
  dial_status: DialStatus | null;
  /** @deprecated see {@link WebhookSession.answered_by} */
  answered_by?: AnsweredBy | null;
}
export interface UnknownWebhookPayload extends Extensible {
  event: string;
  session?: Partial<WebhookSession>;
}

interface Base {
  /** The session id (`session.id`), when present. */
  sessionId: string | undefined;
  /**
   * Values this version does not recognize, as `path=value` (e.g. `ended_reason="new_reason"`).
   * Informational: the event is still valid.
   */
  unrecognized: string[];
}

/** Discriminate on `type`; `event` is the wire name (equal to `type` for known events). */
export type WebhookEvent =
  | (Base & { type: 'call.ended'; event: 'call.ended'; known: true; payload: CallEndedPayload })
  | (Base & { type: 'call.analyzed'; event: 'call.analyzed'; known: true; payload: CallAnalyzedPayload })
  | (Base & { type: 'phone_call.dial_finished'; event: 'phone_call.dial_finished'; known: true; payload: DialFinishedPayload })
  | (Base & { type: 'unknown'; event: string; known: false; payload: UnknownWebhookPayload });

function bad(message: string, field?: string): VoicewireError {
  return new VoicewireError('WEBHOOK_BAD_PAYLOAD', message, field === undefined ? {} : { field });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function flagEnum(out: string[], path: string, value: unknown, known: readonly string[]): void {
  if (value === null || value === undefined) return;
  if (typeof value !== 'string' || !known.includes(value)) out.push(`${path}=${JSON.stringify(value)}`);
}

function checkType(obj: Record<string, unknown>, key: string, path: string, type: 'string' | 'number' | 'object'): void {
  const v = obj[key];
  if (v === undefined || v === null) return;
  const ok = type === 'object' ? isObject(v) : typeof v === type;
  if (!ok) throw bad(`${path} must be a ${type} or null`, path);
}

/** Parses the JSON text; a parsed object is accepted too (after signature verification). */
function toObject(rawBody: unknown): Record<string, unknown> {
  let value: unknown = rawBody;
  if (typeof rawBody === 'string' || rawBody instanceof Uint8Array) {
    const text =
      typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8');
    try {
      value = JSON.parse(text);
    } catch {
      throw bad('Webhook body is not valid JSON');
    }
  }
  if (!isObject(value)) throw bad('Webhook body must be a JSON object');
  return value;
}

/**
 * Parses a post-call webhook body (verify the signature first).
 *
 * @example
 * const ev = parseWebhookEvent(rawBody);
 * if (ev.type === 'call.ended') console.log(ev.payload.ended_reason);
 */
export function parseWebhookEvent(rawBody: Buffer | Uint8Array | string | Record<string, unknown>): WebhookEvent {
  const body = toObject(rawBody);
  const event = body['event'];
  if (typeof event !== 'string' || event.length === 0) throw bad('Webhook body has no string `event`', 'event');
  const unrecognized: string[] = [];
  const session = body['session'];
  const known = (KNOWN_WEBHOOK_EVENTS as readonly string[]).includes(event);
  if (!known) {
    if (session !== undefined && session !== null && !isObject(session)) throw bad('session must be an object', 'session');
    const sid = isObject(session) && typeof session['id'] === 'string' ? session['id'] : undefined;
    return {
      type: 'unknown',
      event,
      known: false,
      payload: body as UnknownWebhookPayload,
      sessionId: sid,
      unrecognized: [`event=${JSON.stringify(event)}`],
    };
  }
  if (!isObject(session)) throw bad(`${event}: session must be an object`, 'session');
  if (typeof session['id'] !== 'string' || session['id'].length === 0)
    throw bad(`${event}: session.id must be a non-empty string`, 'session.id');
  for (const key of ['end_user_id', 'branch_id', 'conversation_ended_at'] as const) checkType(session, key, `session.${key}`, 'string');
  checkType(session, 'metadata', 'session.metadata', 'object');
  checkType(session, 'duration_seconds', 'session.duration_seconds', 'number');
  flagEnum(unrecognized, 'session.direction', session['direction'], DIRECTIONS);
  flagEnum(unrecognized, 'session.dial_status', session['dial_status'], DIAL_STATUSES);
  flagEnum(unrecognized, 'session.answered_by', session['answered_by'], ANSWERED_BY_VALUES);
  flagEnum(unrecognized, 'session.end_reason', session['end_reason'], CALL_ENDED_REASONS);
  const sessionId = session['id'];

  if (event === CALL_ENDED) {
    const reason = body['ended_reason'];
    flagEnum(unrecognized, 'ended_reason', reason, CALL_ENDED_REASONS);
    const payload = { ...body, ended_reason: reason ?? null } as CallEndedPayload;
    return { type: CALL_ENDED, event: CALL_ENDED, known: true, payload, sessionId, unrecognized };
  }
  if (event === CALL_ANALYZED) {
    const analysis = body['analysis'];
    if (!isObject(analysis)) throw bad('call.analyzed: analysis must be an object', 'analysis');
    checkType(analysis, 'finished_at', 'analysis.finished_at', 'string');
    flagEnum(unrecognized, 'analysis.status', analysis['status'], ['completed', 'skipped', 'error']);
    return { type: CALL_ANALYZED, event: CALL_ANALYZED, known: true, payload: body as CallAnalyzedPayload, sessionId, unrecognized };
  }
  flagEnum(unrecognized, 'dial_status', body['dial_status'], DIAL_STATUSES);
  flagEnum(unrecognized, 'answered_by', body['answered_by'], ANSWERED_BY_VALUES);
  const payload = { ...body, dial_status: body['dial_status'] ?? null } as DialFinishedPayload;
  return { type: DIAL_FINISHED, event: DIAL_FINISHED, known: true, payload, sessionId, unrecognized };
}
