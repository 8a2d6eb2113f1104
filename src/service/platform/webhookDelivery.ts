/**
 * Post-call webhook deliveries: every endpoint in parallel and on its own, events of one session
 * in order per endpoint, each delivery up to `attempts` times with backoff, a byte-identical body
 * and a fresh signature per attempt keyed with that endpoint's secret.
 *
 * @see docs/service-interface.md#post-call-webhook-events (delivery)
 */
import { signWebhookPayload } from '../../protocol/webhookSignature.js';
import type { ResolvedPlatformOptions } from './options.js';
import { postBytes, type PostOutcome } from './postJson.js';
import type { WebhookEndpoint } from './types.js';

/** Attempts kept in a session's delivery log, so a flapping endpoint cannot grow memory. */
export const MAX_REPORTS_PER_SESSION = 200;

export interface AttemptReport {
  attempt: number;
  /** Unix seconds the attempt was signed at (`t`). */
  signedAt: number;
  status: number | null;
  outcome: 'delivered' | 'rejected' | 'timeout' | 'network';
}

export interface DeliveryReport {
  sessionId: string;
  url: string;
  event: string;
  /** `pending` until the last attempt settled. */
  state: 'pending' | 'delivered' | 'failed';
  attempts: AttemptReport[];
}

const isSuccess = (o: PostOutcome) => o.kind === 'answered' && o.status >= 200 && o.status < 300;

function outcomeOf(o: PostOutcome): AttemptReport['outcome'] {
  if (o.kind === 'answered') return isSuccess(o) ? 'delivered' : 'rejected';
  return o.kind;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class WebhookDeliverer {
  /** Tail of the delivery chain of each (session, endpoint): the next event waits for it. */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly reportsValue = new Map<string, DeliveryReport[]>();
  private readonly options: ResolvedPlatformOptions;

  constructor(options: ResolvedPlatformOptions) {
    this.options = options;
  }

  /**
   * Queues one event to every endpoint. The body is serialised once; each endpoint gets its
   * own chain, so a slow or failing endpoint never holds another back.
   */
  deliver(sessionId: string, endpoints: readonly WebhookEndpoint[], event: string, payload: unknown): void {
    if (endpoints.length === 0) return;
    const body = Buffer.from(JSON.stringify(payload), 'utf8');
    for (const endpoint of endpoints) {
      const report: DeliveryReport = { sessionId, url: endpoint.url, event, state: 'pending', attempts: [] };
      this.record(sessionId, report);
      const key = `${sessionId}\u0000${endpoint.url}`;
      const previous = this.chains.get(key) ?? Promise.resolve();
      const next = previous
        .then(() => this.attemptAll(endpoint, body, report))
        .catch(() => {
          // attemptAll does not throw; should it ever, the delivery fails and the chain goes on.
          report.state = 'failed';
        });
      this.chains.set(key, next);
      void next.then(() => {
        if (this.chains.get(key) === next) this.chains.delete(key);
      });
    }
  }

  /** The deliveries of one session so far, in queue order. */
  reports(sessionId: string): DeliveryReport[] {
    return this.reportsValue.get(sessionId) ?? [];
  }

  /** Resolves once every queued delivery of one session has settled. */
  async settledFor(sessionId: string): Promise<void> {
    const prefix = `${sessionId}\u0000`;
    for (;;) {
      const pending = [...this.chains].filter(([key]) => key.startsWith(prefix)).map(([, p]) => p);
      if (pending.length === 0) return;
      await Promise.all(pending);
    }
  }

  /** Resolves once every queued delivery has settled (delivered or out of attempts). */
  async settled(): Promise<void> {
    while (this.chains.size > 0) await Promise.all([...this.chains.values()]);
  }

  private record(sessionId: string, report: DeliveryReport): void {
    let list = this.reportsValue.get(sessionId);
    if (!list) this.reportsValue.set(sessionId, (list = []));
    list.push(report);
    if (list.length > MAX_REPORTS_PER_SESSION) list.shift();
  }

  private async attemptAll(endpoint: WebhookEndpoint, body: Buffer, report: DeliveryReport): Promise<void> {
    const { attempts, backoffMs, timeoutMs, signatureHeader, now, onLog } = this.options;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await sleep(backoffMs[Math.min(attempt - 2, backoffMs.length - 1)] ?? 0);
      const signedAt = Math.floor(now() / 1000);
      const headers: Record<string, string> = {};
      if (endpoint.secret !== undefined) {
        headers[signatureHeader] = signWebhookPayload({ payload: body, secret: endpoint.secret, timestamp: signedAt });
      }
      const outcome = await postBytes({ url: endpoint.url, body, headers, timeoutMs });
      const status = outcome.kind === 'answered' ? outcome.status : null;
      report.attempts.push({ attempt, signedAt, status, outcome: outcomeOf(outcome) });
      const ok = isSuccess(outcome);
      onLog({
        kind: 'delivery_attempt',
        url: endpoint.url,
        event: report.event,
        sessionId: report.sessionId,
        attempt,
        ok,
        status,
        ...(outcome.kind === 'network' ? { error: outcome.message } : outcome.kind === 'timeout' ? { error: 'timeout' } : {}),
      });
      if (ok) {
        report.state = 'delivered';
        return;
      }
    }
    report.state = 'failed';
  }
}
