/**
 * The body of the simulation endpoint, validated into a typed plan.
 *
 * ```jsonc
 * {
 *   "direction": "outbound",          // "inbound" | "outbound" | "web"; default "outbound"
 *   "preview": false,                 // builder preview: draft config, no webhooks, no conversation_init
 *   "dial_status": "answered",        // outbound: "answered" | "busy" | "no_answer" | "failed"
 *   "connected": true,                // false: nobody ever joined (inbound/web; end_reason room_join_timeout | cancelled)
 *   "caller_number": "+15550001111", "dialed_number": "+15550002222", "carrier_call_sid": "CA123",
 *   "end_user_id": "u-1", "metadata": {}, "dynamic_variables": {},   // agent-scoped only
 *   "turns": [ {"user": "Hi"}, {"agent": "Hello!"}, {"tool": "lookup", "arguments": {}, "result": {}, "is_error": false} ],
 *   "end_reason": "user_hangup",      // default user_hangup (agent_hangup after a hang_up_call tool)
 *   "duration_seconds": 42,           // default: spoken audio + caller speech estimate
 *   "analysis_error": "cause",        // makes the analysis settle to `error`
 *   "wait_for_deliveries": false      // answer only after every webhook delivery settled
 * }
 * ```
 */
import { isObject } from './agentConfig.js';
import { badRequest, PlatformHttpError } from './http.js';
import { assertStorableJson } from './storableJson.js';
import { CONNECTED_END_REASONS, NEVER_CONNECTED_END_REASONS, type DialStatus, type JsonObject } from './types.js';

export type SimulatedTurn =
  | { kind: 'user'; text: string }
  | { kind: 'agent'; text: string }
  | { kind: 'tool'; name: string; arguments: unknown; result: unknown; isError: boolean };

export interface SimulationPlan {
  direction: 'inbound' | 'outbound' | 'web';
  preview: boolean;
  dialStatus: DialStatus;
  connected: boolean;
  callerNumber: string;
  dialedNumber: string;
  /** null: a carrier call sid is made up for inbound calls. */
  carrierCallSid: string | null;
  turns: SimulatedTurn[];
  endReason: string | null;
  durationSeconds: number | null;
  analysisError: string | null;
  waitForDeliveries: boolean;
}

/** Default numbers of a simulated phone call. */
export const SIM_CALLER_NUMBER = '+15550100001';
export const SIM_AGENT_NUMBER = '+15550100002';
const DIAL_STATUSES: readonly string[] = ['answered', 'busy', 'no_answer', 'failed'];
const MAX_TURNS = 500;
/**
 * Characters the agent's turns of one simulation may hold in all. Each is synthesized for real
 * (seconds of CPU per thousand characters), so the 1 MiB body alone would let one request keep
 * the speech engine busy for many minutes. The opening message comes from the agent's config and
 * is bounded by the speech endpoint's own text limit.
 */
export const MAX_SIMULATION_SPEECH_CHARS = 50_000;

function str(body: JsonObject, field: string, fallback: string): string {
  const v = body[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'string') throw badRequest('invalid_request', `${field} must be a string`);
  return v;
}

function bool(body: JsonObject, field: string, fallback: boolean): boolean {
  const v = body[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean') throw badRequest('invalid_request', `${field} must be a boolean`);
  return v;
}

function turn(raw: unknown, i: number): SimulatedTurn {
  const where = `turns[${i}]`;
  if (!isObject(raw)) throw badRequest('invalid_request', `${where} must be an object`);
  if (typeof raw['user'] === 'string') return { kind: 'user', text: raw['user'] };
  if (typeof raw['agent'] === 'string') return { kind: 'agent', text: raw['agent'] };
  if (typeof raw['tool'] === 'string') {
    if (raw['is_error'] !== undefined && typeof raw['is_error'] !== 'boolean')
      throw badRequest('invalid_request', `${where}.is_error must be a boolean`);
    // Both are kept in the session's timeline.
    assertStorableJson(raw['arguments'], `${where}.arguments`);
    assertStorableJson(raw['result'], `${where}.result`);
    return {
      kind: 'tool',
      name: raw['tool'],
      arguments: raw['arguments'] ?? {},
      result: raw['result'] ?? null,
      isError: raw['is_error'] === true,
    };
  }
  throw badRequest('invalid_request', `${where} must hold "user", "agent" or "tool"`);
}

export function parseSimulation(body: JsonObject, sessionScoped: boolean): SimulationPlan {
  const direction = str(body, 'direction', 'outbound');
  if (direction !== 'inbound' && direction !== 'outbound' && direction !== 'web') {
    throw badRequest('invalid_request', 'direction must be "inbound", "outbound" or "web"');
  }
  const preview = bool(body, 'preview', false);
  if (preview && sessionScoped) throw badRequest('invalid_request', 'preview calls are started on the agent, not on a created session');
  const dialStatus = str(body, 'dial_status', 'answered');
  if (!DIAL_STATUSES.includes(dialStatus)) throw badRequest('invalid_request', `dial_status must be one of ${DIAL_STATUSES.join(', ')}`);
  if (direction !== 'outbound' && body['dial_status'] !== undefined)
    throw badRequest('invalid_request', 'dial_status applies to outbound calls only');
  const connected = bool(body, 'connected', true);
  if (!connected && direction === 'outbound')
    throw badRequest('invalid_request', 'an outbound call that never connects is a dial_status other than answered');
  const endReason = body['end_reason'] === undefined || body['end_reason'] === null ? null : str(body, 'end_reason', '');
  const allowed: readonly string[] = connected ? CONNECTED_END_REASONS : NEVER_CONNECTED_END_REASONS.filter((r) => r !== 'dial_failed');
  if (endReason !== null && !allowed.includes(endReason)) {
    throw badRequest(
      'invalid_request',
      `end_reason must be one of ${allowed.join(', ')} for a ${connected ? 'connected' : 'never-connected'} call`,
    );
  }
  const rawTurns = body['turns'] ?? [];
  if (!Array.isArray(rawTurns) || rawTurns.length > MAX_TURNS)
    throw badRequest('invalid_request', `turns must be an array of at most ${MAX_TURNS}`);
  const turns = rawTurns.map(turn);
  const spoken = turns.reduce((n, t) => n + (t.kind === 'agent' ? t.text.length : 0), 0);
  if (spoken > MAX_SIMULATION_SPEECH_CHARS) {
    throw new PlatformHttpError(
      413,
      'simulation_too_long',
      `the agent turns hold ${spoken} characters to speak, over the limit of ${MAX_SIMULATION_SPEECH_CHARS} per simulation`,
    );
  }
  const duration = body['duration_seconds'];
  if (duration !== undefined && duration !== null && (!Number.isSafeInteger(duration) || (duration as number) < 0)) {
    throw badRequest('invalid_request', 'duration_seconds must be a non-negative integer');
  }
  const analysisError = body['analysis_error'] === undefined || body['analysis_error'] === null ? null : str(body, 'analysis_error', '');
  return {
    direction,
    preview,
    dialStatus: dialStatus as DialStatus,
    connected,
    callerNumber: str(body, 'caller_number', SIM_CALLER_NUMBER),
    dialedNumber: str(body, 'dialed_number', SIM_AGENT_NUMBER),
    carrierCallSid: body['carrier_call_sid'] === undefined ? null : str(body, 'carrier_call_sid', ''),
    turns,
    endReason,
    durationSeconds: (duration as number | undefined) ?? null,
    analysisError,
    waitForDeliveries: bool(body, 'wait_for_deliveries', false),
  };
}
