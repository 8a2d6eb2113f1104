/**
 * The hot path of the event stage: HTTP body bytes in, audio decoded (strict base64) straight into
 * a {@link RingBuffer}, one {@link SpeechEventMeta} per complete `message` event.
 *
 * How it stays cheap: SSE framing is byte-level ({@link SseFramer}, the same core as the generic
 * parser), and an event that arrives whole in one read is not even copied out of it; the event's
 * fields are read from its JSON bytes in place, and only what changed since the last event is
 * parsed ({@link EventFields}; of a changed snapshot, only its changed words); the audio is
 * decoded from the body bytes into the ring without a string or ArrayBuffer per event. Anything
 * the fast path cannot judge goes through the general path (JSON.parse + {@link inspectSpeechEvent}), so results and errors are exactly the
 * general path's (a fast-check property test holds it to that).
 *
 * Audio visibility: an event's audio is validated before the caller can see it. When it fits in
 * the ring it is decoded and, if anything about the event is wrong, taken back (`ring.uncommit`)
 * in the same call. When it does not fit, it is validated first and then written as the ring
 * drains. So every byte in the ring is valid audio and a reader may take all of it.
 */
import type { RingBuffer } from '../buffer/RingBuffer.js';
import type { SpeechEventError, VoicewireError } from '../errors.js';
import { ensureCapacity } from '../internal/growableBytes.js';
import { DEFAULT_MAX_SSE_BYTES, SseFramer } from '../sse/SseFramer.js';
import { truncationError } from '../sse/SseParser.js';
import type { Alignment } from './SpeechEvent.js';
import { inspectSpeechEvent, parseEventJson } from './SpeechEvent.js';
import { BASE64_QUAD_CHARS, base64DecodedLength, base64PadCount, isStrictBase64Bytes } from './base64.js';
import { Base64Stage, PUSH_FULL, stagingAvailable } from './Base64Stage.js';
import { EventFields } from './EventFields.js';
import { RingBase64Writer } from './RingBase64Writer.js';

export interface SpeechEventMeta {
  /** 0-based index among `message` events (skipped invalid events keep their index). */
  index: number;
  chunkSeq: number;
  chunkAudioOffsetSec: number;
  content: string;
  /** The parsed snapshot carried by this event (null if none). A changed snapshot of the same
   * stream shares the segment objects of its unchanged leading words with the previous one (it is
   * parsed from its first changed word on): treat snapshots as read-only. */
  alignment: Alignment | null;
  /** Byte-identical to the previous non-null snapshot of this chunkSeq (not re-parsed; `alignment`
   * is that earlier object). Only the latest snapshot's bytes are kept (bounded memory), so when
   * chunks interleave a repeat may come as `false` with an equal, re-parsed object; never a false
   * `true`. */
  alignmentRepeat: boolean;
  /** ring.totalWritten before this event's audio. */
  audioStart: number;
  /** Decoded audio bytes this event added to the ring. */
  audioBytes: number;
}

/** How many `message` events took each path ({@link SpeechEventScanner.pathCounts}). */
export interface EventPathCounts {
  /** Read in place (fields from their bytes, audio decoded straight into the ring). */
  fast: number;
  /** JSON.parse of the whole event + inspectSpeechEvent (anything the fast path cannot judge). */
  general: number;
  /** Changed snapshots on the fast path parsed from their first changed segment on (SnapshotMemo). */
  snapshotsIncremental: number;
  /** Changed snapshots on the fast path parsed whole (a chunk's first, or another shape). */
  snapshotsWhole: number;
}

export interface SpeechEventScannerOptions {
  ring: RingBuffer;
  onEvent(meta: SpeechEventMeta): void;
  /** Skipped invalid events (skip mode), etc. */
  onWarning?(warning: VoicewireError): void;
  /**
   * `'fail'`: throw the event's typed error. `'skip'`: report it through onWarning and go on; an
   * event whose audio is valid keeps its audio (later word times depend on it) and its invalid
   * fields are replaced (alignment → null, content → '', chunkSeq / offset → the previous event's).
   * @defaultValue 'fail'
   */
  onInvalidEvent?: 'fail' | 'skip';
  /** Line and event size limit. @defaultValue 8 MiB */
  maxEventBytes?: number;
}

const INITIAL_SCRATCH_BYTES = 1024;
/** Staging (Base64Stage) starts after a read of at most this many bytes: it pays off for small
 * reads (one native copy + one wasm call instead of a JS byte loop); for large reads the plain
 * path (native copies and searches, one decode at the event's end) measured as fast or faster. */
const STAGE_READS_UP_TO = 256;

/**
 * @example
 * ```ts
 * const ring = new RingBuffer();
 * const scanner = new SpeechEventScanner({ ring, onEvent: (meta) => store.apply(meta) });
 * for (let pos = 0; pos < body.length; ) {
 *   pos += scanner.feed(body, pos); // fewer than offered: the ring is full
 *   decode(ring.readSpan()); ring.consume(ring.readSpanLength); // audio up to scanner.committedAudio is validated
 * }
 * scanner.end(); // SSE_TRUNCATED if the body stopped inside an event
 * ```
 */
export class SpeechEventScanner {
  private readonly ring: RingBuffer;
  private readonly onEventCb: (meta: SpeechEventMeta) => void;
  private readonly onWarningCb: ((w: VoicewireError) => void) | undefined;
  private readonly skip: boolean;
  private readonly framer: SseFramer;
  /** Plain integers bumped once per event (no allocation): the bench reports the fast share. */
  readonly pathCounts: EventPathCounts = { fast: 0, general: 0, snapshotsIncremental: 0, snapshotsWhole: 0 };
  /** The fields of fast-path events, and what is remembered of earlier ones. */
  private readonly fields = new EventFields(this.pathCounts);
  private readonly audio: RingBase64Writer;
  /** Small reads inside an audio string go straight to wasm (null without wasm SIMD). */
  private readonly stage: Base64Stage | null;

  private index = 0;
  private committed = 0;
  private failed: unknown = null;
  /** A validated event whose audio waits for ring space (its base64 is in {@link audio}). */
  private pendingMeta: SpeechEventMeta | null = null;
  /** The byte that ended the paused event was framed but reported as not consumed. */
  private holdBack = false;

  // Skip-mode stand-ins for invalid chunk_seq / offset.
  private lastChunkSeq = 0;
  private lastOffsetSec = 0;
  /** Audio of general-path events, as base64 bytes. */
  private audioScratch: Buffer = Buffer.allocUnsafe(INITIAL_SCRATCH_BYTES);
  /** A staged event's whole data rebuilt for the general path (rare). */
  private joinScratch: Buffer | null = null;

  constructor(options: SpeechEventScannerOptions) {
    this.ring = options.ring;
    this.audio = new RingBase64Writer(options.ring);
    this.onEventCb = options.onEvent;
    this.onWarningCb = options.onWarning;
    this.skip = options.onInvalidEvent === 'skip';
    const max = options.maxEventBytes ?? DEFAULT_MAX_SSE_BYTES;
    this.framer = new SseFramer({
      maxLineBytes: max,
      maxEventBytes: max,
      onFrame: (f) => this.onFrame(f),
    });
    this.stage = stagingAvailable ? new Base64Stage(this.framer) : null;
  }

  /** ring.totalWritten at the end of the last complete event: audio up to here is validated. */
  get committedAudio(): number {
    return this.committed;
  }

  /** Message events seen so far (delivered or skipped). */
  get eventCount(): number {
    return this.index;
  }

  /**
   * Consumes bytes from chunk[start..]; returns how many it consumed. Fewer than offered means
   * the ring is full: call again with the rest once the ring has drained. Throws a typed
   * SseError/SpeechEventError on a fatal fault, after every earlier complete event was delivered.
   */
  feed(chunk: Uint8Array, start = 0): number {
    const stage = this.stage;
    if (stage !== null && stage.staging && start < chunk.length) {
      // Inside an audio string (staging implies no failure and no audio waiting for the ring):
      // the read goes to wasm as it is (Base64Stage), the framer only counts it, and takes over
      // again at the first byte that is not a base64 digit.
      const n = chunk.length;
      const p = stage.push(chunk, start, n);
      return p === n ? n - start : this.feedRest(chunk, start, p);
    }
    if (stage !== null && stage.tailing && start < chunk.length) {
      // After the staged audio, inside the same data line: held in the slot up to the line end
      // (Base64Stage.pushTail), which the framer then frames from.
      const n = chunk.length;
      const p = stage.pushTail(chunk, start, n);
      return p === n ? n - start : this.feedRest(chunk, start, p);
    }
    return this.feedRest(chunk, start, start);
  }

  /** feed() from `p` on: after the staged bytes `start..p` (p === -1: the stage was full). */
  private feedRest(chunk: Uint8Array, start: number, p: number): number {
    if (this.failed !== null) throw this.failed;
    if (this.pendingMeta !== null && !this.writePending()) return 0;
    let from = start;
    const stage = this.stage;
    if (p === PUSH_FULL) stage!.evict();
    else from = p; // the stage counted start..p in the framer
    if (this.holdBack && from < chunk.length) {
      this.holdBack = false;
      from++; // the caller offers the held-back byte again: it was already framed
    }
    try {
      const stop = this.framer.feed(chunk, from);
      if (this.pendingMeta !== null && stop > from) {
        // Report the event's last byte as not consumed, so that "fewer than offered" always
        // tells the caller to wait for the ring, even when the event ended the chunk.
        this.holdBack = true;
        return stop - 1 - start;
      }
      if (stage !== null && stop === chunk.length && stop - from <= STAGE_READS_UP_TO) stage.afterSmallRead(this.framer.eventStartOffset);
      return stop - start;
    } catch (err) {
      this.failed = err;
      stage?.release();
      throw err;
    }
  }

  /** End of body. Throws SseError code SSE_TRUNCATED when the body ended inside an event. */
  end(): void {
    if (this.failed !== null) throw this.failed;
    if (this.pendingMeta !== null && !this.writePending()) {
      throw new RangeError('SpeechEventScanner.end() while audio waits for ring space: drain the ring and feed the rest first');
    }
    const start = this.framer.eventStartOffset;
    this.stage?.release();
    if (this.framer.end()) {
      const err = truncationError(start, 'an event', this.index);
      this.failed = err;
      throw err;
    }
  }

  private onFrame(f: SseFramer): boolean {
    const stage = this.stage;
    if (!f.isMessage) {
      stage?.release();
      return true;
    }
    const index = this.index++;
    const start = f.dataStart;
    const end = start + f.dataLength;
    if (stage !== null && stage.active) {
      // The audio's leading blocks are decoded in the stage; `f.data` lacks their characters.
      if (!this.fastEvent(f.data, start, end, index, stage.decodedBytes)) {
        const n = end - start + stage.decodedChars;
        const d = this.rebuild(stage, f.data, start, end);
        stage.release();
        this.generalEvent(d, 0, n, index);
      } else stage.release();
    } else if (!this.fastEvent(f.data, start, end, index, 0)) this.generalEvent(f.data, start, end, index);
    return this.pendingMeta === null;
  }

  /** A staged event's exact bytes: the prefix, the staged characters, the rest. */
  private rebuild(stage: Base64Stage, d: Buffer, start: number, end: number): Buffer {
    this.joinScratch = ensureCapacity(this.joinScratch ?? Buffer.allocUnsafe(INITIAL_SCRATCH_BYTES), end - start + stage.decodedChars);
    return stage.rebuildEvent(d, start, end, this.joinScratch);
  }

  /** The plain case, `d[start..end)` (plus `staged` audio bytes already decoded), into the ring and
   * delivered (or queued). Returns false, having changed nothing, when the general path must decide. */
  private fastEvent(d: Buffer, start: number, end: number, index: number, staged: number): boolean {
    const f = this.fields;
    if (!f.read(d, start, end, index)) return false;
    let a = f.audioStart;
    let b = f.audioEnd;
    let src = d;
    if ((b - a) % BASE64_QUAD_CHARS !== 0) return false;
    const bytes = staged + base64DecodedLength(b - a, base64PadCount(d, a, b));
    const meta: SpeechEventMeta = {
      index,
      chunkSeq: f.chunkSeq,
      chunkAudioOffsetSec: f.offset,
      content: f.content,
      alignment: f.alignment,
      alignmentRepeat: f.repeat,
      audioStart: this.ring.totalWritten,
      audioBytes: bytes,
    };
    if (bytes <= this.ring.free) {
      if (staged > 0) this.stage!.writeDecoded(this.ring);
      if (!this.audio.writeAll(d, a, b)) {
        if (staged > 0) this.ring.uncommit(staged);
        return false;
      }
    } else if (staged > 0) {
      // Waits for ring space as base64 (the rare path): the staged characters and the rest.
      const n = this.stage!.decodedChars;
      src = this.audioScratch = ensureCapacity(this.audioScratch, n + b - a);
      this.stage!.copyDecodedChars(src, 0);
      d.copy(src, n, a, b);
      if (!isStrictBase64Bytes(src, 0, n + b - a)) return false;
      b = n + b - a;
      a = 0;
    } else if (!isStrictBase64Bytes(d, a, b)) return false;

    f.keep(d, end);
    this.pathCounts.fast++;
    this.finishEvent(meta, src, a, b);
    return true;
  }

  /** Delivers the event whose audio is in the ring, or queues the (validated) audio. */
  private finishEvent(meta: SpeechEventMeta, src: Buffer, a: number, b: number): void {
    this.lastChunkSeq = meta.chunkSeq;
    this.lastOffsetSec = meta.chunkAudioOffsetSec;
    if (this.ring.totalWritten - meta.audioStart === meta.audioBytes) {
      this.deliver(meta);
      return;
    }
    this.pendingMeta = meta;
    let from = src;
    if (src !== this.audioScratch) {
      // The event's bytes may be the caller's chunk (framed in place): keep our own copy while
      // the audio waits for ring space (rare: only a full ring gets here).
      this.audioScratch = ensureCapacity(this.audioScratch, b - a);
      src.copy(this.audioScratch, 0, a, b);
      from = this.audioScratch;
      b -= a;
      a = 0;
    }
    if (this.audio.begin(from, a, b)) this.deliverPending();
  }

  private deliver(meta: SpeechEventMeta): void {
    this.committed = this.ring.totalWritten;
    this.onEventCb(meta);
  }

  /** Writes what fits of the waiting audio; true (and the event delivered) when it is all in. */
  private writePending(): boolean {
    if (!this.audio.resume()) return false;
    this.deliverPending();
    return true;
  }

  private deliverPending(): void {
    const meta = this.pendingMeta!;
    this.pendingMeta = null;
    this.deliver(meta);
  }

  /** JSON.parse + inspectSpeechEvent: exact results and typed errors for any event. */
  private generalEvent(d: Buffer, start: number, end: number, index: number): void {
    this.pathCounts.general++;
    this.fields.forgetRest();
    let json: unknown;
    try {
      json = parseEventJson(d.toString('utf8', start, end), index);
    } catch (err) {
      this.invalid([err as SpeechEventError]);
      return;
    }
    const r = inspectSpeechEvent(json, index, this.lastChunkSeq, this.lastOffsetSec);
    if (r.errors.length > 0) {
      this.invalid(r.errors);
      if (!r.audioValid) return;
    }
    const ev = r.event;
    const b64 = ev.audio_base64;
    this.audioScratch = ensureCapacity(this.audioScratch, b64.length);
    const n = this.audioScratch.write(b64, 0, 'latin1');
    if (ev.alignment !== null) this.fields.keepParsedSnapshot(ev.alignment, ev.chunk_seq);
    const meta: SpeechEventMeta = {
      index,
      chunkSeq: ev.chunk_seq,
      chunkAudioOffsetSec: ev.chunk_audio_offset_sec,
      content: ev.content,
      alignment: ev.alignment,
      alignmentRepeat: false,
      audioStart: this.ring.totalWritten,
      audioBytes: base64DecodedLength(n, base64PadCount(this.audioScratch, 0, n)),
    };
    if (meta.audioBytes <= this.ring.free && !this.audio.writeAll(this.audioScratch, 0, n)) {
      throw new Error('voicewire internal: validated base64 failed to decode');
    }
    this.finishEvent(meta, this.audioScratch, 0, n);
  }

  /** Fail mode: throw the first error. Skip mode: warn about each. */
  private invalid(errors: SpeechEventError[]): void {
    if (!this.skip) throw errors[0]!;
    for (const e of errors) this.onWarningCb?.(e);
  }
}
