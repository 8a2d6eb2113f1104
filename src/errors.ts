/**
 * Every error voicewire raises, in one place.
 *
 * Each error carries a stable `code` (a string union, safe to switch on) and, where it applies,
 * where the fault was: `eventIndex` (0-based index of the SSE `message` event), `byteOffset`
 * (offset in the stream the stage was reading), `field` (the JSON / request / header field).
 *
 * Add new codes to {@link ErrorCode} and, when a new class is needed, a subclass below.
 */

export type ErrorCode =
  // SSE framing
  | 'SSE_LINE_TOO_LONG'
  | 'SSE_EVENT_TOO_LARGE'
  | 'SSE_TRUNCATED'
  // speech stream events
  | 'EVENT_INVALID_JSON'
  | 'EVENT_WRONG_TYPE'
  | 'EVENT_MISSING_FIELD'
  | 'EVENT_NEGATIVE_VALUE'
  | 'AUDIO_BAD_BASE64'
  | 'ALIGNMENT_BAD_SHAPE'
  // ring buffer
  | 'RING_OVERFLOW'
  // containers and codecs
  | 'FORMAT_MISMATCH'
  | 'WAV_BAD_HEADER'
  | 'WAV_UNSUPPORTED'
  | 'OGG_BAD_CAPTURE'
  | 'OGG_BAD_CRC'
  | 'OGG_BAD_PAGE'
  | 'OGG_PAGE_SEQUENCE'
  | 'OPUS_BAD_HEAD'
  | 'OPUS_DECODE_FAILED'
  | 'MP3_DECODE_FAILED'
  | 'CODEC_UNSUPPORTED'
  | 'CODEC_UNAVAILABLE'
  | 'AUDIO_TRUNCATED'
  // conversion stage
  | 'DSP_BAD_OPTION'
  // request validation (shared by client and local service)
  | 'REQUEST_INVALID'
  // HTTP client
  | 'API_ERROR'
  | 'API_CONNECTION'
  | 'API_TIMEOUT'
  | 'API_NOT_SSE'
  | 'STREAM_INTERRUPTED'
  | 'ABORTED'
  // webhooks
  | 'WEBHOOK_VERIFICATION_FAILED'
  | 'WEBHOOK_BAD_PAYLOAD'
  | 'WEBHOOK_HANDLER_TIMEOUT'
  | 'WEBHOOK_STORE_UNAVAILABLE'
  // sinks and players
  | 'NO_AUDIO_DEVICE'
  | 'PLAYER_FAILED'
  | 'SINK_IO'
  // a local file that cannot be read (e.g. the CLI's input)
  | 'INPUT_IO'
  // telephony
  | 'TELEPHONY_PROTOCOL'
  | 'TELEPHONY_CLOSED'
  | 'TELEPHONY_FORMAT_UNSUPPORTED'
  /** barge-in by voice could not start (its VAD failed to load) or its detector failed */
  | 'BARGE_IN_UNAVAILABLE'
  /** barge-in's detector thread fell behind (5 s): caller audio was dropped (counted), the call goes on */
  | 'BARGE_IN_BEHIND'
  /** at a call's end its barge-in detector thread did not answer in time (1 s): the call closed without its last turn */
  | 'BARGE_IN_CLOSE_TIMEOUT'
  // telephony authentication: the answer webhook's X-Twilio-Signature and per-call stream tokens
  | 'TWILIO_SIGNATURE_MISSING'
  | 'TWILIO_SIGNATURE_MALFORMED'
  | 'TWILIO_SIGNATURE_MISMATCH'
  | 'STREAM_TOKEN_MISSING'
  | 'STREAM_TOKEN_MALFORMED'
  | 'STREAM_TOKEN_INVALID'
  | 'STREAM_TOKEN_EXPIRED'
  // options given to a voicewire API
  | 'INVALID_OPTION'
  // an optional peer dependency an API needs is not installed
  | 'DEPENDENCY_MISSING';

export interface ErrorContext {
  /** 0-based index of the SSE `message` event where the fault was found. */
  eventIndex?: number;
  /** Byte offset in the input of the stage that found the fault. */
  byteOffset?: number;
  /** The field (JSON path, request field, header) that was wrong. */
  field?: string;
  /** The text chunk the fault belongs to, when known. */
  chunkSeq?: number;
  /** The underlying error. */
  cause?: unknown;
}

/** Base class of every voicewire error. */
export class VoicewireError extends Error {
  readonly code: ErrorCode;
  readonly eventIndex?: number;
  readonly byteOffset?: number;
  readonly field?: string;
  readonly chunkSeq?: number;

  constructor(code: ErrorCode, message: string, context: ErrorContext = {}) {
    super(message, context.cause === undefined ? undefined : { cause: context.cause });
    this.name = new.target.name;
    this.code = code;
    if (context.eventIndex !== undefined) this.eventIndex = context.eventIndex;
    if (context.byteOffset !== undefined) this.byteOffset = context.byteOffset;
    if (context.field !== undefined) this.field = context.field;
    if (context.chunkSeq !== undefined) this.chunkSeq = context.chunkSeq;
  }
}

/** SSE framing faults: a line or event over the size limit, or a stream cut inside an event. */
export class SseError extends VoicewireError {}

/** A speech stream event that is not a valid `SpeechEvent` (JSON, types, base64, alignment). */
export class SpeechEventError extends VoicewireError {}

/** Container and codec faults (RIFF, Ogg, Opus, MP3, format mismatch, truncation). */
export class CodecError extends VoicewireError {
  /** True when the stream cannot go on after this fault. */
  readonly fatal: boolean;
  constructor(code: ErrorCode, message: string, context: ErrorContext & { fatal?: boolean } = {}) {
    super(code, message, context);
    this.fatal = context.fatal ?? true;
  }
}

/**
 * An Ogg page whose sequence number is not the next one of its logical stream (RFC 3533): pages
 * were lost (`gap`), or a page came again or late (`repeat`, e.g. two pages swapped). `byteOffset`
 * is where the out-of-sequence page starts.
 */
export class OggSequenceError extends CodecError {
  readonly serial: number;
  /** The sequence number the stream's next page should have had. */
  readonly expectedSequence: number;
  /** The sequence number the page has. */
  readonly foundSequence: number;
  readonly kind: 'gap' | 'repeat';
  /** Pages missing before this one (`gap`), else 0. */
  readonly missingPages: number;
  constructor(
    message: string,
    fields: { serial: number; expectedSequence: number; foundSequence: number; kind: 'gap' | 'repeat'; missingPages: number },
    context: ErrorContext & { fatal?: boolean } = {},
  ) {
    super('OGG_PAGE_SEQUENCE', message, context);
    this.serial = fields.serial;
    this.expectedSequence = fields.expectedSequence;
    this.foundSequence = fields.foundSequence;
    this.kind = fields.kind;
    this.missingPages = fields.missingPages;
  }
}

/** A speech synthesis request that breaks a rule of the spec (client and service share it). */
export class RequestValidationError extends VoicewireError {
  /** The rule that was broken, e.g. `'range 0..1'`. */
  readonly rule: string;
  constructor(field: string, rule: string, message: string) {
    super('REQUEST_INVALID', message, { field });
    this.rule = rule;
  }
}

/** Bad options passed to a voicewire API (not a wire fault). */
export class InvalidOptionError extends VoicewireError {
  constructor(field: string, message: string) {
    super('INVALID_OPTION', message, { field });
  }
}

/** An optional peer dependency that the chosen option needs cannot be found (names the package). */
export class MissingDependencyError extends VoicewireError {
  /** The npm package to install, e.g. `'ioredis'`. */
  readonly packageName: string;
  constructor(packageName: string, message: string, context: ErrorContext = {}) {
    super('DEPENDENCY_MISSING', message, context);
    this.packageName = packageName;
  }
}

// ---------------------------------------------------------------------------------------------
// HTTP client errors (shape after openai-node's core/error.ts: status → class, request id kept)

export interface ApiErrorInit {
  status?: number | undefined;
  reason?: string;
  requestId?: string | undefined;
  headers?: Record<string, string>;
  cause?: unknown;
}

/** An error answered by, or about talking to, the service. */
export class ApiError extends VoicewireError {
  /** HTTP status, when a response arrived. */
  readonly status: number | undefined;
  /** The `reason` of the service's error body `{status, message, reason}`, when given. */
  readonly reason: string | undefined;
  /** The response's `x-request-id`, when a response arrived. */
  readonly requestId: string | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(message: string, init: ApiErrorInit = {}, code: ErrorCode = 'API_ERROR') {
    super(code, message, init.cause === undefined ? {} : { cause: init.cause });
    this.status = init.status;
    this.reason = init.reason;
    this.requestId = init.requestId;
    this.headers = init.headers;
  }

  /** Builds the subclass that matches an HTTP status. */
  static fromStatus(status: number, message: string, init: ApiErrorInit = {}): ApiError {
    const full = { ...init, status };
    switch (status) {
      case 400:
        return new BadRequestError(message, full);
      case 401:
        return new AuthenticationError(message, full);
      case 403:
        return new PermissionDeniedError(message, full);
      case 404:
        return new NotFoundError(message, full);
      case 409:
        return new ConflictError(message, full);
      case 413:
        return new PayloadTooLargeError(message, full);
      case 422:
        return new UnprocessableEntityError(message, full);
      case 429:
        return new RateLimitError(message, full);
      default:
        return status >= 500 ? new InternalServerError(message, full) : new ApiError(message, full);
    }
  }
}
export class BadRequestError extends ApiError {}
export class AuthenticationError extends ApiError {}
export class PermissionDeniedError extends ApiError {}
export class NotFoundError extends ApiError {}
export class ConflictError extends ApiError {}
export class PayloadTooLargeError extends ApiError {}
export class UnprocessableEntityError extends ApiError {}
export class RateLimitError extends ApiError {}
export class InternalServerError extends ApiError {}

/** The connection could not be made or broke before a response head arrived. */
export class ApiConnectionError extends ApiError {
  constructor(message: string, init: ApiErrorInit = {}) {
    super(message, init, 'API_CONNECTION');
  }
}
/** `timeoutMs` (response head) or `idleTimeoutMs` (gap between body bytes) ran out. */
export class ApiTimeoutError extends ApiError {
  constructor(message: string, init: ApiErrorInit = {}) {
    super(message, init, 'API_TIMEOUT');
  }
}
/** A 2xx answer that is not `text/event-stream`. */
export class NotEventStreamError extends ApiError {
  constructor(message: string, init: ApiErrorInit = {}) {
    super(message, init, 'API_NOT_SSE');
  }
}
/** The body broke after audio had begun; what arrived before was delivered. Never retried. */
export class StreamInterruptedError extends ApiError {
  constructor(message: string, init: ApiErrorInit = {}) {
    super(message, init, 'STREAM_INTERRUPTED');
  }
}
/** The caller's AbortSignal fired. */
export class AbortError extends VoicewireError {
  constructor(message = 'The operation was aborted', cause?: unknown) {
    super('ABORTED', message, cause === undefined ? {} : { cause });
  }
}

// ---------------------------------------------------------------------------------------------
// Webhooks

/** Any failure to verify a webhook signature. The message never echoes a secret or signature. */
export class WebhookVerificationError extends VoicewireError {
  constructor(message: string) {
    super('WEBHOOK_VERIFICATION_FAILED', message);
  }
}

/**
 * A dedup store operation failed or ran out of time (Redis down, unreachable or hung). The
 * receiver answers 503 `store_unavailable`, so the sender retries the delivery later.
 */
export class DedupStoreUnavailableError extends VoicewireError {
  constructor(message: string, cause?: unknown) {
    super('WEBHOOK_STORE_UNAVAILABLE', message, cause === undefined ? {} : { cause });
  }
}

// ---------------------------------------------------------------------------------------------
// Sinks, players, telephony

export class SinkError extends VoicewireError {}
export class TelephonyError extends VoicewireError {}
/**
 * A telephony request or stream that failed authentication: a missing, malformed or wrong
 * `X-Twilio-Signature`, or a per-call stream token that is missing, malformed, forged, for another
 * call, or expired. The message never echoes a secret, a signature or a token.
 */
export class TelephonyAuthError extends VoicewireError {}
