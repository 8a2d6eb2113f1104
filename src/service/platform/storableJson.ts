/**
 * What the platform may keep of a client's JSON: every value it stores (agent configs and their
 * extra fields, session metadata, simulated tool arguments and results) is echoed later by reads,
 * listings, publishes and webhook payloads. A value nested thousands deep parses fine but
 * overflows the stack of every later `JSON.stringify`, `structuredClone` or merge, so one bad
 * write would break every read of that agent or workspace. Values are therefore checked here,
 * before anything is stored, and refused with a 422 naming the field and the limit.
 */
import { PlatformHttpError } from './http.js';

/**
 * Deepest nesting of objects and arrays a stored value may have (a bare scalar is depth 0,
 * `{}` is 1). Real configs and metadata stay under ten; 64 leaves room and keeps every recursive
 * walk of a stored value far from the stack limit.
 */
export const MAX_STORED_JSON_DEPTH = 64;
/**
 * Largest stored value, as UTF-8 JSON text. A request body is bounded, but a config grows by merge
 * patches, so the merged result is bounded too.
 */
export const MAX_STORED_JSON_BYTES = 256 * 1024;

/** The nesting depth of `value`, or `Infinity` as soon as it is over `max` (never recurses past it). */
export function jsonDepth(value: unknown, max = MAX_STORED_JSON_DEPTH): number {
  const walk = (v: unknown, level: number): number => {
    if (v === null || typeof v !== 'object') return level - 1;
    if (level > max) return Number.POSITIVE_INFINITY;
    let deepest = level;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      const d = walk(child, level + 1);
      if (d > max) return d;
      if (d > deepest) deepest = d;
    }
    return deepest;
  };
  return walk(value, 1);
}

/**
 * Throws a 422 (`json_too_deep` or `json_too_large`) when `value` may not be stored; `field` names
 * it in the message.
 */
export function assertStorableJson(value: unknown, field: string): void {
  if (jsonDepth(value) > MAX_STORED_JSON_DEPTH) {
    throw new PlatformHttpError(422, 'json_too_deep', `${field} is nested deeper than ${MAX_STORED_JSON_DEPTH} levels`);
  }
  // Safe now: the depth is bounded, so this cannot overflow the stack.
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? '');
  if (bytes > MAX_STORED_JSON_BYTES) {
    throw new PlatformHttpError(422, 'json_too_large', `${field} is ${bytes} bytes of JSON, over the limit of ${MAX_STORED_JSON_BYTES}`);
  }
}
