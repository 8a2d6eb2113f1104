/**
 * XML 1.0 escaping for the answer documents (TwiML, TeXML, Plivo XML). Pure, no parser.
 *
 * - `&`, `<`, `>`, `"`, `'` become entity references, so a value can never end an attribute or open
 *   a tag.
 * - Tab, line feed and carriage return in an attribute become character references: a parser
 *   normalises literal ones to spaces (XML 1.0 §3.3.3), which would change the value.
 * - Characters XML 1.0 cannot carry at all (§2.2: C0 controls other than tab/LF/CR, U+FFFE,
 *   U+FFFF, lone surrogates) are refused with an `InvalidOptionError` naming the field, since no
 *   escaping makes them legal.
 *
 * @see https://www.w3.org/TR/xml/#charsets
 * @see https://www.w3.org/TR/xml/#AVNormalize
 */
import { InvalidOptionError } from '../../errors.js';

const ATTRIBUTE_SPECIALS = /[&<>"'\t\n\r]/g;
const TEXT_SPECIALS = /[&<>]/g;
/** Not a `Char` of XML 1.0 §2.2 (lone surrogates included: the `u` flag matches them alone). */
// eslint-disable-next-line no-control-regex -- matching the C0 controls XML forbids is the point
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Cs}/u;

const REPLACEMENTS: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

function checkChars(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new InvalidOptionError(field, `${field} must be a string`);
  if (NOT_XML_CHAR.test(value))
    throw new InvalidOptionError(field, `${field} holds a character XML 1.0 cannot carry (a control character or lone surrogate)`);
  return value;
}

/** Escapes a value for a double-quoted attribute. */
export function xmlAttribute(value: string, field: string): string {
  return checkChars(value, field).replace(ATTRIBUTE_SPECIALS, (c) => REPLACEMENTS[c]!);
}

/** Escapes element text. */
export function xmlText(value: string, field: string): string {
  return checkChars(value, field).replace(TEXT_SPECIALS, (c) => REPLACEMENTS[c]!);
}

/** The declaration every answer document starts with. */
export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** Throws unless `url` is an absolute ws:// or wss:// URL (every provider connects to one). */
export function checkWebSocketUrl(url: unknown, field = 'url'): string {
  if (typeof url !== 'string') throw new InvalidOptionError(field, `${field} must be a string`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidOptionError(field, `${field} must be an absolute URL`);
  }
  if (parsed.protocol !== 'wss:' && parsed.protocol !== 'ws:')
    throw new InvalidOptionError(field, `${field} must be a ws:// or wss:// URL`);
  return url;
}
