/**
 * The agent platform of the local service (issue 8): agents with draft-and-publish, sessions,
 * simulated calls, post-call webhook deliveries and the inbound `conversation_init` webhook.
 *
 * The local service (`startLocalService`) loads this module and hands every authenticated
 * `/v1/agent/*` request to {@link handlePlatformRequest}; that default handler keeps one platform
 * per server, with the real service's timings (3 attempts, 1 s / 5 s backoff, 10 s timeout).
 * For other timings, bind a platform of your own with {@link createPlatformHandler}:
 *
 * @example
 * const platform = createAgentPlatform({ delivery: { backoffMs: [50, 100], timeoutMs: 500 } });
 * const svc = await startLocalService({ platform: createPlatformHandler(platform) });
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AgentPlatform } from './AgentPlatform.js';
import type { PlatformOptions, SpeakFunction } from './options.js';
import { routePlatformRequest } from './router.js';
import { speakWithSynthesize, type SynthesizeFunction } from './speech.js';

export { AgentPlatform, LOCAL_WORKSPACE, workspaceFor } from './AgentPlatform.js';
export { isPlatformPath, AGENT_VERSIONS_SUFFIX, SIMULATE_SUFFIX, ANALYSIS_RERUN_SUFFIX, DELIVERIES_SUFFIX } from './router.js';
export type { PlatformOptions, PlatformLogEntry, PlatformRates, SpeakFunction, SpeechUsage } from './options.js';
export {
  DEFAULT_DELIVERY_ATTEMPTS,
  DEFAULT_DELIVERY_BACKOFF_MS,
  DEFAULT_DELIVERY_TIMEOUT_MS,
  DEFAULT_CONVERSATION_INIT_TIMEOUT_SECONDS,
  DEFAULT_RATES,
} from './options.js';
export type { DeliveryReport, AttemptReport } from './webhookDelivery.js';
export { speakWithSynthesize, AGENT_SPEECH_FORMAT } from './speech.js';
export { costMicros, formatMicros, parseMicros } from './money.js';

/** What the service's server hands to the platform for one request (a superset of the service's context). */
export interface PlatformRequestContext {
  /** The request id the server assigned (echoed as `x-request-id`). */
  requestId: string;
  /** The authenticated bearer token; it selects the workspace. */
  token?: string | undefined;
  /** The service's speech synthesis (to memory); agent messages are spoken with it. */
  synthesize?: SynthesizeFunction | undefined;
  /** Or a speech function directly (wins over `synthesize`). */
  speak?: SpeakFunction | undefined;
  /** The platform holding the state; by default one per `http.Server`, with default options. */
  platform?: AgentPlatform | undefined;
}

/** Creates a platform (state + options). */
export function createAgentPlatform(options: PlatformOptions = {}): AgentPlatform {
  return new AgentPlatform(options);
}

/** Platforms made on demand, one per server, for contexts that bring none. */
const perServer = new WeakMap<object, AgentPlatform>();
let fallback: AgentPlatform | undefined;

function platformFor(req: IncomingMessage): AgentPlatform {
  const server = (req.socket as unknown as { server?: object }).server;
  if (server === undefined) return (fallback ??= new AgentPlatform());
  let platform = perServer.get(server);
  if (!platform) perServer.set(server, (platform = new AgentPlatform()));
  return platform;
}

/**
 * Handles a request when its path belongs to the platform (`/v1/agent/agents…`,
 * `/v1/agent/sessions…`) and answers it (errors as `{status, message, reason}`); returns false,
 * without touching the request, for any other path.
 */
export async function handlePlatformRequest(req: IncomingMessage, res: ServerResponse, ctx: PlatformRequestContext): Promise<boolean> {
  const platform = ctx.platform ?? platformFor(req);
  const speak = ctx.speak ?? (ctx.synthesize ? speakWithSynthesize(ctx.synthesize) : undefined);
  return routePlatformRequest(platform, req, res, { requestId: ctx.requestId, token: ctx.token, speak });
}

/** A handler bound to one platform (pass a platform, or options to create one). */
export function createPlatformHandler(
  platformOrOptions: AgentPlatform | PlatformOptions = {},
): ((req: IncomingMessage, res: ServerResponse, ctx: PlatformRequestContext) => Promise<boolean>) & { platform: AgentPlatform } {
  const platform = platformOrOptions instanceof AgentPlatform ? platformOrOptions : new AgentPlatform(platformOrOptions);
  return Object.assign(
    (req: IncomingMessage, res: ServerResponse, ctx: PlatformRequestContext) => handlePlatformRequest(req, res, { ...ctx, platform }),
    { platform },
  );
}
