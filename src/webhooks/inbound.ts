/**
 * The inbound-call webhook (`conversation_init`): the service asks your endpoint for dynamic
 * variables before the agent answers an inbound phone call.
 *
 * The endpoint may personalize a call but must never block one, so this helper always answers
 * 200 with a valid `dynamic_variables` object once the request is accepted: invalid entries your
 * handler returns are dropped with a warning, and a handler that throws or takes longer than
 * `handlerTimeoutMs` yields an empty set (the call then goes on without variables).
 * A bad signature is still refused (400/401), when a secret is configured.
 *
 * @see docs/service-interface.md#inbound-call-webhook
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InvalidOptionError, VoicewireError } from '../errors.js';
import type { DynamicVariableWarning } from '../protocol/dynamicVariables.js';
import { dynamicVariablesToObject, validateDynamicVariables } from '../protocol/dynamicVariables.js';
import {
  HTTP_BAD_REQUEST,
  HTTP_OK,
  acceptPostBody,
  bodyBuffer,
  getHeader,
  jsonResponse,
  refuseUnverified,
  send,
  type HeadersLike,
  type WebhookResponse,
} from './httpUtil.js';
import { DEFAULT_SIGNATURE_HEADER } from '../protocol/webhookSignature.js';

/** The event label of the inbound-call request. */
export const CALL_INBOUND = 'call.inbound';
/** The service waits 5 s by default; answering a little before keeps us inside it. */
export const DEFAULT_HANDLER_TIMEOUT_MS = 4_500;
/** The inbound request is a few fields; anything bigger is refused. */
const MAX_INBOUND_BODY_BYTES = 64 * 1024;

export interface ConversationInitRequest {
  [field: string]: unknown;
  /** `call.inbound` (other request fields are not shown in the spec and are kept). */
  event?: string;
  /** E.164; empty when the carrier withholds the number. */
  caller_number: string;
  /** E.164. */
  dialed_number: string;
  /** Empty when the call did not come through a carrier-provided number. */
  carrier_call_sid: string;
}

/** What your handler returns: the variables (object or Map), or `undefined` for none. */
export type ConversationInitAnswer = { dynamic_variables?: Record<string, unknown> | Map<string, unknown> } | undefined | void;

export interface ConversationInitOptions {
  /** When set, requests are verified (same scheme as post-call webhooks). */
  secret?: string | readonly string[];
  /** @defaultValue `'X-Fish-Webhook-Signature'` */
  headerName?: string;
  /** @defaultValue 300 */
  toleranceSeconds?: number;
  /** Clock in ms. @defaultValue Date.now */
  now?: () => number;
  onCall: (request: ConversationInitRequest) => ConversationInitAnswer | Promise<ConversationInitAnswer>;
  /** A dropped variable. @defaultValue ignore */
  onWarning?: (warning: DynamicVariableWarning) => void;
  /** A refused request, a handler failure or timeout. @defaultValue ignore */
  onError?: (error: unknown) => void;
  /** @defaultValue 4500 */
  handlerTimeoutMs?: number;
}

export interface ConversationInitReceiver {
  handle(headers: HeadersLike, rawBody: Buffer | Uint8Array | string): Promise<WebhookResponse>;
  nodeHandler(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new VoicewireError(
            'WEBHOOK_HANDLER_TIMEOUT',
            `conversation_init handler took longer than ${ms} ms; answered with no dynamic variables`,
            { field: 'handlerTimeoutMs' },
          ),
        ),
      ms,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * @example
 * const init = createConversationInitReceiver({
 *   secret: process.env.INIT_SECRET,
 *   onCall: async ({ caller_number }) => ({ dynamic_variables: { customer_name: await lookup(caller_number) } }),
 * });
 */
export function createConversationInitReceiver(options: ConversationInitOptions): ConversationInitReceiver {
  if (typeof options.onCall !== 'function') throw new InvalidOptionError('onCall', 'onCall must be a function');
  const headerName = options.headerName ?? DEFAULT_SIGNATURE_HEADER;
  const now = options.now ?? Date.now;
  const onError = options.onError ?? (() => undefined);
  const timeoutMs = options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS;

  async function handle(headers: HeadersLike, rawBody: Buffer | Uint8Array | string): Promise<WebhookResponse> {
    const body = bodyBuffer(rawBody);
    if (options.secret !== undefined) {
      const refusal = refuseUnverified(
        body,
        getHeader(headers, headerName),
        { secret: options.secret, now, toleranceSeconds: options.toleranceSeconds },
        onError,
      );
      if (refusal !== null) return refusal;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      onError(new VoicewireError('WEBHOOK_BAD_PAYLOAD', 'conversation_init body is not a JSON object', { field: 'body' }));
      return jsonResponse(HTTP_BAD_REQUEST, { error: 'body must be a JSON object' });
    }
    const rec = parsed as Record<string, unknown>;
    const request: ConversationInitRequest = {
      ...rec,
      caller_number: str(rec['caller_number']),
      dialed_number: str(rec['dialed_number']),
      carrier_call_sid: str(rec['carrier_call_sid']),
    };
    let answer: ConversationInitAnswer;
    try {
      answer = await withTimeout(
        Promise.resolve().then(() => options.onCall(request)),
        timeoutMs,
      );
    } catch (e) {
      onError(e);
      answer = undefined; // never block the call: answer with no variables
    }
    const { variables } = validateDynamicVariables(answer?.dynamic_variables, {
      ...(options.onWarning ? { onWarning: options.onWarning } : {}),
    });
    return jsonResponse(HTTP_OK, { dynamic_variables: dynamicVariablesToObject(variables) });
  }

  async function nodeHandler(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await acceptPostBody(req, res, MAX_INBOUND_BODY_BYTES, onError);
    if (raw === null) return;
    send(res, await handle(req.headers, raw));
  }

  return { handle, nodeHandler };
}
