/**
 * Exotel Voicebot applet (bidirectional stream) wire messages: parse and check what Exotel sends,
 * build what we send, and the chunk-size rule for the audio we send. Pure: no socket here. Audio
 * is raw 16-bit little-endian PCM ("slin"), base64 in JSON.
 *
 * @see docs/telephony.md#exotel
 */
import { TelephonyError } from '../../errors.js';
import { base64, checkBase64, fail, num, obj, optNum, optStr, parseObject, str, stringRecord } from './wire.js';

const PROVIDER = 'Exotel';

/** Exotel's name for raw 16-bit PCM in `start.media_format.encoding`. */
export const EXOTEL_ENCODING = 'audio/x-raw';
/** 8 kHz by default; `?sample-rate=16000` (or 24000) on the stream URL asks for more. */
export const EXOTEL_RATES: readonly number[] = [8000, 16000, 24000];
export const EXOTEL_BITS = 16;
export const EXOTEL_L16_BYTE_ORDER = 'le';
/** Every chunk we send is a multiple of this many bytes (20 ms at 8 kHz). */
export const EXOTEL_CHUNK_MULTIPLE = 320;
/**
 * Smallest chunk: 3.2 KB (below it, network jitter breaks the audio). Exotel labels it "100 ms";
 * in s16 that is 100 ms at 16 kHz but 200 ms at 8 kHz: the byte figure is the rule kept here.
 */
export const EXOTEL_MIN_CHUNK = 3200;
/** Largest chunk ("100k" in Exotel's chunk-size window, read as 100 000 bytes): above it, timeouts. */
export const EXOTEL_MAX_CHUNK = 100_000;
/** The largest chunk that is also a multiple of {@link EXOTEL_CHUNK_MULTIPLE}. */
export const EXOTEL_MAX_ALIGNED_CHUNK = EXOTEL_MAX_CHUNK - (EXOTEL_MAX_CHUNK % EXOTEL_CHUNK_MULTIPLE);

export interface ExotelMediaFormat {
  encoding: string;
  sampleRate: number;
  bitRate: number;
}

export interface ExotelStart {
  streamSid: string;
  callSid: string;
  accountSid: string;
  from: string;
  to: string;
  customParameters: Record<string, string>;
  mediaFormat: ExotelMediaFormat;
}

export type ExotelInbound =
  | { event: 'connected' }
  | { event: 'start'; sequenceNumber: number; start: ExotelStart }
  | { event: 'media'; sequenceNumber: number; streamSid: string; chunk: number; timestamp: number; payload: string }
  | { event: 'dtmf'; sequenceNumber: number; streamSid: string; digit: string; duration: number }
  | { event: 'mark'; sequenceNumber: number; streamSid: string; name: string }
  | { event: 'stop'; sequenceNumber: number; streamSid: string; reason: string }
  | { event: 'unknown'; name: string };

export type ExotelCommand =
  | { event: 'media'; streamSid: string; payload: string }
  | { event: 'mark'; streamSid: string; name: string }
  | { event: 'clear'; streamSid: string };

/**
 * Parses one text frame from Exotel. Throws a TelephonyError (`TELEPHONY_PROTOCOL`, with `field`)
 * for malformed JSON or a known event missing what we use; unknown events come back as
 * `{event: 'unknown'}`.
 */
export function parseExotelMessage(text: string): ExotelInbound {
  const m = parseObject(PROVIDER, text);
  const event = str(PROVIDER, m, 'event', 'message');
  if (event === 'connected') return { event };
  const seq = optNum(m, 'sequence_number', -1);
  const streamSid = optStr(m, 'stream_sid', '');
  switch (event) {
    case 'start': {
      const s = obj(PROVIDER, m['start'], 'start', seq);
      const f = obj(PROVIDER, s['media_format'], 'start.media_format', seq);
      return {
        event,
        sequenceNumber: seq,
        start: {
          streamSid: typeof s['stream_sid'] === 'string' ? s['stream_sid'] : str(PROVIDER, m, 'stream_sid', 'message', seq),
          callSid: str(PROVIDER, s, 'call_sid', 'start', seq),
          accountSid: optStr(s, 'account_sid', ''),
          from: optStr(s, 'from', ''),
          to: optStr(s, 'to', ''),
          customParameters: stringRecord(s['custom_parameters']),
          mediaFormat: {
            encoding: str(PROVIDER, f, 'encoding', 'start.media_format', seq),
            sampleRate: num(PROVIDER, f, 'sample_rate', 'start.media_format', seq),
            bitRate: optNum(f, 'bit_rate', EXOTEL_BITS),
          },
        },
      };
    }
    case 'media': {
      const md = obj(PROVIDER, m['media'], 'media', seq);
      return {
        event,
        sequenceNumber: seq,
        streamSid,
        chunk: optNum(md, 'chunk', -1),
        timestamp: optNum(md, 'timestamp', -1),
        payload: checkBase64(PROVIDER, str(PROVIDER, md, 'payload', 'media', seq), 'media.payload', seq),
      };
    }
    case 'dtmf': {
      const d = obj(PROVIDER, m['dtmf'], 'dtmf', seq);
      return { event, sequenceNumber: seq, streamSid, digit: str(PROVIDER, d, 'digit', 'dtmf', seq), duration: optNum(d, 'duration', 0) };
    }
    case 'mark':
      return { event, sequenceNumber: seq, streamSid, name: str(PROVIDER, obj(PROVIDER, m['mark'], 'mark', seq), 'name', 'mark', seq) };
    case 'stop': {
      const st = m['stop'];
      const reason = typeof st === 'object' && st !== null && !Array.isArray(st) ? optStr(st as Record<string, unknown>, 'reason', '') : '';
      return { event, sequenceNumber: seq, streamSid, reason };
    }
    default:
      return { event: 'unknown', name: event };
  }
}

/** Throws unless the stream is raw 16-bit PCM at a rate Exotel offers. */
export function checkExotelMediaFormat(format: ExotelMediaFormat): void {
  if (format.encoding !== EXOTEL_ENCODING) {
    fail(PROVIDER, 'start.media_format.encoding', `unsupported encoding ${JSON.stringify(format.encoding)}; expected ${EXOTEL_ENCODING}`);
  }
  if (!EXOTEL_RATES.includes(format.sampleRate)) {
    fail(PROVIDER, 'start.media_format.sample_rate', `unsupported sample rate ${format.sampleRate}; expected ${EXOTEL_RATES.join(', ')}`);
  }
  if (format.bitRate !== EXOTEL_BITS) {
    fail(PROVIDER, 'start.media_format.bit_rate', `unsupported sample size ${format.bitRate}; expected ${EXOTEL_BITS}`);
  }
}

/** Why a chunk of `bytes` breaks Exotel's chunk-size rule, or null when it keeps it. */
export function exotelChunkProblem(bytes: number): string | null {
  if (bytes % EXOTEL_CHUNK_MULTIPLE !== 0) return `${bytes} bytes is not a multiple of ${EXOTEL_CHUNK_MULTIPLE}`;
  if (bytes < EXOTEL_MIN_CHUNK) return `${bytes} bytes is under the ${EXOTEL_MIN_CHUNK}-byte minimum`;
  if (bytes > EXOTEL_MAX_CHUNK) return `${bytes} bytes is over the ${EXOTEL_MAX_CHUNK}-byte maximum`;
  return null;
}

/** Throws a TelephonyError (field `media.payload`) when a chunk breaks the rule. */
export function checkExotelChunk(bytes: number): void {
  const problem = exotelChunkProblem(bytes);
  if (problem !== null) throw new TelephonyError('TELEPHONY_PROTOCOL', `${PROVIDER}: chunk of ${problem}`, { field: 'media.payload' });
}

// ---------------------------------------------------------------------------------------------
// Outbound.

/** `{event:"media", stream_sid, media:{payload}}`: raw s16le, base64. The size rule is the caller's (see {@link checkExotelChunk}). */
export function exotelMediaMessage(streamSidJson: string, pcm: Uint8Array): string {
  return `{"event":"media","stream_sid":${streamSidJson},"media":{"payload":"${base64(pcm)}"}}`;
}

export function exotelMarkMessage(streamSidJson: string, name: string): string {
  return `{"event":"mark","stream_sid":${streamSidJson},"mark":{"name":${JSON.stringify(name)}}}`;
}

export function exotelClearMessage(streamSidJson: string): string {
  return `{"event":"clear","stream_sid":${streamSidJson}}`;
}

/** Reads back what we send (for peers, logs and round-trip tests); same errors as the inbound parser. */
export function parseExotelCommand(text: string): ExotelCommand {
  const m = parseObject(PROVIDER, text);
  const event = str(PROVIDER, m, 'event', 'message');
  const streamSid = str(PROVIDER, m, 'stream_sid', 'message');
  switch (event) {
    case 'media':
      return {
        event,
        streamSid,
        payload: checkBase64(PROVIDER, str(PROVIDER, obj(PROVIDER, m['media'], 'media'), 'payload', 'media'), 'media.payload'),
      };
    case 'mark':
      return { event, streamSid, name: str(PROVIDER, obj(PROVIDER, m['mark'], 'mark'), 'name', 'mark') };
    case 'clear':
      return { event, streamSid };
    default:
      return fail(PROVIDER, 'event', `unknown command ${JSON.stringify(event)}`);
  }
}
