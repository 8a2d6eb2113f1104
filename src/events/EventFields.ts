/**
 * The fast path's reading of a `message` event's fields (everything but the audio), from its JSON
 * bytes in place, and what it remembers of earlier events to read the next one cheaply:
 *
 * - the bytes after the audio of the last fast-path event, and the fields they held: a service
 *   that sends its fields in one order (audio first) repeats them byte for byte within a chunk, so
 *   an event whose rest is the same bytes has the same fields (one memcmp, no scan);
 * - otherwise the event is scanned ({@link scanEventJson}), and `content`, the offset and the
 *   alignment snapshot are parsed only when their bytes differ from the last ones seen (a snapshot
 *   byte-identical to the previous one of its `chunk_seq` is a repeat: the same object; a changed
 *   one is parsed from its first changed word on, {@link SnapshotMemo}).
 *
 * Only the latest of each is kept (bounded memory, however many chunks come). Anything unusual
 * makes {@link EventFields.read} answer false, and the caller's general path decides.
 */
import type { Alignment } from './SpeechEvent.js';
import { AUDIO_PREFIX } from './Base64Stage.js';
import { ByteMemo } from './ByteMemo.js';
import { SnapshotMemo, type SnapshotCounts } from './SnapshotMemo.js';
import { bytesEqual, EventSpans, scanEventJson } from './scanEventJson.js';

/** First size of the buffers that keep a field's bytes (they double as needed). */
const INITIAL_FIELD_BYTES = 1024;

/** The fields an event's rest (the bytes after its audio) held. */
interface TailFields {
  chunkSeq: number;
  offset: number;
  content: string;
  alignment: Alignment | null;
}

export class EventFields {
  // What the last successful read found.
  /** The audio's base64 characters: `d[audioStart..audioEnd)`. */
  audioStart = 0;
  audioEnd = 0;
  chunkSeq = 0;
  offset = 0;
  content = '';
  alignment: Alignment | null = null;
  /** The snapshot is byte-identical to the previous non-null one of this chunk_seq (not re-parsed). */
  repeat = false;

  private readonly spans = new EventSpans();
  /** A snapshot the last read parsed (`d[newAlignStart..newAlignEnd)`, -1: none), and where the
   * event's rest starts (-1: not in the service's order, not worth remembering): both kept by
   * {@link keep} once the event is accepted. */
  private newAlignStart = -1;
  private newAlignEnd = -1;
  private tailFrom = -1;

  private prevAlignSeq = -1;
  private readonly prevAlign: SnapshotMemo;
  private readonly prevContent = new ByteMemo('', INITIAL_FIELD_BYTES);
  private readonly prevOffset = new ByteMemo(0);
  private readonly prevTail = new ByteMemo<TailFields | null>(null, INITIAL_FIELD_BYTES);

  constructor(counts: SnapshotCounts = { snapshotsIncremental: 0, snapshotsWhole: 0 }) {
    this.prevAlign = new SnapshotMemo(counts);
  }

  /**
   * Reads the fields of the event `d[start..end)` (the `index`th: for a snapshot's errors). False
   * when the general path must decide (malformed JSON, an unexpected key or type, an offset out of
   * range, an invalid snapshot); no snapshot or rest is remembered then (the `content` and offset
   * caches may be: they only map bytes to the value parsed from them).
   */
  read(d: Buffer, start: number, end: number, index: number): boolean {
    const tail = this.prevTail;
    const tn = tail.length;
    const at = start + AUDIO_PREFIX.length;
    this.newAlignStart = -1;
    this.tailFrom = -1;
    if (
      tn > 0 &&
      end - tn >= at &&
      bytesEqual(d, end - tn, tail.raw, 0, tn) &&
      bytesEqual(d, start, AUDIO_PREFIX, 0, AUDIO_PREFIX.length)
    ) {
      // Everything after the audio is the previous event's, byte for byte: so are its fields (an
      // alignment is then a repeat). A quote or backslash inside the "audio" fails the decoder,
      // and the general path decides.
      const f = tail.value!;
      this.audioStart = at;
      this.audioEnd = end - tn;
      this.chunkSeq = f.chunkSeq;
      this.offset = f.offset;
      this.content = f.content;
      this.alignment = f.alignment;
      this.repeat = f.alignment !== null;
      return true;
    }
    tail.forget(null);
    const s = this.spans;
    const prevAlign = this.prevAlign;
    const contentMemo = this.prevContent;
    if (!scanEventJson(d, start, end, s, prevAlign.raw, prevAlign.from, prevAlign.length, contentMemo.raw, contentMemo.length))
      return false;

    let content = '';
    if (s.contentStart >= 0) {
      if (s.contentSameBytes) content = contentMemo.value;
      else {
        if (!s.contentNeedsParse) content = d.toString('utf8', s.contentStart, s.contentEnd);
        else {
          try {
            content = JSON.parse(d.toString('utf8', s.contentStart - 1, s.contentEnd + 1)) as string;
          } catch {
            return false; // a bad escape or a raw control byte: the general path names the fault
          }
        }
        contentMemo.remember(d, s.contentStart, s.contentEnd, content);
      }
    }

    let offset: number;
    const offsetMemo = this.prevOffset;
    if (!Number.isNaN(s.offsetInt)) offset = s.offsetInt;
    else if (offsetMemo.matches(d, s.offsetStart, s.offsetEnd)) offset = offsetMemo.value;
    else {
      offset = Number(d.toString('latin1', s.offsetStart, s.offsetEnd));
      if (!Number.isFinite(offset)) return false; // 1e999: the general path names the fault
      offsetMemo.remember(d, s.offsetStart, s.offsetEnd, offset);
    }

    let alignment: Alignment | null = null;
    let repeat = false;
    if (s.alignStart >= 0) {
      if (s.alignSameBytes && s.chunkSeq === this.prevAlignSeq) {
        alignment = prevAlign.value;
        repeat = true;
      } else {
        const parsed = prevAlign.parse(d, s.alignStart, s.alignEnd, index);
        if (parsed === undefined) return false;
        alignment = parsed;
        this.newAlignStart = s.alignStart;
        this.newAlignEnd = s.alignEnd;
      }
    }

    this.audioStart = s.audioStart;
    this.audioEnd = s.audioEnd;
    this.chunkSeq = s.chunkSeq;
    this.offset = offset;
    this.content = content;
    this.alignment = alignment;
    this.repeat = repeat;
    if (s.audioStart === at && bytesEqual(d, start, AUDIO_PREFIX, 0, AUDIO_PREFIX.length)) this.tailFrom = s.audioEnd;
    return true;
  }

  /** The event just read, `d[..end)`, was accepted: remembers its new snapshot and its rest. */
  keep(d: Buffer, end: number): void {
    if (this.newAlignStart >= 0) {
      this.prevAlign.keep(d, this.newAlignStart, this.newAlignEnd, this.alignment);
      this.prevAlignSeq = this.chunkSeq;
    }
    if (this.tailFrom >= 0) {
      const fields: TailFields = { chunkSeq: this.chunkSeq, offset: this.offset, content: this.content, alignment: this.alignment };
      this.prevTail.remember(d, this.tailFrom, end, fields);
    }
  }

  /** An event goes through the general path: its rest is not known bytes any more. */
  forgetRest(): void {
    this.prevTail.forget(null);
  }

  /** The general path parsed a snapshot (no bytes for it): it is the latest one, and nothing
   * compares equal to it. */
  keepParsedSnapshot(alignment: Alignment, chunkSeq: number): void {
    this.prevAlign.forget(alignment);
    this.prevAlignSeq = chunkSeq;
  }
}
