/**
 * The speech synthesis request (`POST /v1/tts/stream/with-timestamp`): its types, defaults, limits
 * and validation, in ONE module. The local service applies these rules to every request it
 * receives; the speech client applies the same rules before sending. One source of truth.
 *
 * @see docs/service-interface.md#speech-synthesis-request and #limits
 */
import { RequestValidationError } from '../errors.js';
import { OPUS_NATIVE_RATES, OPUS_RATE } from '../codec/opus/OpusHead.js';
import { AUDIO_FORMATS, type AudioFormat } from '../codec/types.js';

/** Values of the `model` header. */
export const TTS_MODELS = ['s1', 's2-pro', 's2.1-pro', 's2.1-pro-free', 'drama-3-preview'] as const;
export type TtsModel = (typeof TTS_MODELS)[number];
/** Used when the `model` header is absent or unrecognised (spec, Versioning 6). */
export const DEFAULT_MODEL: TtsModel = 's2.1-pro';

/** The request's `format` values are the formats the engine decodes (one list, in codec/types.ts). */
export { AUDIO_FORMATS };
export const LATENCY_MODES = ['low', 'normal', 'balanced'] as const;
export type LatencyMode = (typeof LATENCY_MODES)[number];
export const MP3_BITRATES = [64, 128, 192] as const;
/** `opus_bitrate` value meaning "let the encoder choose". */
export const OPUS_BITRATE_AUTO = -1000;
export const OPUS_BITRATES = [OPUS_BITRATE_AUTO, 24000, 32000, 48000, 64000] as const;

/**
 * The longest `text` accepted, in UTF-16 code units. The spec leaves it unshown; the local service
 * answers 413 above it, and the client refuses to send such a request.
 */
export const MAX_TEXT_LENGTH = 10_000;
/** Largest request body (bytes) the local service reads before answering 413. */
export const MAX_REQUEST_BYTES = 1024 * 1024;

/** Rate limits of the fields whose range the spec leaves unshown (our choice, documented). */
export const PROSODY_SPEED_RANGE = { min: 0.5, max: 2 } as const;
export const PROSODY_VOLUME_DB_RANGE = { min: -20, max: 20 } as const;

/** PCM and WAV take any integer rate in this range. */
export const PCM_RATE_RANGE = { min: 8000, max: 48000 } as const;
/** The sample rates MPEG-1/2/2.5 layer III can carry. */
export const MP3_SAMPLE_RATES = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000] as const;
/**
 * The opus `sample_rate`s a request may ask for: the OpusHead input rate, i.e. the rate the
 * service's libopus encoder runs at (the Ogg Opus stream itself always runs at 48 kHz). libopus
 * accepts exactly its native rates there, the same set the engine's decoder outputs natively, so
 * this is that list rather than a copy of it.
 */
export const OPUS_SAMPLE_RATES: readonly number[] = OPUS_NATIVE_RATES;

/** The default `sample_rate` of every format but opus, whose default is its stream rate (48 kHz). */
export const DEFAULT_SAMPLE_RATE = 44100;

/** `sample_rate: null` (or absent) means this rate. */
export function defaultSampleRate(format: AudioFormat): number {
  return format === 'opus' ? OPUS_RATE : DEFAULT_SAMPLE_RATE;
}

/** Whether `rate` is legal for `format`. */
export function isLegalSampleRate(format: AudioFormat, rate: number): boolean {
  if (!Number.isInteger(rate)) return false;
  if (format === 'mp3') return (MP3_SAMPLE_RATES as readonly number[]).includes(rate);
  if (format === 'opus') return OPUS_SAMPLE_RATES.includes(rate);
  return rate >= PCM_RATE_RANGE.min && rate <= PCM_RATE_RANGE.max;
}

/** Words describing the legal rates of a format, for error messages. */
export function legalSampleRatesText(format: AudioFormat): string {
  if (format === 'mp3') return MP3_SAMPLE_RATES.join(', ');
  if (format === 'opus') return OPUS_SAMPLE_RATES.join(', ');
  return `any integer from ${PCM_RATE_RANGE.min} to ${PCM_RATE_RANGE.max}`;
}

export interface Prosody {
  /** Speaking rate multiplier. @defaultValue 1 */
  speed?: number;
  /** Gain in dB. @defaultValue 0 */
  volume?: number;
  /** @defaultValue true */
  normalize_loudness?: boolean;
}

export interface ReferenceAudio {
  audio: string;
  text: string;
}

/** A reference to a dictionary the service manages. */
export interface PronunciationDictionaryRef {
  id: string;
  version: string;
}
/**
 * The inline variant (voicewire's definition; the spec leaves it unshown). Each entry replaces
 * whole-word, case-insensitive occurrences of `text` (one or more words) either by `alias` (other
 * text to speak) or by `phonemes` (espeak-ng phoneme mnemonics, as in espeak's `[[...]]` input).
 * Exactly one of `alias` / `phonemes`. The word timeline keeps the original words.
 */
export interface PronunciationDictionaryInline {
  entries: PronunciationEntry[];
}
export interface PronunciationEntry {
  text: string;
  alias?: string;
  phonemes?: string;
}
export type PronunciationDictionaryItem = PronunciationDictionaryRef | PronunciationDictionaryInline;

/**
 * A request body as sent. The type is closed, so a misspelt field (`formt`) in an object literal
 * does not compile; fields it does not know yet are sent by spreading
 * `unknownFields({...})` into the literal, and at run time unknown fields pass through untouched.
 */
export interface TtsRequest {
  text: string;
  temperature?: number;
  top_p?: number;
  references?: ReferenceAudio[];
  reference_id?: string | null;
  prosody?: Prosody | null;
  chunk_length?: number;
  normalize?: boolean;
  format?: AudioFormat;
  sample_rate?: number | null;
  mp3_bitrate?: number;
  opus_bitrate?: number;
  latency?: LatencyMode;
  max_new_tokens?: number;
  repetition_penalty?: number;
  min_chunk_length?: number;
  condition_on_previous_chunks?: boolean;
  early_stop_threshold?: number;
  features?: string[];
  pronunciation_dictionary?: PronunciationDictionaryItem[];
}

/** A validated request with every default applied and `sample_rate` resolved. */
export interface NormalizedTtsRequest {
  text: string;
  temperature: number;
  top_p: number;
  references: ReferenceAudio[];
  reference_id: string | null;
  prosody: Required<Prosody>;
  chunk_length: number;
  normalize: boolean;
  format: AudioFormat;
  sample_rate: number;
  mp3_bitrate: number;
  opus_bitrate: number;
  latency: LatencyMode;
  max_new_tokens: number;
  repetition_penalty: number;
  min_chunk_length: number;
  condition_on_previous_chunks: boolean;
  early_stop_threshold: number;
  features: string[];
  pronunciation_dictionary: PronunciationDictionaryItem[];
  /** Fields the spec does not name, passed through. */
  extra: Record<string, unknown>;
}

/** The defaults of the reference request shape (spec table). */
export const TTS_DEFAULTS = {
  temperature: 0.7,
  top_p: 0.7,
  chunk_length: 300,
  normalize: true,
  format: 'mp3' as AudioFormat,
  mp3_bitrate: 128,
  opus_bitrate: OPUS_BITRATE_AUTO,
  latency: 'normal' as LatencyMode,
  max_new_tokens: 1024,
  repetition_penalty: 1.2,
  min_chunk_length: 50,
  condition_on_previous_chunks: true,
  early_stop_threshold: 1,
  prosody: { speed: 1, volume: 0, normalize_loudness: true },
} as const;

/** Rule names carried by {@link RequestValidationError.rule}. */
export type TtsRule = 'required' | 'type' | 'integer' | 'range' | 'enum' | 'non_empty' | 'max_length' | 'sample_rate' | 'shape';

const KNOWN_FIELDS = new Set([
  'text',
  'temperature',
  'top_p',
  'references',
  'reference_id',
  'prosody',
  'chunk_length',
  'normalize',
  'format',
  'sample_rate',
  'mp3_bitrate',
  'opus_bitrate',
  'latency',
  'max_new_tokens',
  'repetition_penalty',
  'min_chunk_length',
  'condition_on_previous_chunks',
  'early_stop_threshold',
  'features',
  'pronunciation_dictionary',
]);

function fail(field: string, rule: TtsRule, message: string): never {
  throw new RequestValidationError(field, rule, `${field}: ${message}`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(
  o: Record<string, unknown>,
  field: string,
  path: string,
  def: number,
  range?: { min: number; max: number; exclusiveMin?: boolean },
  integer = false,
): number {
  const v = o[field];
  if (v === undefined) return def;
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(path, 'type', `must be a ${integer ? 'integer' : 'number'}`);
  if (integer && !Number.isInteger(v)) fail(path, 'integer', 'must be an integer');
  if (range && (v > range.max || (range.exclusiveMin ? v <= range.min : v < range.min))) {
    fail(
      path,
      'range',
      range.max === Infinity
        ? `must be ${range.exclusiveMin ? 'greater than' : 'at least'} ${range.min}, got ${v}`
        : `must be from ${range.min} to ${range.max}, got ${v}`,
    );
  }
  return v;
}

function bool(o: Record<string, unknown>, field: string, path: string, def: boolean): boolean {
  const v = o[field];
  if (v === undefined) return def;
  if (typeof v !== 'boolean') fail(path, 'type', 'must be a boolean');
  return v;
}

function oneOf<T extends string | number>(o: Record<string, unknown>, field: string, values: readonly T[], def: T): T {
  const v = o[field];
  if (v === undefined) return def;
  if (!(values as readonly unknown[]).includes(v)) {
    fail(field, 'enum', `must be one of ${values.join(', ')}, got ${JSON.stringify(v)}`);
  }
  return v as T;
}

function str(v: unknown, path: string, nonEmpty: boolean): string {
  if (typeof v !== 'string') fail(path, 'type', 'must be a string');
  if (nonEmpty && v.trim() === '') fail(path, 'non_empty', 'must not be empty');
  return v;
}

function validatePronunciation(v: unknown): PronunciationDictionaryItem[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) fail('pronunciation_dictionary', 'type', 'must be an array');
  return v.map((item: unknown, i) => {
    const path = `pronunciation_dictionary[${i}]`;
    if (!isObject(item)) fail(path, 'type', 'must be an object');
    if ('entries' in item) {
      if (!Array.isArray(item.entries)) fail(`${path}.entries`, 'type', 'must be an array');
      const entries = item.entries.map((e: unknown, j) => {
        const ep = `${path}.entries[${j}]`;
        if (!isObject(e)) fail(ep, 'type', 'must be an object');
        const text = str(e.text, `${ep}.text`, true);
        const hasAlias = e.alias !== undefined;
        const hasPhonemes = e.phonemes !== undefined;
        if (hasAlias === hasPhonemes) fail(ep, 'shape', 'must have exactly one of alias or phonemes');
        return hasAlias ? { text, alias: str(e.alias, `${ep}.alias`, true) } : { text, phonemes: str(e.phonemes, `${ep}.phonemes`, true) };
      });
      return { entries };
    }
    if ('id' in item || 'version' in item) {
      return { id: str(item.id, `${path}.id`, true), version: str(item.version, `${path}.version`, true) };
    }
    return fail(path, 'shape', 'must be a reference {id, version} or an inline dictionary {entries}');
  });
}

function validateProsody(v: unknown): Required<Prosody> {
  if (v === undefined || v === null) return { ...TTS_DEFAULTS.prosody };
  if (!isObject(v)) fail('prosody', 'type', 'must be an object or null');
  return {
    speed: num(v, 'speed', 'prosody.speed', TTS_DEFAULTS.prosody.speed, PROSODY_SPEED_RANGE),
    volume: num(v, 'volume', 'prosody.volume', TTS_DEFAULTS.prosody.volume, PROSODY_VOLUME_DB_RANGE),
    normalize_loudness: bool(v, 'normalize_loudness', 'prosody.normalize_loudness', TTS_DEFAULTS.prosody.normalize_loudness),
  };
}

/**
 * Checks a request body against the spec's table and Limits, and fills in the defaults.
 * Throws {@link RequestValidationError} naming the first bad field and the rule it broke.
 * `text` longer than {@link MAX_TEXT_LENGTH} breaks rule `'max_length'` (the service answers 413).
 *
 * @example
 * const req = validateTtsRequest({ text: 'Hello.', format: 'opus' }); // req.sample_rate === 48000
 */
export function validateTtsRequest(body: unknown): NormalizedTtsRequest {
  if (!isObject(body)) fail('body', 'type', 'the request body must be a JSON object');
  if (body.text === undefined) fail('text', 'required', 'is required');
  const text = str(body.text, 'text', true);
  if (text.length > MAX_TEXT_LENGTH) fail('text', 'max_length', `is ${text.length} characters, the maximum is ${MAX_TEXT_LENGTH}`);

  const format = oneOf(body, 'format', AUDIO_FORMATS, TTS_DEFAULTS.format);
  let sampleRate = defaultSampleRate(format);
  if (body.sample_rate !== undefined && body.sample_rate !== null) {
    const r = body.sample_rate;
    if (typeof r !== 'number' || !Number.isFinite(r)) fail('sample_rate', 'type', 'must be an integer or null');
    if (!Number.isInteger(r)) fail('sample_rate', 'integer', 'must be an integer');
    if (!isLegalSampleRate(format, r)) {
      fail('sample_rate', 'sample_rate', `${r} Hz is not legal for ${format}; legal rates: ${legalSampleRatesText(format)}`);
    }
    sampleRate = r;
  }

  let references: ReferenceAudio[] = [];
  if (body.references !== undefined) {
    if (!Array.isArray(body.references)) fail('references', 'type', 'must be an array');
    references = body.references.map((r: unknown, i) => {
      if (!isObject(r)) fail(`references[${i}]`, 'type', 'must be an object');
      return { audio: str(r.audio, `references[${i}].audio`, false), text: str(r.text, `references[${i}].text`, false) };
    });
  }

  let referenceId: string | null = null;
  if (body.reference_id !== undefined && body.reference_id !== null) referenceId = str(body.reference_id, 'reference_id', true);

  let features: string[] = [];
  if (body.features !== undefined) {
    if (!Array.isArray(body.features)) fail('features', 'type', 'must be an array of strings');
    features = body.features.map((f: unknown, i) => str(f, `features[${i}]`, false));
  }

  const extra: Record<string, unknown> = {};
  for (const key of Object.keys(body)) if (!KNOWN_FIELDS.has(key)) extra[key] = body[key];

  return {
    text,
    temperature: num(body, 'temperature', 'temperature', TTS_DEFAULTS.temperature, { min: 0, max: 1 }),
    top_p: num(body, 'top_p', 'top_p', TTS_DEFAULTS.top_p, { min: 0, max: 1 }),
    references,
    reference_id: referenceId,
    prosody: validateProsody(body.prosody),
    chunk_length: num(body, 'chunk_length', 'chunk_length', TTS_DEFAULTS.chunk_length, { min: 100, max: 300 }, true),
    normalize: bool(body, 'normalize', 'normalize', TTS_DEFAULTS.normalize),
    format,
    sample_rate: sampleRate,
    mp3_bitrate: oneOf(body, 'mp3_bitrate', MP3_BITRATES as readonly number[], TTS_DEFAULTS.mp3_bitrate),
    opus_bitrate: oneOf(body, 'opus_bitrate', OPUS_BITRATES as readonly number[], TTS_DEFAULTS.opus_bitrate),
    latency: oneOf(body, 'latency', LATENCY_MODES, TTS_DEFAULTS.latency),
    max_new_tokens: num(body, 'max_new_tokens', 'max_new_tokens', TTS_DEFAULTS.max_new_tokens, { min: 1, max: Infinity }, true),
    repetition_penalty: num(body, 'repetition_penalty', 'repetition_penalty', TTS_DEFAULTS.repetition_penalty, {
      min: 0,
      max: Infinity,
      exclusiveMin: true,
    }),
    min_chunk_length: num(body, 'min_chunk_length', 'min_chunk_length', TTS_DEFAULTS.min_chunk_length, { min: 0, max: 100 }, true),
    condition_on_previous_chunks: bool(
      body,
      'condition_on_previous_chunks',
      'condition_on_previous_chunks',
      TTS_DEFAULTS.condition_on_previous_chunks,
    ),
    early_stop_threshold: num(body, 'early_stop_threshold', 'early_stop_threshold', TTS_DEFAULTS.early_stop_threshold, { min: 0, max: 1 }),
    features,
    pronunciation_dictionary: validatePronunciation(body.pronunciation_dictionary),
    extra,
  };
}

/** The model named by a `model` header value, falling back to {@link DEFAULT_MODEL}. */
export function resolveModel(header: string | string[] | undefined): TtsModel {
  const v = Array.isArray(header) ? header[0] : header;
  return (TTS_MODELS as readonly string[]).includes(v ?? '') ? (v as TtsModel) : DEFAULT_MODEL;
}
