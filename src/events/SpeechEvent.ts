/**
 * The speech stream event (one SSE `message` event of `POST /v1/tts/stream/with-timestamp`) and
 * its validation: the general path of the event stage.
 *
 * Required-ness, decided from the spec's "Speech stream event" table and its Rules:
 * - `audio_base64` is required (Rule 5: audio is appended for every event; `""` is allowed).
 * - `chunk_seq` (integer ≥ 0) and `chunk_audio_offset_sec` (finite number ≥ 0) are required.
 * - `content` may be absent (treated as `''`), and `alignment` may be absent (treated as `null`,
 *   the spec's "alignment unavailable").
 * - Unknown extra fields are ignored (the service may add fields).
 *
 * @see docs/service-interface.md#speech-stream-events
 */
import { SpeechEventError } from '../errors.js';
import { base64Fault } from './base64.js';

export interface AlignmentSegment {
  text: string;
  start: number;
  end: number;
}
export interface Alignment {
  audio_duration: number;
  segments: AlignmentSegment[];
}
/** A validated wire event. */
export interface SpeechEvent {
  audio_base64: string;
  content: string;
  alignment: Alignment | null;
  chunk_seq: number;
  chunk_audio_offset_sec: number;
}

/** What {@link inspectSpeechEvent} found: a usable event plus every fault, in a fixed order. */
export interface SpeechEventInspection {
  /**
   * The event with each invalid field replaced: `content` → `''`, `alignment` → `null` (also when
   * `chunk_seq` or the offset is invalid, since the snapshot can then not be placed), `chunk_seq` /
   * `chunk_audio_offset_sec` → the given fallbacks, `audio_base64` → `''`.
   */
  event: SpeechEvent;
  /** Faults in check order: JSON shape, audio_base64, content, chunk_seq, offset, alignment. */
  errors: SpeechEventError[];
  /** False when the event's audio cannot be used (not an object, or audio_base64 bad/missing). */
  audioValid: boolean;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}

function wrongType(eventIndex: number, field: string, expected: string, got: unknown): SpeechEventError {
  return new SpeechEventError('EVENT_WRONG_TYPE', `event ${eventIndex}: ${field} must be ${expected}, got ${describe(got)}`, {
    eventIndex,
    field,
  });
}

function missing(eventIndex: number, field: string): SpeechEventError {
  return new SpeechEventError('EVENT_MISSING_FIELD', `event ${eventIndex}: required field ${field} is missing`, {
    eventIndex,
    field,
  });
}

/**
 * A required number field that must be >= 0 (`chunk_seq`, `chunk_audio_offset_sec`): its value,
 * or undefined with the fault (missing, wrong type, negative) pushed to `errors`.
 */
function requiredNonNegative(
  json: Record<string, unknown>,
  field: string,
  expected: string,
  isValid: (n: number) => boolean,
  eventIndex: number,
  errors: SpeechEventError[],
): number | undefined {
  const v = json[field];
  if (v === undefined) {
    errors.push(missing(eventIndex, field));
    return undefined;
  }
  if (typeof v !== 'number' || !isValid(v)) {
    errors.push(wrongType(eventIndex, field, expected, v));
    return undefined;
  }
  if (v < 0) {
    errors.push(
      new SpeechEventError('EVENT_NEGATIVE_VALUE', `event ${eventIndex}: ${field} must be >= 0, got ${v}`, { eventIndex, field }),
    );
    return undefined;
  }
  return v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function badShape(eventIndex: number, field: string, why: string): SpeechEventError {
  return new SpeechEventError('ALIGNMENT_BAD_SHAPE', `event ${eventIndex}: ${field} ${why}`, { eventIndex, field });
}

/**
 * Validates an alignment snapshot (not null). Returns the first fault, or null when it is good.
 * Numbers must be finite (JSON cannot carry NaN, but 1e999 parses to Infinity) and each segment
 * needs start ≤ end. Negative times are tolerated (the spec gives no lower bound).
 */
export function alignmentFault(json: unknown, eventIndex: number): SpeechEventError | null {
  const base = 'alignment';
  if (!isObject(json)) return badShape(eventIndex, base, `must be an object or null, got ${describe(json)}`);
  const dur = json['audio_duration'];
  if (typeof dur !== 'number' || !Number.isFinite(dur)) {
    return badShape(eventIndex, `${base}.audio_duration`, `must be a finite number, got ${String(dur)}`);
  }
  const segs = json['segments'];
  if (!Array.isArray(segs)) return badShape(eventIndex, `${base}.segments`, `must be an array, got ${describe(segs)}`);
  for (let i = 0; i < segs.length; i++) {
    const fault = segmentFault(segs[i], i, eventIndex);
    if (fault) return fault;
  }
  return null;
}

/** Built only for a fault: {@link segmentFault} runs for every new word on the hot path. */
function segField(i: number): string {
  return `alignment.segments[${i}]`;
}

/** The first fault of segment `i` of a snapshot (see {@link alignmentFault}), or null. */
export function segmentFault(seg: unknown, i: number, eventIndex: number): SpeechEventError | null {
  if (!isObject(seg)) return badShape(eventIndex, segField(i), `must be an object, got ${describe(seg)}`);
  if (typeof seg['text'] !== 'string') return badShape(eventIndex, `${segField(i)}.text`, `must be a string, got ${describe(seg['text'])}`);
  const start = seg['start'];
  const end = seg['end'];
  if (typeof start !== 'number' || !Number.isFinite(start)) {
    return badShape(eventIndex, `${segField(i)}.start`, `must be a finite number, got ${String(start)}`);
  }
  if (typeof end !== 'number' || !Number.isFinite(end)) {
    return badShape(eventIndex, `${segField(i)}.end`, `must be a finite number, got ${String(end)}`);
  }
  if (start > end) return badShape(eventIndex, segField(i), `has start ${start} > end ${end}`);
  return null;
}

/** A validated segment's typed copy (only the known fields). */
export function toSegment(s: Record<string, unknown>): AlignmentSegment {
  return { text: s['text'] as string, start: s['start'] as number, end: s['end'] as number };
}

/**
 * Builds the typed alignment from validated JSON, keeping only the known fields (so that an
 * alignment compares equal whatever extra keys the wire carried).
 */
function toAlignment(json: Record<string, unknown>): Alignment {
  const segs = json['segments'] as Record<string, unknown>[];
  const segments: AlignmentSegment[] = new Array<AlignmentSegment>(segs.length);
  for (let i = 0; i < segs.length; i++) segments[i] = toSegment(segs[i]!);
  return { audio_duration: json['audio_duration'] as number, segments };
}

/** Validates and returns an alignment (or null) from JSON; throws ALIGNMENT_BAD_SHAPE. */
export function validateAlignment(json: unknown, eventIndex: number): Alignment | null {
  if (json === null || json === undefined) return null;
  const fault = alignmentFault(json, eventIndex);
  if (fault) throw fault;
  return toAlignment(json as Record<string, unknown>);
}

/**
 * Checks every field of a parsed event and returns a usable event plus all faults. The skip mode
 * of the event stage uses it to keep valid audio while dropping a bad alignment.
 */
export function inspectSpeechEvent(json: unknown, eventIndex: number, fallbackChunkSeq = 0, fallbackOffsetSec = 0): SpeechEventInspection {
  const errors: SpeechEventError[] = [];
  const event: SpeechEvent = {
    audio_base64: '',
    content: '',
    alignment: null,
    chunk_seq: fallbackChunkSeq,
    chunk_audio_offset_sec: fallbackOffsetSec,
  };
  if (!isObject(json)) {
    errors.push(wrongType(eventIndex, '(event)', 'a JSON object', json));
    return { event, errors, audioValid: false };
  }
  let audioValid = false;
  const audio = json['audio_base64'];
  if (audio === undefined) errors.push(missing(eventIndex, 'audio_base64'));
  else if (typeof audio !== 'string') errors.push(wrongType(eventIndex, 'audio_base64', 'a string', audio));
  else {
    const fault = base64Fault(audio);
    if (fault !== null) {
      errors.push(
        new SpeechEventError('AUDIO_BAD_BASE64', `event ${eventIndex}: audio_base64 is not strict base64: ${fault}`, {
          eventIndex,
          field: 'audio_base64',
        }),
      );
    } else {
      event.audio_base64 = audio;
      audioValid = true;
    }
  }

  const content = json['content'];
  if (content !== undefined) {
    if (typeof content === 'string') event.content = content;
    else errors.push(wrongType(eventIndex, 'content', 'a string', content));
  }

  // An invalid chunk_seq or offset leaves the snapshot with no place on the global timeline.
  let placeable = true;
  const seq = requiredNonNegative(json, 'chunk_seq', 'an integer', Number.isInteger, eventIndex, errors);
  if (seq === undefined) placeable = false;
  else event.chunk_seq = seq;
  const off = requiredNonNegative(json, 'chunk_audio_offset_sec', 'a finite number', Number.isFinite, eventIndex, errors);
  if (off === undefined) placeable = false;
  else event.chunk_audio_offset_sec = off;

  const al = json['alignment'];
  if (al !== undefined && al !== null) {
    const fault = alignmentFault(al, eventIndex);
    if (fault) errors.push(fault);
    else if (placeable) event.alignment = toAlignment(al as Record<string, unknown>);
  }
  return { event, errors, audioValid };
}

/** Validates a parsed event. Throws the first {@link SpeechEventError} found. */
export function validateSpeechEvent(json: unknown, eventIndex: number): SpeechEvent {
  const r = inspectSpeechEvent(json, eventIndex);
  if (r.errors.length > 0) throw r.errors[0]!;
  return r.event;
}

/** Parses JSON text (EVENT_INVALID_JSON on failure); the JSON value, never throws anything else. */
export function parseEventJson(data: string, eventIndex: number): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch (cause) {
    throw new SpeechEventError('EVENT_INVALID_JSON', `event ${eventIndex}: data is not valid JSON (${(cause as Error).message})`, {
      eventIndex,
      field: '(data)',
      cause,
    });
  }
}

/**
 * The general path for one event's `data`: JSON.parse + {@link validateSpeechEvent}.
 * @example
 * ```ts
 * let index = 0;
 * const parser = createSseParser({
 *   onEvent: (e) => { if (e.event === 'message') handle(parseSpeechEventData(e.data, index++)); },
 * }); // a bad event throws SpeechEventError (EVENT_INVALID_JSON, AUDIO_BAD_BASE64, ...) naming its index
 * ```
 */
export function parseSpeechEventData(data: string, eventIndex: number): SpeechEvent {
  return validateSpeechEvent(parseEventJson(data, eventIndex), eventIndex);
}
