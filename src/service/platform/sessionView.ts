/**
 * Wire rendering of sessions (the sessions API names: `session_id`, `started_at`, `ended_at`).
 *
 * @see docs/service-interface.md#sessions
 */
import { formatMicros } from './money.js';
import type { JsonObject, SessionRecord } from './types.js';

/** The public trim of the analysis: outcomes only, no model or configuration internals. */
function analysisView(s: SessionRecord): JsonObject | null {
  const a = s.analysis;
  if (a === null) return null;
  return {
    status: a.status,
    finished_at: a.finished_at,
    error: a.error,
    summary: a.summary,
    data: a.data,
    criteria_results: a.criteria_results,
  };
}

/** A session without its timeline, as listed. */
export function sessionSummary(s: SessionRecord): JsonObject {
  return {
    session_id: s.sessionId,
    agent_id: s.agentId,
    agent_name: s.agentName,
    status: s.status,
    source: s.source,
    created_at: s.createdAt,
    name: s.name,
    end_reason: s.endReason,
    direction: s.direction,
    dial_status: s.dialStatus,
    answered_by: s.answeredBy,
    caller_number: s.callerNumber,
    dialed_number: s.dialedNumber,
    timezone: s.timezone,
    started_at: s.startedAt,
    ended_at: s.endedAt,
    duration_seconds: s.durationSeconds,
    end_user_id: s.endUserId,
    metadata: s.metadata,
    preview: s.preview,
    version: s.version?.version ?? null,
    analysis: analysisView(s),
  };
}

/** The full detail: timeline in order, usage with decimal-string costs, analysis outcome. */
export function sessionDetail(s: SessionRecord): JsonObject {
  const total = s.costMicros.llm + s.costMicros.tts;
  return {
    ...sessionSummary(s),
    dynamic_variables: Object.fromEntries(s.dynamicVariables),
    unattributed_llm_usage: s.unattributedUsage,
    items: s.items,
    usage: {
      cost_usd: formatMicros(total),
      llm_cost_usd: formatMicros(s.costMicros.llm),
      tts_cost_usd: formatMicros(s.costMicros.tts),
      tts_characters: s.tts.characters,
      tts_audio_seconds: s.tts.audioSeconds,
    },
  };
}
