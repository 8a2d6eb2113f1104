/**
 * Reading provider JSON by hand, the same way for every provider: each helper either returns the
 * typed value or throws a {@link TelephonyError} (`TELEPHONY_PROTOCOL`) naming the field. Numbers
 * may come as strings (Twilio, Telnyx and Exotel send `"sequence_number": "3"`), so both are read.
 */
import { TelephonyError } from '../../errors.js';

export type Json = Record<string, unknown>;

/** Throws the protocol error for `field`, naming the provider and, when known, the message number. */
export function fail(provider: string, field: string, message: string, sequenceNumber?: number): never {
  const where = sequenceNumber === undefined || sequenceNumber < 0 ? '' : ` (message #${sequenceNumber})`;
  throw new TelephonyError('TELEPHONY_PROTOCOL', `${provider}: ${message}${where}`, { field });
}

/** Parses one text frame as a JSON object (not an array, not a scalar). */
export function parseObject(provider: string, text: string): Json {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw new TelephonyError('TELEPHONY_PROTOCOL', `${provider}: message is not valid JSON`, { field: 'message', cause });
  }
  return obj(provider, raw, 'message');
}

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function obj(provider: string, v: unknown, field: string, seq?: number): Json {
  if (!isObject(v)) fail(provider, field, `${field} must be an object`, seq);
  return v;
}

export function str(provider: string, o: Json, key: string, path: string, seq?: number): string {
  const v = o[key];
  if (typeof v !== 'string') fail(provider, `${path}.${key}`, `${path}.${key} must be a string`, seq);
  return v;
}

export function optStr(o: Json, key: string, fallback: string): string {
  const v = o[key];
  return typeof v === 'string' ? v : fallback;
}

function toNumber(v: unknown): number | undefined {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

export function num(provider: string, o: Json, key: string, path: string, seq?: number): number {
  const n = toNumber(o[key]);
  if (n === undefined) fail(provider, `${path}.${key}`, `${path}.${key} must be a number`, seq);
  return n;
}

export function optNum(o: Json, key: string, fallback: number): number {
  return toNumber(o[key]) ?? fallback;
}

/** Custom parameters as strings: numbers and booleans are turned into text, anything else dropped. */
export function stringRecord(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObject(v)) return out;
  for (const [k, val] of Object.entries(v)) {
    if (typeof val === 'string') out[k] = val;
    else if (typeof val === 'number' || typeof val === 'boolean') out[k] = String(val);
  }
  return out;
}

/** Raw bytes → base64 without copying the bytes first. */
export function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Checks that `payload` (at `field`) is base64 that decodes to whole bytes; returns it unchanged. */
export function checkBase64(provider: string, payload: string, field: string, seq?: number): string {
  if (payload.length % 4 !== 0 || !BASE64.test(payload)) fail(provider, field, `${field} is not base64`, seq);
  return payload;
}
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
