/**
 * The latest alignment snapshot (its bytes and its parsed value), and the incremental parse of the
 * next one. A service's snapshots are cumulative within a chunk: each repeats the words already
 * said and appends new ones, or corrects the last (a provisional end made final). Parsing every
 * changed snapshot whole made a real stream's events cost in proportion to the chunk's length
 * (50+ words, ~4 KiB of JSON, on about a third of the events).
 *
 * In the service's shape, `{"audio_duration":N,"segments":[S0,S1,…]}`, the new snapshot's
 * segments array is compared with the previous one's: the leading segments whose bytes are the
 * same (found with memcmp at the remembered segment ends) are the same values and are taken as
 * they are; only the rest is read (from its bytes in the service's exact form,
 * {@link readSegment}, else JSON.parse of those bytes) and validated. So the work and the
 * allocation of a changed snapshot follow its new words: a short string and parse, one object per
 * new word, and a copy of the array of references (8 B per word). Any other shape, or anything
 * the incremental parse does not accept, is parsed whole as before (JSON.parse +
 * validateAlignment), which gives the exact result or the exact fault.
 *
 * Bytes: the head (`{"audio_duration":N,"segments":`) is kept right-aligned before
 * {@link HEAD_ROOM} and the array from there on, so that a changed duration does not move the
 * array, and keeping a new snapshot copies only the bytes that changed. The segment ends of a
 * snapshot parsed whole are found only when the next one shares its first segment: a stream whose
 * every snapshot changes from the first word on (nothing to reuse) does no more work than before.
 */
import { copyBytes, ensureCapacity, grow } from '../internal/growableBytes.js';
import type { Alignment, AlignmentSegment } from './SpeechEvent.js';
import { segmentFault, toSegment, validateAlignment } from './SpeechEvent.js';
import { bytesEqual, scanComposite, scanNumber } from './scanEventJson.js';
import { numberValue, readSegment } from './segmentBytes.js';

/** Room for the head before the array: `{"audio_duration":` + a number + `,"segments":` is ~50 B. */
const HEAD_ROOM = 96;
const INITIAL_BYTES = 1024;
/** No segment ends yet: allocated on first use (a 256 B Int32Array lives off the V8 heap, an
 * ArrayBuffer of its own, and every stream made two whether its snapshots changed or not). */
const NO_ENDS = new Int32Array(0);
const HEAD_OPEN = Buffer.from('{"audio_duration":');
const HEAD_SEGMENTS = Buffer.from(',"segments":[');
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** How changed snapshots were parsed (the scanner's path counters). */
export interface SnapshotCounts {
  snapshotsIncremental: number;
  snapshotsWhole: number;
}

export class SnapshotMemo {
  /** The snapshot's bytes: `raw[from..from + length)` (length 0: none to compare). */
  raw: Buffer = Buffer.allocUnsafe(HEAD_ROOM + INITIAL_BYTES);
  from = 0;
  length = 0;
  value: Alignment | null = null;

  /** The bytes are in the service's shape, the array's `[` at {@link HEAD_ROOM}. */
  private canonical = false;
  /** End of each segment object, from the array's `[`: known for `count` segments (all of
   * `value`'s), or -1: not found yet ({@link prepareEnds}). */
  private ends: Int32Array = NO_ENDS;
  private count = -1;

  // What the last parse found, kept by {@link keep} once its event is accepted.
  /** Head bytes (-1: not the service's shape). */
  private pendingHead = -1;
  /** Bytes of the array (from its `[`) that are the remembered ones: not copied again. */
  private pendingSame = 0;
  /** Leading segments taken over, and the ends of the parsed ones after them (-1: unknown). */
  private pendingKept = 0;
  private pendingEnds: Int32Array = NO_ENDS;
  private pendingCount = -1;
  private readonly counts: SnapshotCounts;

  constructor(counts: SnapshotCounts) {
    this.counts = counts;
  }

  /**
   * Parses the snapshot `d[a..b)` (of the `index`th event), reusing what it shares with the
   * remembered one. Undefined when it is not a valid snapshot (the general path names the fault).
   */
  parse(d: Buffer, a: number, b: number, index: number): Alignment | null | undefined {
    let arr = this.headEnd(d, a, b);
    if (arr - a > HEAD_ROOM) arr = -1;
    if (arr > 0 && this.canonical && this.value !== null && this.prepareEnds(d, arr, b)) {
      const got = this.parseChanged(d, a, arr, b, index);
      if (got !== undefined) {
        this.counts.snapshotsIncremental++;
        return got;
      }
    }
    let alignment: Alignment | null;
    try {
      alignment = validateAlignment(JSON.parse(d.toString('utf8', a, b)), index);
    } catch {
      return undefined;
    }
    this.counts.snapshotsWhole++;
    this.pendingHead = arr > 0 ? arr - a : -1;
    this.pendingSame = 0;
    this.pendingKept = 0;
    this.pendingCount = -1;
    return alignment;
  }

  /** The snapshot last parsed, `d[a..b)`, was accepted: it is now the remembered one. */
  keep(d: Buffer, a: number, b: number, value: Alignment | null): void {
    this.value = value;
    const head = this.pendingHead;
    this.length = b - a;
    if (head < 0) {
      this.raw = ensureCapacity(this.raw, b - a);
      copyBytes(d, a, b, this.raw, 0);
      this.from = 0;
      this.canonical = false;
      this.count = -1;
      return;
    }
    const same = this.pendingSame;
    this.raw = grow(this.raw, HEAD_ROOM + b - a - head); // keeps the unchanged bytes
    copyBytes(d, a, a + head, this.raw, HEAD_ROOM - head);
    copyBytes(d, a + head + same, b, this.raw, HEAD_ROOM + same);
    this.from = HEAD_ROOM - head;
    this.canonical = true;
    if (this.pendingCount < 0) {
      this.count = -1;
      return;
    }
    const kept = this.pendingKept;
    const n = kept + this.pendingCount;
    this.ends = growEnds(this.ends, n, kept);
    this.ends.set(this.pendingEnds.subarray(0, this.pendingCount), kept);
    this.count = n;
  }

  /** A snapshot known only as a value (the general path parsed it): nothing compares equal to it. */
  forget(value: Alignment | null): void {
    this.value = value;
    this.length = 0;
    this.canonical = false;
    this.count = -1;
  }

  /** Where the segments array (its `[`) of `d[a..b)` starts in the service's shape, or -1. */
  private headEnd(d: Buffer, a: number, b: number): number {
    const n0 = a + HEAD_OPEN.length;
    if (n0 >= b || !bytesEqual(d, a, HEAD_OPEN, 0, HEAD_OPEN.length)) return -1;
    const n1 = scanNumber(d, n0, b);
    if (n1 < 0 || n1 + HEAD_SEGMENTS.length > b || !bytesEqual(d, n1, HEAD_SEGMENTS, 0, HEAD_SEGMENTS.length)) return -1;
    return n1 + HEAD_SEGMENTS.length - 1;
  }

  /**
   * The remembered segment ends, found now if they are not known yet, and only when the new
   * array `d[arr..b)` starts with the remembered first segment (else nothing is reused).
   */
  private prepareEnds(d: Buffer, arr: number, b: number): boolean {
    if (this.count >= 0) return true;
    const raw = this.raw;
    const n = this.value!.segments.length;
    const limit = this.from + this.length - 1;
    if (n === 0 || raw[HEAD_ROOM + 1] !== OPEN_BRACE) return false;
    const first = scanComposite(raw, HEAD_ROOM + 1, limit) - HEAD_ROOM;
    if (first <= 0 || first >= b - arr || !bytesEqual(d, arr, raw, HEAD_ROOM, first)) return false;
    this.ends = growEnds(this.ends, n, 0);
    if (walkEnds(raw, HEAD_ROOM, limit, 1, n, this.ends) !== n) {
      this.canonical = false;
      return false;
    }
    this.count = n;
    return true;
  }

  /** Whether the new array `d[arr..arr + bytes)` starts with the remembered one's first k segments. */
  private sameUpTo(d: Buffer, arr: number, bytes: number, k: number): boolean {
    if (k === 0) return true;
    const e = this.ends[k - 1]!;
    return e < bytes && bytesEqual(d, arr, this.raw, HEAD_ROOM, e);
  }

  /** The incremental parse (see the file's doc); undefined: parse it whole instead. */
  private parseChanged(d: Buffer, a: number, arr: number, b: number, index: number): Alignment | undefined {
    const prev = this.value!.segments;
    const bytes = b - arr;
    // The most leading segments whose bytes are unchanged: usually all (words appended) or all
    // but the last (its end corrected); else a binary search (memcmp is monotone in the prefix).
    let k = this.count;
    if (!this.sameUpTo(d, arr, bytes, k)) {
      k--;
      if (k > 0 && !this.sameUpTo(d, arr, bytes, k)) {
        let lo = 0;
        let hi = k - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (this.sameUpTo(d, arr, bytes, mid)) lo = mid;
          else hi = mid - 1;
        }
        k = lo;
      }
    }
    // Nothing shared: parsing the rest is parsing the whole.
    if (k <= 0 || d[b - 1] !== CLOSE_BRACE) return undefined;
    const t = this.ends[k - 1]!; // the byte after segment k - 1
    const at = arr + t;
    const segments: AlignmentSegment[] = prev.slice(0, k);
    let n = 0;
    if (d[at] !== CLOSE_BRACKET || at + 2 !== b) {
      // `,{…},{…}]`: the new segments, from the first one on (a first byte other than `{`, e.g.
      // `,]`, would not be the same JSON: parsed whole instead).
      if (d[at] !== COMMA || d[at + 1] !== OPEN_BRACE) return undefined;
      n = this.readAdded(d, arr, at + 1, b - 1, segments);
      if (n < 0) {
        segments.length = k;
        n = this.parseAdded(d, arr, t, b, k, index, segments);
        if (n < 0) return undefined;
      }
    }
    const duration = numberValue(d, a + HEAD_OPEN.length, arr - HEAD_SEGMENTS.length + 1);
    if (!Number.isFinite(duration)) return undefined;
    this.pendingHead = arr - a;
    this.pendingSame = t;
    this.pendingKept = k;
    this.pendingCount = n;
    return { audio_duration: duration, segments };
  }

  /**
   * The new segments `d[from..limit - 1)` (then `]` at `limit - 1`) read in the service's exact
   * form ({@link readSegment}), appended to `out`, their ends (from the `[` at `arr`) in
   * `pendingEnds`. Returns how many, or -1 when any is in another form ({@link parseAdded} decides).
   */
  private readAdded(d: Buffer, arr: number, from: number, limit: number, out: AlignmentSegment[]): number {
    let i = from;
    for (let j = 0; ;) {
      const e = readSegment(d, i, limit, out);
      if (e < 0) return -1;
      this.pendingEnds = growEnds(this.pendingEnds, j + 1, j);
      this.pendingEnds[j++] = e - arr;
      if (d[e] === CLOSE_BRACKET) return e + 1 === limit ? j : -1;
      if (d[e] !== COMMA) return -1;
      i = e + 1;
    }
  }

  /** The new segments after `d[arr + t]` (a comma) parsed with `JSON.parse` and validated, appended
   * to `out` (which holds `k`); their ends in `pendingEnds`. Returns how many, or -1. */
  private parseAdded(d: Buffer, arr: number, t: number, b: number, k: number, index: number, out: AlignmentSegment[]): number {
    let added: unknown;
    try {
      added = JSON.parse('[' + d.toString('utf8', arr + t + 1, b - 1));
    } catch {
      return -1;
    }
    if (!Array.isArray(added)) return -1;
    const n = added.length;
    for (let j = 0; j < n; j++) if (segmentFault(added[j], k + j, index) !== null) return -1;
    this.pendingEnds = growEnds(this.pendingEnds, n, 0);
    if (walkEnds(d, arr, b - 1, t + 1, n, this.pendingEnds) !== n) return -1;
    for (let j = 0; j < n; j++) out.push(toSegment((added as Record<string, unknown>[])[j]!));
    return n;
  }
}

/** `ends` when it holds `n` entries, else a larger array holding its first `keep` entries. */
function growEnds(ends: Int32Array, n: number, keep: number): Int32Array {
  if (ends.length >= n) return ends;
  const grown = new Int32Array(Math.max(n, ends.length * 2));
  grown.set(ends.subarray(0, keep));
  return grown;
}

/**
 * Writes to `out` the end (from the `[` at `arr`) of each of `n` segment objects that start at
 * `arr + rel`, separated by commas, the array closing right after them (`d[..limit)`). Returns n
 * when the bytes are compact JSON in the service's shape, else -1.
 */
function walkEnds(d: Buffer, arr: number, limit: number, rel: number, n: number, out: Int32Array): number {
  let i = arr + rel;
  for (let j = 0; j < n; j++) {
    if (j > 0) {
      if (d[i] !== COMMA) return -1;
      i++;
    }
    if (d[i] !== OPEN_BRACE) return -1;
    const e = scanComposite(d, i, limit);
    if (e < 0) return -1;
    out[j] = e - arr;
    i = e;
  }
  return d[i] === CLOSE_BRACKET ? n : -1;
}
