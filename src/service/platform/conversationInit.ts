/**
 * The inbound-call webhook: before the agent answers an inbound phone call, POST `call.inbound`
 * to `webhooks.conversation_init` (signed like post-call webhooks when a secret is set) and read
 * `dynamic_variables` from the answer. It personalises a call but never blocks one: on a
 * non-2xx answer, a network error, an invalid body or a timeout the call goes on without
 * variables.
 *
 * @see docs/service-interface.md#inbound-call-webhook (timeout default 5 s)
 */
import { signWebhookPayload } from '../../protocol/webhookSignature.js';
import type { ResolvedPlatformOptions } from './options.js';
import { postBytes } from './postJson.js';
import type { WebhookEndpoint } from './types.js';
import { readDynamicVariables, type DynamicVariables } from './variables.js';

export const EVENT_CALL_INBOUND = 'call.inbound';

export interface InboundCallInfo {
  agentId: string;
  callerNumber: string;
  dialedNumber: string;
  carrierCallSid: string;
}

export type ConversationInitOutcome = 'ok' | 'timeout' | 'http_error' | 'network_error' | 'invalid_body';

export interface ConversationInitResult {
  outcome: ConversationInitOutcome;
  status: number | null;
  variables: DynamicVariables;
  /** Why entries (or the whole answer) were ignored. */
  warnings: string[];
}

export async function callConversationInit(
  endpoint: WebhookEndpoint & { timeoutSeconds?: number },
  call: InboundCallInfo,
  options: ResolvedPlatformOptions,
): Promise<ConversationInitResult> {
  const body = Buffer.from(
    JSON.stringify({
      event: EVENT_CALL_INBOUND,
      agent_id: call.agentId,
      caller_number: call.callerNumber,
      dialed_number: call.dialedNumber,
      carrier_call_sid: call.carrierCallSid,
    }),
    'utf8',
  );
  const headers: Record<string, string> = {};
  if (endpoint.secret !== undefined) {
    headers[options.signatureHeader] = signWebhookPayload({
      payload: body,
      secret: endpoint.secret,
      timestamp: Math.floor(options.now() / 1000),
    });
  }
  const timeoutMs = options.initTimeoutMs(endpoint.timeoutSeconds ?? options.initDefaultTimeoutSeconds);
  const answer = await postBytes({ url: endpoint.url, body, headers, timeoutMs });
  const none = (outcome: ConversationInitOutcome, status: number | null, warning: string): ConversationInitResult => ({
    outcome,
    status,
    variables: new Map(),
    warnings: [warning],
  });
  if (answer.kind === 'timeout') return none('timeout', null, `no answer within ${timeoutMs} ms`);
  if (answer.kind === 'network') return none('network_error', null, answer.message);
  if (answer.status < 200 || answer.status > 299) return none('http_error', answer.status, `answered ${answer.status}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return none('invalid_body', answer.status, 'answer is not JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return none('invalid_body', answer.status, 'answer is not a JSON object');
  }
  const raw = (parsed as Record<string, unknown>)['dynamic_variables'];
  if (raw === undefined || raw === null) return { outcome: 'ok', status: answer.status, variables: new Map(), warnings: [] };
  const read = readDynamicVariables(raw);
  if (read === null) return none('invalid_body', answer.status, 'dynamic_variables is not an object');
  return { outcome: 'ok', status: answer.status, variables: read.variables, warnings: read.warnings.map((w) => w.message) };
}
