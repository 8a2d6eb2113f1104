/**
 * Payloads of the post-call webhook events. The session object uses the webhook names (`id`,
 * `conversation_ended_at`), carries the fields the spec names and never a transcript.
 *
 * @see docs/service-interface.md#post-call-webhook-events, rules 1–10
 */
import type { AnalysisResult, SessionRecord } from './types.js';

export const EVENT_DIAL_FINISHED = 'phone_call.dial_finished';
export const EVENT_CALL_ENDED = 'call.ended';
export const EVENT_CALL_ANALYZED = 'call.analyzed';

export interface WebhookSessionObject {
  id: string;
  agent_id: string;
  end_user_id: string | null;
  metadata: unknown;
  branch_id: string | null;
  direction: string | null;
  batch_call_id: null;
  dial_status: string | null;
  answered_by: string | null;
  conversation_ended_at: string | null;
  duration_seconds: number | null;
  end_reason: string | null;
}

/** The webhook session snapshot. Dial fields are null for inbound (and web) sessions. */
export function webhookSession(s: SessionRecord, at: 'dial' | 'end'): WebhookSessionObject {
  const outbound = s.direction === 'outbound';
  const ended = at === 'end';
  return {
    id: s.sessionId,
    agent_id: s.agentId,
    end_user_id: s.endUserId,
    metadata: s.metadata,
    branch_id: s.version?.branchId ?? null,
    direction: s.direction,
    batch_call_id: null,
    dial_status: outbound ? s.dialStatus : null,
    answered_by: outbound ? s.answeredBy : null,
    // Rule 6: the dial_finished snapshot has no final numbers yet. Never-connected reasons
    // (dial_failed …) are visible only by session retrieval or listing (Errors, rule 6).
    conversation_ended_at: ended ? s.endedAt : null,
    duration_seconds: ended ? s.durationSeconds : null,
    end_reason: ended ? s.endReason : null,
  };
}

export function dialFinishedPayload(s: SessionRecord): Record<string, unknown> {
  const session = webhookSession(s, 'dial');
  return { event: EVENT_DIAL_FINISHED, session, dial_status: session.dial_status, answered_by: session.answered_by };
}

export function callEndedPayload(s: SessionRecord): Record<string, unknown> {
  const session = webhookSession(s, 'end');
  return { event: EVENT_CALL_ENDED, session, ended_reason: session.end_reason };
}

/** Rule 9: with skipped or error, summary is null and data and criteria_results are empty. */
export function callAnalyzedPayload(s: SessionRecord, analysis: AnalysisResult): Record<string, unknown> {
  const settledOk = analysis.status === 'completed';
  return {
    event: EVENT_CALL_ANALYZED,
    session: webhookSession(s, 'end'),
    analysis: {
      status: analysis.status,
      finished_at: analysis.finished_at,
      error: analysis.status === 'error' ? analysis.error : null,
      summary: settledOk ? analysis.summary : null,
      data: settledOk ? analysis.data : [],
      criteria_results: settledOk ? analysis.criteria_results : [],
    },
  };
}
