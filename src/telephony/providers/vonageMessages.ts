/**
 * Vonage Voice API WebSocket wire messages (an NCCO `connect` to a `websocket` endpoint): the
 * first text frame `websocket:connected`, then binary L16 audio both ways in 20 ms frames, JSON
 * events from Vonage (`websocket:cleared`, `websocket:notify`, `websocket:dtmf`) and JSON
 * commands from us (`clear`, `notify`). Pure: no socket here.
 *
 * @see docs/telephony.md#vonage
 */
import { TelephonyError } from '../../errors.js';
import { fail, isObject, optNum, parseObject, str, type Json } from './wire.js';

const PROVIDER = 'Vonage';

/** `content-type` values: `audio/l16;rate=8000` or `audio/l16;rate=16000`. */
export const VONAGE_CONTENT_TYPE_PREFIX = 'audio/l16;rate=';
export const VONAGE_RATES: readonly number[] = [8000, 16000];
/** Vonage documents its L16 frames as little-endian. */
export const VONAGE_L16_BYTE_ORDER = 'le';
/** Every binary frame, either way, is 20 ms of audio. */
export const VONAGE_FRAME_MS = 20;
const BYTES_PER_SAMPLE = 2;
const MS_PER_SECOND = 1000;
/**
 * Vonage buffers at most this many frames we send (about a minute at 20 ms); its "play audio
 * into a WebSocket" tutorial asks for pacing beyond that.
 */
export const VONAGE_MAX_BUFFERED_FRAMES = 3072;

/** Bytes in one 20 ms frame: 320 at 8 kHz, 640 at 16 kHz. */
export function vonageFrameBytes(sampleRate: number): number {
  return ((sampleRate * VONAGE_FRAME_MS) / MS_PER_SECOND) * BYTES_PER_SAMPLE;
}

export interface VonageConnected {
  contentType: string;
  sampleRate: number;
  /**
   * Every other top-level field: the NCCO endpoint's `headers`. Strings as they are; numbers and
   * booleans as text; objects, arrays and null as their JSON text (`JSON.parse` gives them back).
   */
  headers: Record<string, string>;
}

export type VonageInbound =
  | ({ event: 'websocket:connected' } & VonageConnected)
  | { event: 'websocket:cleared' }
  /** `name` is `payload.name` when it is a string (what {@link vonageNotifyMessage} sends), else ''. */
  | { event: 'websocket:notify'; name: string; payload: Json }
  | { event: 'websocket:dtmf'; digit: string; duration: number }
  | { event: 'unknown'; name: string };

export type VonageCommand = { action: 'clear' } | { action: 'notify'; name: string; payload: Json };

/** `audio/l16;rate=16000` → 16000; throws for anything else. */
export function parseVonageContentType(contentType: string, field = 'content-type'): number {
  const lower = contentType.replace(/\s+/g, '').toLowerCase();
  const rate = lower.startsWith(VONAGE_CONTENT_TYPE_PREFIX) ? Number(lower.slice(VONAGE_CONTENT_TYPE_PREFIX.length)) : NaN;
  if (!VONAGE_RATES.includes(rate)) {
    const expected = VONAGE_RATES.map((r) => VONAGE_CONTENT_TYPE_PREFIX + r).join(' or ');
    fail(PROVIDER, field, `unsupported content-type ${JSON.stringify(contentType)}; expected ${expected}`);
  }
  return rate;
}

/**
 * Parses one text frame from Vonage. Throws a TelephonyError (`TELEPHONY_PROTOCOL`, with `field`)
 * for malformed JSON or a known event missing what we use; unknown events come back as
 * `{event: 'unknown'}`.
 */
export function parseVonageMessage(text: string): VonageInbound {
  const m = parseObject(PROVIDER, text);
  const event = str(PROVIDER, m, 'event', 'message');
  switch (event) {
    case 'websocket:connected': {
      const contentType = str(PROVIDER, m, 'content-type', 'message');
      const sampleRate = parseVonageContentType(contentType);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(m)) {
        if (k === 'event' || k === 'content-type') continue;
        headers[k] = headerText(v);
      }
      return { event, contentType, sampleRate, headers };
    }
    case 'websocket:cleared':
      return { event };
    case 'websocket:notify': {
      const payload = isObject(m['payload']) ? m['payload'] : {};
      return { event, name: typeof payload['name'] === 'string' ? payload['name'] : '', payload };
    }
    case 'websocket:dtmf':
      return { event, digit: str(PROVIDER, m, 'digit', 'message'), duration: optNum(m, 'duration', 0) };
    default:
      return { event: 'unknown', name: event };
  }
}

/** One header value as text: a string as it is, anything else as its JSON text (`3`, `true`, `{"a":1}`). */
function headerText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Checks one binary audio frame: whole 16-bit samples, and (when `exact`) exactly 20 ms at
 * `sampleRate`. Returns the sample count.
 */
export function checkVonageAudioFrame(bytes: Uint8Array, sampleRate: number, exact = true): number {
  const expected = vonageFrameBytes(sampleRate);
  if (bytes.length % BYTES_PER_SAMPLE !== 0 || (exact && bytes.length !== expected)) {
    throw new TelephonyError(
      'TELEPHONY_PROTOCOL',
      `${PROVIDER}: audio frame of ${bytes.length} bytes; expected ${expected} (${VONAGE_FRAME_MS} ms of L16 at ${sampleRate} Hz)`,
      { field: 'audio' },
    );
  }
  return bytes.length / BYTES_PER_SAMPLE;
}

// ---------------------------------------------------------------------------------------------
// Outbound (audio itself goes as binary frames, no envelope).

export function vonageClearMessage(): string {
  return '{"action":"clear"}';
}

/**
 * `{action:"notify", payload:{name}}`: Vonage answers `websocket:notify` with the same payload once the
 * audio before it has played.
 */
export function vonageNotifyMessage(name: string): string {
  return `{"action":"notify","payload":{"name":${JSON.stringify(name)}}}`;
}

/** Reads back what we send (for peers, logs and round-trip tests); same errors as the inbound parser. */
export function parseVonageCommand(text: string): VonageCommand {
  const m = parseObject(PROVIDER, text);
  const action = str(PROVIDER, m, 'action', 'message');
  if (action === 'clear') return { action };
  if (action === 'notify') {
    const payload = isObject(m['payload']) ? m['payload'] : fail(PROVIDER, 'payload', 'notify.payload must be an object');
    return { action, name: typeof payload['name'] === 'string' ? payload['name'] : '', payload };
  }
  return fail(PROVIDER, 'action', `unknown command ${JSON.stringify(action)}`);
}
