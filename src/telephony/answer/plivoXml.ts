/**
 * Plivo XML for a bidirectional audio stream:
 * `<Response><Stream bidirectional="true" keepCallAlive="true" contentType="audio/x-mulaw;rate=8000" extraHeaders="k=v,…">wss://…</Stream></Response>`.
 *
 * From Plivo's `<Stream>` page: the WebSocket URL is the element's text; `bidirectional="true"`
 * lets the app send `playAudio`; `keepCallAlive="true"` runs the stream alone (the next elements
 * only after it disconnects); `contentType` is `audio/x-l16;rate=8000` (the default),
 * `audio/x-l16;rate=16000` or `audio/x-mulaw;rate=8000`; with `bidirectional`, `audioTrack` must
 * stay `inbound` (the default, so it is not written). `extraHeaders` are `key=value` pairs joined
 * by commas, at most 512 bytes, and only `[A-Za-z0-9]` are allowed: so a stream token goes in as
 * hex (`streamTokenToHex`), and anything else is refused here rather than mangled by Plivo.
 *
 * @see https://docs.plivo.com/docs/voice/xml/audiostream
 * @see https://docs.plivo.com/docs/voice/audio-streaming/overview-doc
 */
import { InvalidOptionError } from '../../errors.js';
import { XML_DECLARATION, checkWebSocketUrl, xmlAttribute, xmlText } from './xml.js';

export type PlivoContentType = 'audio/x-mulaw;rate=8000' | 'audio/x-l16;rate=8000' | 'audio/x-l16;rate=16000';
export const PLIVO_CONTENT_TYPES: readonly PlivoContentType[] = [
  'audio/x-mulaw;rate=8000',
  'audio/x-l16;rate=8000',
  'audio/x-l16;rate=16000',
];
/** Plivo: "Max length: 512 bytes". */
export const PLIVO_MAX_EXTRA_HEADERS_BYTES = 512;
/** Plivo: "Only characters [A-Z], [a-z], [0-9] allowed". */
const PLIVO_HEADER_CHARS = /^[A-Za-z0-9]+$/;

export interface PlivoStreamOptions {
  url: string;
  /** @defaultValue 'audio/x-mulaw;rate=8000' (what a Twilio-shaped core sends natively) */
  contentType?: PlivoContentType;
  /** Key-value pairs Plivo passes to the WebSocket (letters and digits only). */
  extraHeaders?: Readonly<Record<string, string>>;
}

/** `k1=v1,k2=v2`, checked against Plivo's character set and length. */
export function plivoExtraHeaders(headers: Readonly<Record<string, string>>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(headers)) {
    if (!PLIVO_HEADER_CHARS.test(k))
      throw new InvalidOptionError('extraHeaders', 'extraHeaders names may only hold A-Z, a-z and 0-9 (Plivo)');
    if (typeof v !== 'string' || !PLIVO_HEADER_CHARS.test(v)) {
      throw new InvalidOptionError(
        `extraHeaders.${k}`,
        `extraHeaders.${k} may only hold A-Z, a-z and 0-9 (Plivo); pass a stream token through streamTokenToHex`,
      );
    }
    parts.push(`${k}=${v}`);
  }
  const joined = parts.join(',');
  if (joined.length > PLIVO_MAX_EXTRA_HEADERS_BYTES) {
    throw new InvalidOptionError('extraHeaders', `extraHeaders is ${joined.length} bytes; Plivo allows ${PLIVO_MAX_EXTRA_HEADERS_BYTES}`);
  }
  return joined;
}

export function plivoStreamXml(options: PlivoStreamOptions): string {
  const url = xmlText(checkWebSocketUrl(options.url), 'url');
  const contentType = options.contentType ?? 'audio/x-mulaw;rate=8000';
  if (!PLIVO_CONTENT_TYPES.includes(contentType))
    throw new InvalidOptionError('contentType', `contentType must be one of ${PLIVO_CONTENT_TYPES.join(', ')}`);
  const headers = options.extraHeaders === undefined ? '' : plivoExtraHeaders(options.extraHeaders);
  const headersAttr = headers === '' ? '' : ` extraHeaders="${xmlAttribute(headers, 'extraHeaders')}"`;
  const attributes = `bidirectional="true" keepCallAlive="true" contentType="${contentType}"${headersAttr}`;
  return `${XML_DECLARATION}<Response><Stream ${attributes}>${url}</Stream></Response>`;
}
