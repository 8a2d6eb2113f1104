/**
 * Telnyx media streaming wire messages (Call Control `stream_url` with
 * `stream_bidirectional_mode: "rtp"`): parse and check what Telnyx sends, build what we send.
 * Pure: no socket here. Audio is the bare RTP payload (no RTP header), base64 in JSON.
 *
 * @see docs/telephony.md#telnyx
 */
import { base64, checkBase64, fail, isObject, num, obj, optNum, optStr, parseObject, str, stringRecord, type Json } from './wire.js';

const PROVIDER = 'Telnyx';

/** The RTP codecs we carry (G.722, Opus and AMR-WB are out of scope). */
export const TELNYX_ENCODINGS = ['PCMU', 'PCMA', 'L16'] as const;
export type TelnyxEncoding = (typeof TELNYX_ENCODINGS)[number];
/** G.711 (PCMU/PCMA) runs at 8 kHz only. */
export const TELNYX_G711_RATE = 8000;
/** L16 rates Telnyx's `stream_bidirectional_sampling_rate` offers that we accept. */
export const TELNYX_L16_RATES: readonly number[] = [8000, 16000];
export const TELNYX_CHANNELS = 1;
/** L16 as an RTP payload is network byte order (RFC 3551 §4.5.11). */
export const TELNYX_L16_BYTE_ORDER = 'be';
/** Telnyx plays RTP media chunks of 20 ms up to 30 s each (its bidirectional media notes). */
export const TELNYX_MIN_CHUNK_MS = 20;
export const TELNYX_MAX_CHUNK_MS = 30_000;

export interface TelnyxMediaFormat {
  encoding: string;
  sampleRate: number;
  channels: number;
}

export interface TelnyxStart {
  streamId: string;
  callControlId: string;
  callSessionId: string;
  from: string;
  to: string;
  /** Base64 client state given when streaming was started (empty when none). */
  clientState: string;
  customParameters: Record<string, string>;
  mediaFormat: TelnyxMediaFormat;
}

export interface TelnyxErrorInfo {
  code: number;
  title: string;
  detail: string;
}

export type TelnyxInbound =
  | { event: 'connected'; version: string }
  | { event: 'start'; sequenceNumber: number; start: TelnyxStart }
  | { event: 'media'; sequenceNumber: number; streamId: string; track: string; chunk: number; timestamp: number; payload: string }
  | { event: 'dtmf'; sequenceNumber: number; streamId: string; digit: string }
  | { event: 'mark'; sequenceNumber: number; streamId: string; name: string }
  | { event: 'stop'; sequenceNumber: number; streamId: string }
  | { event: 'error'; sequenceNumber: number; streamId: string; error: TelnyxErrorInfo }
  | { event: 'unknown'; name: string };

/** What we send: media (base64 RTP payload), a mark to be echoed after the media before it, clear. */
export type TelnyxCommand = { event: 'media'; payload: string } | { event: 'mark'; name: string } | { event: 'clear' };

/**
 * Parses one text frame from Telnyx. Throws a TelephonyError (`TELEPHONY_PROTOCOL`, with `field`)
 * for malformed JSON or a known event missing what we use; unknown events come back as
 * `{event: 'unknown'}` so a newer Telnyx never breaks a call.
 */
export function parseTelnyxMessage(text: string): TelnyxInbound {
  const m = parseObject(PROVIDER, text);
  const event = str(PROVIDER, m, 'event', 'message');
  if (event === 'connected') return { event, version: optStr(m, 'version', '') };
  const seq = optNum(m, 'sequence_number', -1);
  const streamId = optStr(m, 'stream_id', '');
  switch (event) {
    case 'start': {
      const s = obj(PROVIDER, m['start'], 'start', seq);
      const f = obj(PROVIDER, s['media_format'], 'start.media_format', seq);
      return {
        event,
        sequenceNumber: seq,
        start: {
          streamId: typeof s['stream_id'] === 'string' ? s['stream_id'] : str(PROVIDER, m, 'stream_id', 'message', seq),
          callControlId: str(PROVIDER, s, 'call_control_id', 'start', seq),
          callSessionId: optStr(s, 'call_session_id', ''),
          from: optStr(s, 'from', ''),
          to: optStr(s, 'to', ''),
          clientState: optStr(s, 'client_state', ''),
          customParameters: stringRecord(s['custom_parameters']),
          mediaFormat: {
            encoding: str(PROVIDER, f, 'encoding', 'start.media_format', seq),
            sampleRate: num(PROVIDER, f, 'sample_rate', 'start.media_format', seq),
            channels: optNum(f, 'channels', TELNYX_CHANNELS),
          },
        },
      };
    }
    case 'media': {
      const md = obj(PROVIDER, m['media'], 'media', seq);
      return {
        event,
        sequenceNumber: seq,
        streamId,
        track: optStr(md, 'track', 'inbound'),
        chunk: optNum(md, 'chunk', -1),
        timestamp: optNum(md, 'timestamp', -1),
        payload: checkBase64(PROVIDER, str(PROVIDER, md, 'payload', 'media', seq), 'media.payload', seq),
      };
    }
    case 'dtmf':
      return { event, sequenceNumber: seq, streamId, digit: str(PROVIDER, obj(PROVIDER, m['dtmf'], 'dtmf', seq), 'digit', 'dtmf', seq) };
    case 'mark':
      return { event, sequenceNumber: seq, streamId, name: str(PROVIDER, obj(PROVIDER, m['mark'], 'mark', seq), 'name', 'mark', seq) };
    case 'stop':
      return { event, sequenceNumber: seq, streamId };
    case 'error': {
      // The error body's key is `payload` in Telnyx's examples; `error` is read too.
      const body: Json = isObject(m['payload']) ? m['payload'] : isObject(m['error']) ? m['error'] : {};
      return {
        event,
        sequenceNumber: seq,
        streamId,
        error: { code: optNum(body, 'code', 0), title: optStr(body, 'title', ''), detail: optStr(body, 'detail', '') },
      };
    }
    default:
      return { event: 'unknown', name: event };
  }
}

/** Throws unless the stream is PCMU or PCMA at 8 kHz or L16 at 8/16 kHz, mono. */
export function checkTelnyxMediaFormat(format: TelnyxMediaFormat): TelnyxEncoding {
  const encoding = TELNYX_ENCODINGS.find((e) => e === format.encoding);
  if (encoding === undefined) {
    fail(
      PROVIDER,
      'start.media_format.encoding',
      `unsupported encoding ${JSON.stringify(format.encoding)}; expected ${TELNYX_ENCODINGS.join(', ')}`,
    );
  }
  const rates = encoding === 'L16' ? TELNYX_L16_RATES : [TELNYX_G711_RATE];
  if (!rates.includes(format.sampleRate)) {
    fail(
      PROVIDER,
      'start.media_format.sample_rate',
      `unsupported ${encoding} sample rate ${format.sampleRate}; expected ${rates.join(' or ')}`,
    );
  }
  if (format.channels !== TELNYX_CHANNELS) {
    fail(PROVIDER, 'start.media_format.channels', `unsupported channel count ${format.channels}; expected ${TELNYX_CHANNELS}`);
  }
  return encoding;
}

// ---------------------------------------------------------------------------------------------
// Outbound: one small string per message.

/** `{event:"media", media:{payload}}`: the RTP payload (codec bytes, no RTP header), base64. */
export function telnyxMediaMessage(payload: Uint8Array): string {
  return `{"event":"media","media":{"payload":"${base64(payload)}"}}`;
}

export function telnyxMarkMessage(name: string): string {
  return `{"event":"mark","mark":{"name":${JSON.stringify(name)}}}`;
}

export function telnyxClearMessage(): string {
  return '{"event":"clear"}';
}

/** Reads back what we send (for peers, logs and round-trip tests); same errors as the inbound parser. */
export function parseTelnyxCommand(text: string): TelnyxCommand {
  const m = parseObject(PROVIDER, text);
  const event = str(PROVIDER, m, 'event', 'message');
  switch (event) {
    case 'media':
      return {
        event,
        payload: checkBase64(PROVIDER, str(PROVIDER, obj(PROVIDER, m['media'], 'media'), 'payload', 'media'), 'media.payload'),
      };
    case 'mark':
      return { event, name: str(PROVIDER, obj(PROVIDER, m['mark'], 'mark'), 'name', 'mark') };
    case 'clear':
      return { event };
    default:
      return fail(PROVIDER, 'event', `unknown command ${JSON.stringify(event)}`);
  }
}
