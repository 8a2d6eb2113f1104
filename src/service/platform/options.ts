/**
 * Options of the agent platform, with the real service's defaults (docs/service-interface.md). Every
 * timing is configurable so that tests run fast against real loopback receivers.
 */

/** Attempts per delivery (docs/service-interface.md#limits). */
export const DEFAULT_DELIVERY_ATTEMPTS = 3;
/** Delay before the 2nd and the 3rd attempt (docs/service-interface.md#post-call-webhook-events). */
export const DEFAULT_DELIVERY_BACKOFF_MS: readonly number[] = [1_000, 5_000];
/** Time a receiver has to answer one attempt (docs/service-interface.md#post-call-webhook-events). */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;
/** `conversation_init.timeout_seconds` when the config does not set it (docs/service-interface.md#inbound-call-webhook). */
export const DEFAULT_CONVERSATION_INIT_TIMEOUT_SECONDS = 5;
/** Signature header name (docs/service-interface.md#authentication-and-webhook-signatures). */
export const DEFAULT_SIGNATURE_HEADER = 'X-Fish-Webhook-Signature';
/** Default page size of session listing, and its cap. */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** Rates the simulated usage is priced at, in dollars per million units (decimal strings). */
export interface PlatformRates {
  /** LLM input tokens. @defaultValue `'0.15'` */
  llmInputPerMillion: string;
  /** LLM output tokens. @defaultValue `'0.60'` */
  llmOutputPerMillion: string;
  /** Characters spoken by the speech engine. @defaultValue `'15'` */
  ttsCharactersPerMillion: string;
  /** Version label put in `rate_version`. @defaultValue `'local-1'` */
  rateVersion: string;
}
export const DEFAULT_RATES: PlatformRates = {
  llmInputPerMillion: '0.15',
  llmOutputPerMillion: '0.60',
  ttsCharactersPerMillion: '15',
  rateVersion: 'local-1',
};

/** What the speech engine reports for one spoken text. */
export interface SpeechUsage {
  /** Characters synthesized. */
  characters: number;
  /** Seconds of audio produced. */
  audioSeconds: number;
  /** Engine/model that spoke, e.g. `'espeak-ng'`. */
  model?: string;
}
/**
 * Speaks a text with the service's engine and reports what it produced. `options.signal` aborts
 * when the simulation's client has left: stop and reject.
 */
export type SpeakFunction = (
  text: string,
  voice: { voiceId?: string; language?: string; speed?: number },
  options?: { signal?: AbortSignal },
) => Promise<SpeechUsage>;

export interface PlatformOptions {
  /** Milliseconds since the epoch. @defaultValue `Date.now` */
  now?: () => number;
  /** Speech engine used for the agent's spoken messages, when the request context gives none. */
  speak?: SpeakFunction;
  delivery?: {
    /** @defaultValue 3 */
    attempts?: number;
    /** Delay before attempt n+2 is `backoffMs[n]` (the last value repeats). @defaultValue `[1000, 5000]` */
    backoffMs?: readonly number[];
    /** @defaultValue 10000 */
    timeoutMs?: number;
    /** @defaultValue `'X-Fish-Webhook-Signature'` */
    signatureHeader?: string;
  };
  conversationInit?: {
    /** @defaultValue 5 */
    defaultTimeoutSeconds?: number;
    /** Converts `timeout_seconds` to milliseconds; tests shrink it. @defaultValue `s => s * 1000` */
    timeoutMs?: (timeoutSeconds: number) => number;
  };
  rates?: Partial<PlatformRates>;
  /** Id generator (`prefix` is `agent`, `sess`, `item`, ...). @defaultValue random hex */
  newId?: (prefix: string) => string;
  /** Receives delivery and inbound-webhook diagnostics. @defaultValue ignored */
  onLog?: (entry: PlatformLogEntry) => void;
}

export type PlatformLogEntry =
  | {
      kind: 'delivery_attempt';
      url: string;
      event: string;
      sessionId: string;
      attempt: number;
      ok: boolean;
      status: number | null;
      error?: string;
    }
  | { kind: 'conversation_init'; url: string; sessionId: string; outcome: string; warnings: string[] };

export interface ResolvedPlatformOptions {
  now: () => number;
  speak: SpeakFunction | undefined;
  attempts: number;
  backoffMs: readonly number[];
  timeoutMs: number;
  signatureHeader: string;
  initDefaultTimeoutSeconds: number;
  initTimeoutMs: (timeoutSeconds: number) => number;
  rates: PlatformRates;
  newId: (prefix: string) => string;
  onLog: (entry: PlatformLogEntry) => void;
}
