/**
 * A post-call webhook receiver: raw body → verify → parse → dedupe → your handler.
 *
 * Answers (the sender retries a failed attempt; a 2xx ends the delivery):
 * | situation                                   | status |
 * |---------------------------------------------|--------|
 * | handled, duplicate, or stale `call.analyzed` | 200    |
 * | malformed signature header or body           | 400    |
 * | signature mismatch or timestamp out of range | 401    |
 * | body too large                                | 413    |
 * | a retry racing an attempt still in progress  | 409    |
 * | your handler threw (claim released)          | 500    |
 * | the dedup store failed                        | 503    |
 *
 * Use {@link WebhookReceiver.handle} from any framework with `(headers, rawBody)`, or
 * {@link WebhookReceiver.nodeHandler} with `node:http`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InvalidOptionError, VoicewireError } from '../errors.js';
import type { DedupStore } from './dedup.js';
import { dedupKeyOf, runOnce } from './dedup.js';
import { parseWebhookEvent, type WebhookEvent } from './events.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  HTTP_BAD_REQUEST,
  HTTP_CONFLICT,
  HTTP_INTERNAL_ERROR,
  HTTP_OK,
  HTTP_PAYLOAD_TOO_LARGE,
  HTTP_UNAVAILABLE,
  bodyBuffer,
  getHeader,
  jsonResponse,
  acceptPostBody,
  refuseUnverified,
  send,
  type HeadersLike,
  type WebhookResponse,
} from './httpUtil.js';
import { MemoryDedupStore } from './MemoryDedupStore.js';
import { DEFAULT_SIGNATURE_HEADER } from '../protocol/webhookSignature.js';

export interface WebhookContext {
  /** The raw body that was verified. */
  rawBody: Buffer;
  /** The request headers. */
  headers: HeadersLike;
}

export interface WebhookReceiverOptions {
  /**
   * The endpoint's secret (or several during a rotation). Required unless `allowUnsigned` is
   * set: the spec signs a delivery only when its post_call entry has a secret.
   */
  secret?: string | readonly string[];
  /** Accept deliveries without verification (an entry configured with no secret). @defaultValue false */
  allowUnsigned?: boolean;
  /** @defaultValue `'X-Fish-Webhook-Signature'` */
  headerName?: string;
  /** @defaultValue 300 */
  toleranceSeconds?: number;
  /** Receiver's clock in ms, for the signature timestamp. @defaultValue Date.now */
  now?: () => number;
  /** Where deliveries are deduplicated. @defaultValue a new `MemoryDedupStore()` */
  store?: DedupStore;
  /** Your handler. Throw (or reject) to have the delivery retried. */
  onEvent: (event: WebhookEvent, context: WebhookContext) => unknown;
  /** Told about handler failures, store failures and refused requests (never a secret). */
  onError?: (error: unknown, event?: WebhookEvent) => void;
  /** @defaultValue 1 MiB */
  maxBodyBytes?: number;
}

export interface WebhookReceiver {
  /** Framework-agnostic: give the request headers and the raw body bytes. */
  handle(headers: HeadersLike, rawBody: Buffer | Uint8Array | string): Promise<WebhookResponse>;
  /** A `node:http` request listener (POST only). */
  nodeHandler(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/**
 * @example
 * const receiver = createWebhookReceiver({
 *   secret: process.env.WEBHOOK_SECRET!,
 *   onEvent: async (ev) => { if (ev.type === 'call.ended') await saveCall(ev.payload); },
 * });
 * http.createServer(receiver.nodeHandler).listen(3000);
 */
export function createWebhookReceiver(options: WebhookReceiverOptions): WebhookReceiver {
  if (options.secret === undefined && !options.allowUnsigned) {
    throw new InvalidOptionError(
      'secret',
      'createWebhookReceiver needs a secret (or allowUnsigned: true for endpoints configured without one)',
    );
  }
  if (typeof options.onEvent !== 'function') throw new InvalidOptionError('onEvent', 'onEvent must be a function');
  const headerName = options.headerName ?? DEFAULT_SIGNATURE_HEADER;
  const store = options.store ?? new MemoryDedupStore();
  const now = options.now ?? Date.now;
  const onError = options.onError ?? (() => undefined);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  async function handle(headers: HeadersLike, rawBody: Buffer | Uint8Array | string): Promise<WebhookResponse> {
    const body = bodyBuffer(rawBody);
    if (body.length > maxBodyBytes) return jsonResponse(HTTP_PAYLOAD_TOO_LARGE, { error: 'body too large' });
    const header = getHeader(headers, headerName);
    if (options.secret !== undefined && !(options.allowUnsigned && header === undefined)) {
      const refusal = refuseUnverified(body, header, { secret: options.secret, now, toleranceSeconds: options.toleranceSeconds }, onError);
      if (refusal !== null) return refusal;
    }
    let event: WebhookEvent;
    try {
      event = parseWebhookEvent(body);
    } catch (e) {
      onError(e);
      return jsonResponse(HTTP_BAD_REQUEST, { error: e instanceof VoicewireError ? e.message : 'bad payload' });
    }
    const context: WebhookContext = { rawBody: body, headers };
    const key = dedupKeyOf(event);
    if (key === undefined) {
      // Nothing to key on (an unknown event without a session id): handle it, undeduplicated.
      try {
        await options.onEvent(event, context);
        return jsonResponse(HTTP_OK, { status: 'handled' });
      } catch (e) {
        onError(e, event);
        return jsonResponse(HTTP_INTERNAL_ERROR, { status: 'failed' });
      }
    }
    let result: Awaited<ReturnType<typeof runOnce>>;
    try {
      result = await runOnce(store, key, () => options.onEvent(event, context));
    } catch (e) {
      onError(e, event);
      return jsonResponse(HTTP_UNAVAILABLE, { status: 'store_unavailable' });
    }
    switch (result.outcome) {
      case 'handled':
      case 'duplicate':
      case 'stale':
        return jsonResponse(HTTP_OK, { status: result.outcome });
      case 'in_flight':
        return jsonResponse(HTTP_CONFLICT, { status: 'in_flight' });
      case 'failed':
        onError(result.error, event);
        // The handler's message stays in onError: it may hold internals the sender must not see.
        return jsonResponse(HTTP_INTERNAL_ERROR, { status: 'failed' });
    }
  }

  async function nodeHandler(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await acceptPostBody(req, res, maxBodyBytes, onError);
    if (raw === null) return;
    try {
      send(res, await handle(req.headers, raw));
    } catch (e) {
      onError(e);
      send(res, jsonResponse(HTTP_INTERNAL_ERROR, { status: 'failed' }));
    }
  }

  return { handle, nodeHandler };
}
