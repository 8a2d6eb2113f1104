/**
 * Fault injection, off by default: nothing happens unless a request carries the
 * `x-voicewire-fault` header, or the service was started with `faults`.
 *
 * Syntax: comma-separated `key=value` items, e.g. `x-voicewire-fault: cut-after=3, segment-bytes=7`.
 *
 * | item | effect |
 * |---|---|
 * | `cut-after=N` | after N complete events, the socket is destroyed (no HTTP end; the body breaks at an event boundary) |
 * | `cut-inside=N` | after N complete events, half of the next event is written, then the socket is destroyed |
 * | `delay-first-byte=MS` | nothing (not even the status line) is written for MS ms |
 * | `stall-after=N:MS` | after N events the body pauses for MS ms (idle-timeout tests) |
 * | `segment-bytes=N` | every body write is split into N-byte writes, each flushed on its own (Nagle off) |
 * | `malformed=N` | one extra, malformed event is inserted before event N (0-based); real events are all still sent |
 * | `malformed-kind=json\|base64\|field` | what is wrong with it: bad JSON (default), bad base64 in `audio_base64`, `chunk_seq: -1` |
 * | `fail=STATUS:N` | the first N attempts of this request (default N = 1) get STATUS (429, 500, 503, …) with the error body |
 * | `retry-after=S` | `Retry-After` seconds sent with 429 and 503 (default 1; 0 allowed) |
 *
 * Delays (`MS`) are at most {@link MAX_FAULT_DELAY_MS}; a longer one is refused (400 `invalid_fault`).
 *
 * Attempts of "the same request" are counted by the `x-voicewire-attempt-key` header when sent,
 * else by a SHA-256 of the path, model header, fault header and body.
 */
import { createHash } from 'node:crypto';
import { InvalidOptionError } from '../errors.js';

export const FAULT_HEADER = 'x-voicewire-fault';
export const ATTEMPT_KEY_HEADER = 'x-voicewire-attempt-key';
export const DEFAULT_RETRY_AFTER_SEC = 1;
const MAX_TRACKED_ATTEMPTS = 10_000;
/**
 * Longest delay a fault may ask for: Node's timers hold a signed 32-bit millisecond count and run
 * a longer one after ~1 ms instead (with a warning), so the fault would silently do nothing.
 */
export const MAX_FAULT_DELAY_MS = 2 ** 31 - 1;

export type MalformedKind = 'json' | 'base64' | 'field';

export interface FaultSpec {
  cutAfter?: number;
  cutInside?: number;
  delayFirstByteMs?: number;
  stallAfter?: { events: number; ms: number };
  segmentBytes?: number;
  malformedAt?: number;
  malformedKind?: MalformedKind;
  fail?: { status: number; attempts: number };
  retryAfterSec?: number;
}

export class FaultSyntaxError extends Error {}

function int(key: string, v: string, min: number): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min)
    throw new FaultSyntaxError(`${FAULT_HEADER}: ${key} needs an integer ≥ ${min}, got ${JSON.stringify(v)}`);
  return n;
}

function delayMs(key: string, v: string): number {
  const n = int(key, v, 0);
  if (n > MAX_FAULT_DELAY_MS) throw new FaultSyntaxError(`${FAULT_HEADER}: ${key} delay is at most ${MAX_FAULT_DELAY_MS} ms, got ${v}`);
  return n;
}

/** Parses the header syntax. Throws {@link FaultSyntaxError} (the service answers 400). */
export function parseFaults(text: string): FaultSpec {
  const spec: FaultSpec = {};
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    const key = (eq < 0 ? item : item.slice(0, eq)).trim().toLowerCase();
    const value = eq < 0 ? '' : item.slice(eq + 1).trim();
    switch (key) {
      case 'cut-after':
        spec.cutAfter = int(key, value, 0);
        break;
      case 'cut-inside':
        spec.cutInside = int(key, value, 0);
        break;
      case 'delay-first-byte':
        spec.delayFirstByteMs = delayMs(key, value);
        break;
      case 'segment-bytes':
        spec.segmentBytes = int(key, value, 1);
        break;
      case 'malformed':
        spec.malformedAt = int(key, value, 0);
        break;
      case 'retry-after':
        spec.retryAfterSec = int(key, value, 0);
        break;
      case 'malformed-kind':
        if (value !== 'json' && value !== 'base64' && value !== 'field') {
          throw new FaultSyntaxError(`${FAULT_HEADER}: malformed-kind is json, base64 or field`);
        }
        spec.malformedKind = value;
        break;
      case 'stall-after': {
        const [n, ms] = value.split(':');
        spec.stallAfter = { events: int(key, n ?? '', 0), ms: delayMs(key, ms ?? '') };
        break;
      }
      case 'fail': {
        const [status, attempts] = value.split(':');
        const s = int(key, status ?? '', 400);
        if (s > 599) throw new FaultSyntaxError(`${FAULT_HEADER}: fail status must be 400–599`);
        spec.fail = { status: s, attempts: attempts === undefined ? 1 : int(key, attempts, 0) };
        break;
      }
      default:
        throw new FaultSyntaxError(`${FAULT_HEADER}: unknown fault ${JSON.stringify(key)}`);
    }
  }
  return spec;
}

/**
 * Checks the delays of a spec given as an object (`startLocalService({ faults })`), which the
 * header syntax's checks never saw. Throws {@link InvalidOptionError}.
 */
export function checkFaultSpec(spec: FaultSpec): FaultSpec {
  const delays: Array<[string, number | undefined]> = [
    ['delayFirstByteMs', spec.delayFirstByteMs],
    ['stallAfter.ms', spec.stallAfter?.ms],
  ];
  for (const [field, ms] of delays) {
    if (ms !== undefined && !(Number.isInteger(ms) && ms >= 0 && ms <= MAX_FAULT_DELAY_MS)) {
      throw new InvalidOptionError(`faults.${field}`, `faults.${field} must be an integer 0–${MAX_FAULT_DELAY_MS} ms, got ${String(ms)}`);
    }
  }
  return spec;
}

/**
 * The header text of a spec: the inverse of {@link parseFaults}, so code can build a fault
 * from typed fields (`formatFaults({ cutAfter: 3 })` → `'cut-after=3'`). Values are not checked
 * here; parse the result to check them.
 */
export function formatFaults(spec: FaultSpec): string {
  const items: string[] = [];
  if (spec.cutAfter !== undefined) items.push(`cut-after=${spec.cutAfter}`);
  if (spec.cutInside !== undefined) items.push(`cut-inside=${spec.cutInside}`);
  if (spec.delayFirstByteMs !== undefined) items.push(`delay-first-byte=${spec.delayFirstByteMs}`);
  if (spec.stallAfter !== undefined) items.push(`stall-after=${spec.stallAfter.events}:${spec.stallAfter.ms}`);
  if (spec.segmentBytes !== undefined) items.push(`segment-bytes=${spec.segmentBytes}`);
  if (spec.malformedAt !== undefined) items.push(`malformed=${spec.malformedAt}`);
  if (spec.malformedKind !== undefined) items.push(`malformed-kind=${spec.malformedKind}`);
  if (spec.fail !== undefined) items.push(`fail=${spec.fail.status}:${spec.fail.attempts}`);
  if (spec.retryAfterSec !== undefined) items.push(`retry-after=${spec.retryAfterSec}`);
  return items.join(', ');
}

/** Counts attempts per request key (bounded: the oldest keys are forgotten first). */
export class AttemptCounter {
  private readonly counts = new Map<string, number>();

  /** Records one attempt; returns its 1-based number. */
  next(key: string): number {
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.delete(key);
    this.counts.set(key, n);
    if (this.counts.size > MAX_TRACKED_ATTEMPTS) this.counts.delete(this.counts.keys().next().value!);
    return n;
  }
}

export function attemptKey(explicit: string | undefined, parts: (string | Uint8Array)[]): string {
  if (explicit) return `k:${explicit}`;
  const h = createHash('sha256');
  for (const p of parts) {
    h.update(p);
    h.update('\0');
  }
  return `h:${h.digest('hex')}`;
}
