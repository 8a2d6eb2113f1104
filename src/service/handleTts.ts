/**
 * `POST /v1/tts/stream/with-timestamp`: body → (fault: fail) → validation → plan → SSE stream.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RequestValidationError } from '../errors.js';
import { resolveModel, validateTtsRequest } from '../protocol/ttsRequest.js';
import { sendError, REASON_BY_STATUS } from './httpErrors.js';
import { ATTEMPT_KEY_HEADER, attemptKey, DEFAULT_RETRY_AFTER_SEC, FAULT_HEADER, type FaultSpec, type AttemptCounter } from './faults.js';
import { buildSpeechPlan, type PlanContext } from './speech/SpeechPlan.js';
import type { SpeechEngine } from './speech/SpeechEngine.js';
import { ResponseClosedError, SseResponder, type Pace, type ServiceClock } from './stream/SseResponder.js';
import { synthesizeSpeech } from './stream/synthesizeSpeech.js';

export const MODEL_RESPONSE_HEADER = 'model';

export interface TtsRouteContext {
  engine: SpeechEngine;
  plan: PlanContext;
  pace: Pace;
  leadSec: number;
  clock: ServiceClock;
  attempts: AttemptCounter;
  requestId: string;
  faults: FaultSpec;
  /** @see SseResponderOptions.writeIdleTimeoutMs */
  writeIdleTimeoutMs?: number;
  log(line: string): void;
}

/** Maps a validation error to its status and body. */
export function validationErrorBody(err: RequestValidationError): {
  status: number;
  message: string;
  reason: string;
  field: string;
  rule: string;
} {
  const tooLong = err.rule === 'max_length';
  return {
    status: tooLong ? 413 : 422,
    message: err.message,
    reason: tooLong ? 'text_too_long' : 'validation_error',
    field: err.field ?? 'body',
    rule: err.rule,
  };
}

export async function handleTts(req: IncomingMessage, res: ServerResponse, body: Buffer, ctx: TtsRouteContext): Promise<void> {
  const model = resolveModel(req.headers['model']);
  const common = { 'x-request-id': ctx.requestId, [MODEL_RESPONSE_HEADER]: model };
  const f = ctx.faults;

  if (f.fail) {
    const explicit = req.headers[ATTEMPT_KEY_HEADER];
    const key = attemptKey(Array.isArray(explicit) ? explicit[0] : explicit, [
      req.url ?? '',
      String(req.headers['model'] ?? ''),
      String(req.headers[FAULT_HEADER] ?? ''),
      body,
    ]);
    const attempt = ctx.attempts.next(key);
    if (attempt <= f.fail.attempts) {
      const status = f.fail.status;
      const headers: Record<string, string> = { ...common };
      if (status === 429 || status === 503) headers['retry-after'] = String(f.retryAfterSec ?? DEFAULT_RETRY_AFTER_SEC);
      sendError(
        res,
        {
          status,
          message: `injected fault: attempt ${attempt} of ${f.fail.attempts} failing with ${status}`,
          reason: REASON_BY_STATUS[status] ?? 'injected_fault',
        },
        headers,
      );
      return;
    }
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    sendError(res, { status: 400, message: 'the request body is not valid JSON', reason: 'invalid_json' }, common);
    return;
  }

  let plan;
  try {
    const request = validateTtsRequest(parsed);
    plan = await buildSpeechPlan(request, ctx.plan);
  } catch (err) {
    if (err instanceof RequestValidationError) {
      const b = validationErrorBody(err);
      sendError(res, b.field === 'body' ? { ...b, status: 400, reason: 'invalid_json' } : b, common);
      return;
    }
    throw err;
  }

  const responder = new SseResponder(res, {
    pace: ctx.pace,
    leadSec: ctx.leadSec,
    faults: f,
    clock: ctx.clock,
    ...(ctx.writeIdleTimeoutMs !== undefined ? { writeIdleTimeoutMs: ctx.writeIdleTimeoutMs } : {}),
  });
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  try {
    await responder.open({ ...common, 'x-voicewire-chunks': String(plan.chunks.length) });
    const summary = await synthesizeSpeech(plan, ctx.engine, {
      emit: (ev) => responder.send(ev),
      signal: abort.signal,
      requestId: ctx.requestId,
    });
    await responder.end();
    ctx.log(
      `${ctx.requestId} ${plan.request.format}@${plan.request.sample_rate}` +
        ` ${summary.chunks} chunks ${summary.events} events ${summary.durationSec.toFixed(2)} s`,
    );
  } catch (err) {
    if (err instanceof ResponseClosedError) {
      // Synthesis has stopped: the abort reached it, or its next event failed on the closed response.
      ctx.log(`${ctx.requestId} stopped after ${responder.eventsSent} events: ${err.message}`);
      return;
    }
    ctx.log(`${ctx.requestId} synthesis failed: ${(err as Error).message}`);
    // Headers are out: the only honest signal left is a broken body.
    if (res.headersSent) res.destroy();
    else sendError(res, { status: 500, message: 'speech synthesis failed', reason: 'internal_error' }, common);
  }
}
