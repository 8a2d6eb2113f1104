/**
 * The last raw bytes of one event field and the value parsed from them. Servers repeat `content`,
 * the chunk offset and the alignment snapshot from event to event, so on the hot path an unchanged
 * field costs one byte compare instead of a parse (and a string).
 */
import { copyBytes, ensureCapacity } from '../internal/growableBytes.js';
import { bytesEqual } from './scanEventJson.js';

const INITIAL_MEMO_BYTES = 64;

export class ByteMemo<T> {
  /** The remembered bytes: `raw[0..length)`. */
  raw: Buffer;
  /** 0 when there are no bytes to compare (nothing yet, or the value came without its bytes). */
  length = 0;
  value: T;

  constructor(initial: T, capacity = INITIAL_MEMO_BYTES) {
    this.value = initial;
    this.raw = Buffer.allocUnsafe(capacity);
  }

  /** Whether `d[a..b)` are the remembered bytes (then {@link value} is theirs). */
  matches(d: Buffer, a: number, b: number): boolean {
    const n = b - a;
    return n === this.length && bytesEqual(d, a, this.raw, 0, n);
  }

  /** Remembers `d[a..b)` and the value parsed from them. */
  remember(d: Buffer, a: number, b: number, value: T): void {
    const n = b - a;
    this.raw = ensureCapacity(this.raw, n);
    // copyBytes, not Buffer#copy: its argument checks cost more than the ~1 KB copy (profile).
    copyBytes(d, a, b, this.raw, 0);
    this.length = n;
    this.value = value;
  }

  /** Remembers a value whose bytes are unknown: nothing compares equal to it. */
  forget(value: T): void {
    this.length = 0;
    this.value = value;
  }
}
