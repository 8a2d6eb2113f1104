/**
 * Plivo audio stream wire messages (`<Stream bidirectional="true">`): parse and check what Plivo
 * sends, build what we send. Pure: no socket here. Audio is raw μ-law or L16, base64 in JSON.
 *
 * @see docs/telephony.md#plivo
 */
import { base64, checkBase64, fail, isObject, num, obj, optNum, optStr, parseObject, str, type Json } from './wire.js';

const PROVIDER = 'Plivo';

export const PLIVO_MULAW = 'audio/x-mulaw';
export const PLIVO_L16 = 'audio/x-l16';
export type PlivoContentType = typeof PLIVO_MULAW | typeof PLIVO_L16;
/** μ-law runs at 8 kHz only; L16 at 8 or 16 kHz (Plivo's playAudio and `contentType` lists). */
export const PLIVO_MULAW_RATE = 8000;
export const PLIVO_L16_RATES: readonly number[] = [8000, 16000];
/**
 * Plivo's pages do not state the byte order of `audio/x-l16`. Assumed little-endian (x86 host
 * order, as every other provider here that sends raw PCM in JSON); not confirmed by Plivo's
 * documentation. docs/telephony.md#plivo says how to check it on a live call.
 */
export const PLIVO_L16_BYTE_ORDER = 'le';

export interface PlivoMediaFormat {
  encoding: string;
  sampleRate: number;
}

export interface PlivoStart {
  streamId: string;
  callId: string;
  accountId: string;
  tracks: string[];
  mediaFormat: PlivoMediaFormat;
  /** `extra_headers` as sent (`a=1;b=2`, or `a=1,b=2` as the XML attribute is written). */
  extraHeaders: string;
  /** The same, split into pairs. */
  headers: Record<string, string>;
}

export type PlivoInbound =
  | { event: 'start'; sequenceNumber: number; start: PlivoStart }
  | { event: 'media'; sequenceNumber: number; streamId: string; track: string; chunk: number; timestamp: number; payload: string }
  | { event: 'dtmf'; sequenceNumber: number; streamId: string; digit: string }
  /** The answer to a `checkpoint` (some of Plivo's pages call it `played`: both parse to this). */
  | { event: 'playedStream'; sequenceNumber: number; streamId: string; name: string }
  | { event: 'clearedAudio'; sequenceNumber: number; streamId: string }
  | { event: 'unknown'; name: string };

export type PlivoCommand =
  | { event: 'playAudio'; contentType: PlivoContentType; sampleRate: number; payload: string }
  | { event: 'checkpoint'; streamId: string; name: string }
  | { event: 'clearAudio'; streamId: string };

/** Splits `a=1;b=2` (or `a=1,b=2`) into pairs; pieces without `=` are dropped. */
export function parsePlivoExtraHeaders(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const piece of text.split(/[;,]/)) {
    const eq = piece.indexOf('=');
    if (eq <= 0) continue;
    out[piece.slice(0, eq).trim()] = piece.slice(eq + 1).trim();
  }
  return out;
}

/**
 * Parses one text frame from Plivo. Throws a TelephonyError (`TELEPHONY_PROTOCOL`, with `field`)
 * for malformed JSON or a known event missing what we use; unknown events come back as
 * `{event: 'unknown'}`.
 */
export function parsePlivoMessage(text: string): PlivoInbound {
  const m = parseObject(PROVIDER, text);
  const event = str(PROVIDER, m, 'event', 'message');
  const seq = optNum(m, 'sequenceNumber', -1);
  const streamId = optStr(m, 'streamId', '');
  switch (event) {
    case 'start': {
      const s = obj(PROVIDER, m['start'], 'start', seq);
      const f = obj(PROVIDER, s['mediaFormat'], 'start.mediaFormat', seq);
      const extraHeaders = optStr(m, 'extra_headers', optStr(s, 'extra_headers', ''));
      return {
        event,
        sequenceNumber: seq,
        start: {
          streamId: str(PROVIDER, s, 'streamId', 'start', seq),
          callId: str(PROVIDER, s, 'callId', 'start', seq),
          accountId: optStr(s, 'accountId', ''),
          tracks: Array.isArray(s['tracks']) ? s['tracks'].filter((t): t is string => typeof t === 'string') : [],
          mediaFormat: {
            encoding: str(PROVIDER, f, 'encoding', 'start.mediaFormat', seq),
            sampleRate: num(PROVIDER, f, 'sampleRate', 'start.mediaFormat', seq),
          },
          extraHeaders,
          headers: parsePlivoExtraHeaders(extraHeaders),
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
    case 'dtmf': {
      // The digit sits in a `dtmf` object; a top-level `digit` is read too.
      const d: Json = isObject(m['dtmf']) ? m['dtmf'] : m;
      return { event, sequenceNumber: seq, streamId, digit: str(PROVIDER, d, 'digit', d === m ? 'message' : 'dtmf', seq) };
    }
    case 'playedStream':
    case 'played':
      return { event: 'playedStream', sequenceNumber: seq, streamId, name: str(PROVIDER, m, 'name', 'message', seq) };
    case 'clearedAudio':
      return { event, sequenceNumber: seq, streamId };
    default:
      return { event: 'unknown', name: event };
  }
}

/** Throws unless the stream is μ-law 8 kHz or L16 8/16 kHz. */
export function checkPlivoMediaFormat(format: PlivoMediaFormat): PlivoContentType {
  if (format.encoding !== PLIVO_MULAW && format.encoding !== PLIVO_L16) {
    fail(
      PROVIDER,
      'start.mediaFormat.encoding',
      `unsupported encoding ${JSON.stringify(format.encoding)}; expected ${PLIVO_MULAW} or ${PLIVO_L16}`,
    );
  }
  const rates = format.encoding === PLIVO_L16 ? PLIVO_L16_RATES : [PLIVO_MULAW_RATE];
  if (!rates.includes(format.sampleRate)) {
    fail(
      PROVIDER,
      'start.mediaFormat.sampleRate',
      `unsupported ${format.encoding} sample rate ${format.sampleRate}; expected ${rates.join(' or ')}`,
    );
  }
  return format.encoding;
}

// ---------------------------------------------------------------------------------------------
// Outbound.

/** `{event:"playAudio", media:{contentType, sampleRate, payload}}`: raw audio, base64. */
export function plivoPlayAudioMessage(contentType: PlivoContentType, sampleRate: number, audio: Uint8Array): string {
  return `{"event":"playAudio","media":{"contentType":"${contentType}","sampleRate":${sampleRate},"payload":"${base64(audio)}"}}`;
}

export function plivoCheckpointMessage(streamIdJson: string, name: string): string {
  return `{"event":"checkpoint","streamId":${streamIdJson},"name":${JSON.stringify(name)}}`;
}

export function plivoClearAudioMessage(streamIdJson: string): string {
  return `{"event":"clearAudio","streamId":${streamIdJson}}`;
}

/** Reads back what we send (for peers, logs and round-trip tests); same errors as the inbound parser. */
export function parsePlivoCommand(text: string): PlivoCommand {
  const m = parseObject(PROVIDER, text);
  const event = str(PROVIDER, m, 'event', 'message');
  switch (event) {
    case 'playAudio': {
      const md = obj(PROVIDER, m['media'], 'media');
      const contentType = str(PROVIDER, md, 'contentType', 'media');
      const sampleRate = num(PROVIDER, md, 'sampleRate', 'media');
      if (contentType !== PLIVO_MULAW && contentType !== PLIVO_L16)
        fail(PROVIDER, 'media.contentType', `unsupported contentType ${contentType}`);
      const rates = contentType === PLIVO_L16 ? PLIVO_L16_RATES : [PLIVO_MULAW_RATE];
      if (!rates.includes(sampleRate)) fail(PROVIDER, 'media.sampleRate', `unsupported ${contentType} sample rate ${sampleRate}`);
      return {
        event,
        contentType,
        sampleRate,
        payload: checkBase64(PROVIDER, str(PROVIDER, md, 'payload', 'media'), 'media.payload'),
      };
    }
    case 'checkpoint':
      return { event, streamId: str(PROVIDER, m, 'streamId', 'message'), name: str(PROVIDER, m, 'name', 'message') };
    case 'clearAudio':
      return { event, streamId: str(PROVIDER, m, 'streamId', 'message') };
    default:
      return fail(PROVIDER, 'event', `unknown command ${JSON.stringify(event)}`);
  }
}
