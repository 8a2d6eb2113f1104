/**
 * Post-call analysis with simple, documented, deterministic rules, so tests and receivers can
 * predict every outcome. Only the caller's words (`role: "user"` messages) are analysed.
 *
 * - **skipped**: the caller never spoke, or analysis is disabled (no `analysis` section, or the
 *   summary is not enabled and there are no data fields and no criteria).
 * - **error**: the run failed (the simulation asked for it, `analysis_error`); `error` holds the cause.
 * - **completed**:
 *   - `summary` (when `summary.enabled`): `The caller spoke N time(s) (W words); the agent spoke M
 *     time(s); T tool call(s).` It never quotes the conversation (webhooks carry no transcript).
 *   - data field of type `boolean`: true when a keyword of its name (split on `_`) is said;
 *     `number`: the first number said; `text` with `enum_options`: the first option said
 *     (case-insensitive), else null; other types: the first caller sentence holding a keyword of
 *     the name, else null.
 *   - criterion: `success` when every keyword of its name is said, `failure` when none is,
 *     `unknown` otherwise. Keywords are the name's `_`/space-separated words of 3+ letters.
 *
 * @see docs/service-interface.md#post-call-analysis and #post-call-webhook-events (rule 9)
 */
import { isObject } from './agentConfig.js';
import type { AnalysisResult, JsonObject, SessionItem } from './types.js';

/** Shortest word treated as a keyword of a field or criterion name. */
const MIN_KEYWORD_LENGTH = 3;

function keywords(name: string): string[] {
  return name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= MIN_KEYWORD_LENGTH);
}

function says(text: string, word: string): boolean {
  return new RegExp(`\\b${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'i').test(text);
}

/** Whether the agent's config turns analysis on. */
export function analysisEnabled(config: JsonObject): boolean {
  const analysis = config['analysis'];
  if (!isObject(analysis)) return false;
  const summary = analysis['summary'];
  const fields = analysis['data_fields'];
  const criteria = analysis['criteria'];
  return (
    (isObject(summary) && summary['enabled'] === true) ||
    (Array.isArray(fields) && fields.length > 0) ||
    (Array.isArray(criteria) && criteria.length > 0)
  );
}

/** A JSON value as text: strings as they are, absent as '', anything else as JSON (never '[object Object]'). */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

function dataField(field: JsonObject, said: string[]): JsonObject {
  const name = text(field['name']);
  const type = typeof field['type'] === 'string' ? field['type'] : 'text';
  const all = said.join('\n');
  const words = keywords(name);
  let value: unknown = null;
  let rationale: string;
  if (type === 'boolean') {
    value = words.some((w) => says(all, w));
    rationale = value ? `the caller mentioned "${name}"` : `the caller never mentioned "${name}"`;
  } else if (type === 'number' || type === 'integer') {
    const m = /-?\d+(?:\.\d+)?/.exec(all);
    value = m ? Number(m[0]) : null;
    rationale = m ? 'first number the caller said' : 'the caller said no number';
  } else if (Array.isArray(field['enum_options']) && field['enum_options'].length > 0) {
    const options = field['enum_options'].filter((o): o is string => typeof o === 'string');
    const option = options.find((o) => says(all, o)) ?? null;
    value = option;
    rationale = option === null ? 'the caller named no option' : `the caller said "${option}"`;
  } else {
    const sentences = said.flatMap((t) => t.split(/(?<=[.!?])\s+/));
    value = sentences.find((s) => words.some((w) => says(s, w))) ?? null;
    rationale = value === null ? `nothing the caller said mentions "${name}"` : `the caller's sentence mentioning "${name}"`;
  }
  return { name, type, value, rationale };
}

function criterion(c: JsonObject, said: string[]): JsonObject {
  const name = text(c['name']);
  const words = keywords(name);
  const all = said.join('\n');
  const hits = words.filter((w) => says(all, w));
  const result = words.length === 0 ? 'unknown' : hits.length === words.length ? 'success' : hits.length === 0 ? 'failure' : 'unknown';
  return { name, result, rationale: `${hits.length} of ${words.length} keyword(s) of "${name}" said by the caller` };
}

/**
 * Runs the analysis of a finished call. `failure` (a cause) makes the run end in `error`.
 */
export function analyzeCall(config: JsonObject, items: readonly SessionItem[], finishedAt: string, failure: string | null): AnalysisResult {
  const said = items.filter((i) => i.type === 'message' && i['role'] === 'user').map((i) => text(i['content']));
  const empty = (status: AnalysisResult['status'], error: string | null): AnalysisResult => ({
    status,
    finished_at: finishedAt,
    error,
    summary: null,
    data: [],
    criteria_results: [],
  });
  if (!analysisEnabled(config) || said.length === 0) return empty('skipped', null);
  if (failure !== null) return empty('error', failure);
  const analysis = config['analysis'] as JsonObject;
  const summaryCfg = analysis['summary'];
  const words = said.reduce((n, t) => n + t.split(/\s+/).filter(Boolean).length, 0);
  const agentTurns = items.filter((i) => i.type === 'message' && i['role'] !== 'user').length;
  const toolCalls = items.filter((i) => i.type === 'tool_call').length;
  const summary =
    isObject(summaryCfg) && summaryCfg['enabled'] === true
      ? `The caller spoke ${said.length} time(s) (${words} words); the agent spoke ${agentTurns} time(s); ${toolCalls} tool call(s).`
      : null;
  const fields = Array.isArray(analysis['data_fields']) ? analysis['data_fields'].filter(isObject) : [];
  const criteria = Array.isArray(analysis['criteria']) ? analysis['criteria'].filter(isObject) : [];
  return {
    status: 'completed',
    finished_at: finishedAt,
    error: null,
    summary,
    data: fields.map((f) => dataField(f, said)),
    criteria_results: criteria.map((c) => criterion(c, said)),
  };
}
