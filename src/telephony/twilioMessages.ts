/**
 * Twilio Media Streams wire messages (bidirectional `<Connect><Stream>`): parse and check what
 * Twilio sends, build what we send. Pure: no socket here.
 *
 * @see docs/service-interface.md#twilio-media-streams
 */
import { TelephonyError } from '../errors.js';

/** The only media format a bidirectional stream carries. */
export const TWILIO_ENCODING = 'audio/x-mulaw';
export const TWILIO_SAMPLE_RATE = 8000;
/** Samples per millisecond on the line. */
export const TWILIO_SAMPLES_PER_MS = TWILIO_SAMPLE_RATE / 1000;
export const TWILIO_CHANNELS = 1;

export interface MediaFormat {
  encoding: string;
  sampleRate: number;
  channels: number;
}

export interface StartInfo {
  streamSid: string;
  callSid: string;
  accountSid: string;
  tracks: string[];
  customParameters: Record<string, string>;
  mediaFormat: MediaFormat;
}

export type InboundMessage =
  | { event: 'connected'; protocol: string; version: string }
  | { event: 'start'; sequenceNumber: number; start: StartInfo }
  | { event: 'media'; sequenceNumber: number; track: string; chunk: number; timestamp: number; payload: string }
  | { event: 'mark'; sequenceNumber: number; name: string }
  | { event: 'dtmf'; sequenceNumber: number; track: string; digit: string }
  | { event: 'stop'; sequenceNumber: number; callSid: string }
  | { event: 'unknown'; name: string };

type Json = Record<string, unknown>;

function fail(field: string, message: string, sequenceNumber?: number): never {
  const where = sequenceNumber === undefined ? '' : ` (message #${sequenceNumber})`;
  throw new TelephonyError('TELEPHONY_PROTOCOL', `${message}${where}`, { field });
}

function obj(v: unknown, field: string, seq?: number): Json {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(field, `${field} must be an object`, seq);
  return v as Json;
}

function str(o: Json, key: string, path: string, seq?: number): string {
  const v = o[key];
  if (typeof v !== 'string') fail(`${path}.${key}`, `${path}.${key} must be a string`, seq);
  return v;
}

function optStr(o: Json, key: string, fallback: string): string {
  const v = o[key];
  return typeof v === 'string' ? v : fallback;
}

/** Twilio sends numbers as strings (`"sequenceNumber": "3"`); accept both. */
function num(o: Json, key: string, path: string, seq?: number): number {
  const v = o[key];
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) fail(`${path}.${key}`, `${path}.${key} must be a number`, seq);
  return n;
}

function optNum(o: Json, key: string, fallback: number): number {
  const v = o[key];
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : fallback;
}

function stringRecord(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof v !== 'object' || v === null) return out;
  for (const [k, val] of Object.entries(v as Json)) {
    if (typeof val === 'string') out[k] = val;
    else if (typeof val === 'number' || typeof val === 'boolean') out[k] = String(val);
  }
  return out;
}

/**
 * Parses one text frame from Twilio. Throws a {@link TelephonyError} (`TELEPHONY_PROTOCOL`, with
 * `field`) for malformed JSON or a known event missing a field; unknown events come back as
 * `{event: 'unknown'}` so a newer Twilio never breaks a call.
 */
export function parseInboundMessage(text: string): InboundMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw new TelephonyError('TELEPHONY_PROTOCOL', 'Twilio message is not valid JSON', { field: 'message', cause });
  }
  const m = obj(raw, 'message');
  const event = str(m, 'event', 'message');
  if (event === 'connected') {
    return { event, protocol: optStr(m, 'protocol', ''), version: optStr(m, 'version', '') };
  }
  const seq = optNum(m, 'sequenceNumber', -1);
  switch (event) {
    case 'start': {
      const s = obj(m['start'], 'start', seq);
      const fmt = obj(s['mediaFormat'], 'start.mediaFormat', seq);
      const tracks = Array.isArray(s['tracks']) ? s['tracks'].filter((t): t is string => typeof t === 'string') : [];
      return {
        event,
        sequenceNumber: seq,
        start: {
          streamSid: typeof s['streamSid'] === 'string' ? s['streamSid'] : str(m, 'streamSid', 'message', seq),
          callSid: str(s, 'callSid', 'start', seq),
          accountSid: optStr(s, 'accountSid', ''),
          tracks,
          customParameters: stringRecord(s['customParameters']),
          mediaFormat: {
            encoding: str(fmt, 'encoding', 'start.mediaFormat', seq),
            sampleRate: num(fmt, 'sampleRate', 'start.mediaFormat', seq),
            channels: num(fmt, 'channels', 'start.mediaFormat', seq),
          },
        },
      };
    }
    case 'media': {
      const md = obj(m['media'], 'media', seq);
      return {
        event,
        sequenceNumber: seq,
        track: optStr(md, 'track', 'inbound'),
        chunk: optNum(md, 'chunk', -1),
        timestamp: optNum(md, 'timestamp', -1),
        payload: str(md, 'payload', 'media', seq),
      };
    }
    case 'mark':
      return { event, sequenceNumber: seq, name: str(obj(m['mark'], 'mark', seq), 'name', 'mark', seq) };
    case 'dtmf': {
      const d = obj(m['dtmf'], 'dtmf', seq);
      return { event, sequenceNumber: seq, track: optStr(d, 'track', 'inbound_track'), digit: str(d, 'digit', 'dtmf', seq) };
    }
    case 'stop': {
      const st = m['stop'];
      const callSid = typeof st === 'object' && st !== null ? optStr(st as Json, 'callSid', '') : '';
      return { event, sequenceNumber: seq, callSid };
    }
    default:
      return { event: 'unknown', name: event };
  }
}

/** Throws unless the stream is the μ-law 8 kHz mono that bidirectional streams carry. */
export function checkMediaFormat(format: MediaFormat): void {
  if (format.encoding !== TWILIO_ENCODING) {
    fail('start.mediaFormat.encoding', `unsupported media encoding ${JSON.stringify(format.encoding)}; expected ${TWILIO_ENCODING}`);
  }
  if (format.sampleRate !== TWILIO_SAMPLE_RATE) {
    fail('start.mediaFormat.sampleRate', `unsupported sample rate ${format.sampleRate}; expected ${TWILIO_SAMPLE_RATE}`);
  }
  if (format.channels !== TWILIO_CHANNELS) {
    fail('start.mediaFormat.channels', `unsupported channel count ${format.channels}; expected ${TWILIO_CHANNELS}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Outbound. Built as strings by hand: one small string per message, no intermediate objects.

/** `{event:"media", streamSid, media:{payload}}`: raw μ-law bytes, base64, no file header. */
export function mediaMessage(streamSidJson: string, mulaw: Uint8Array): string {
  const b64 = Buffer.from(mulaw.buffer, mulaw.byteOffset, mulaw.byteLength).toString('base64');
  return `{"event":"media","streamSid":${streamSidJson},"media":{"payload":"${b64}"}}`;
}

export function markMessage(streamSidJson: string, name: string): string {
  return `{"event":"mark","streamSid":${streamSidJson},"mark":{"name":${JSON.stringify(name)}}}`;
}

export function clearMessage(streamSidJson: string): string {
  return `{"event":"clear","streamSid":${streamSidJson}}`;
}
