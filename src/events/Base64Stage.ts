/**
 * The event stage's fast path for small network reads: while an event's `audio_base64` string
 * arrives in pieces, each read goes straight into wasm memory and is validated + decoded there by
 * one call (wasm `scan`, base64simd.wat), instead of a JS loop that looks for the line end and
 * copies every byte into the framer's buffer (~2 ns/byte here) and a decode at the event's end.
 * Measured per 32 B read (1–64 B splits): JS copy loop 55–70 ns; native `set` + `scan` 40–50 ns,
 * most of it the fixed cost of the two calls. Only small reads are staged (see
 * {@link LARGE_READ} and the scanner's STAGE_READS_UP_TO): for large ones the plain path measured
 * as fast or faster.
 *
 * The framer keeps framing: the stage reaches it only through {@link SseFastPathSeam}. It is
 * told how many value bytes went past it (line/event limits and
 * byte offsets stay exact), and the staged characters stay in the slot until the event is
 * dispatched, so that anything unusual can have them back (the scanner rebuilds the event's exact
 * bytes for the general path; {@link Base64Stage.evict} gives them back to the framer).
 *
 * After the audio string, the rest of its data line (the other fields: a 10 KB snapshot in small
 * reads is ~300 reads) is held the same way ({@link Base64Stage.pushTail}): each read is copied
 * into the slot after the decoded characters and one wasm call (`lineEnd`) looks for LF/CR; at the
 * line end the held bytes go to the framer, which frames on from there (1–64 B reads with a
 * repeated 200-word snapshot: 4.2 → 6.2–6.8× naive, interleaved).
 *
 * Memory: one wasm page per slot (32 KiB of characters, their 24 KiB of bytes), leased per event
 * from the process's pool ({@link leaseSlot}). With every slot busy the least recently leased one
 * is taken back: its owner gets its characters back into its framer's buffer and goes on on the
 * plain path (nothing is lost; the property tests interleave more streams than slots). */
import type { RingBuffer } from '../buffer/RingBuffer.js';
import type { SseFastPathSeam } from '../sse/fastPathSeam.js';
import { lineEndSimd, scanBlocksSimd, simdMemory, SIMD_BLOCK_BYTES, SIMD_BLOCK_CHARS } from './simdBase64.js';
import { bytesEqual } from './scanEventJson.js';
import { leaseSlot, type Slot, type SlotOwner } from './slotPool.js';

/** Base64 characters one slot holds; a longer audio string finishes on the plain path. */
export const SLOT_CHARS = 32768;
/** Where a slot's decoded bytes start (its characters are at the slot's base). */
const SLOT_OUT = SLOT_CHARS;
/** Up to this many characters a JS loop moves them into wasm memory (a view costs more). */
const SMALL_COPY = 8;
/** A read this large leaves the stage (the plain path copies it natively and decodes the whole
 * string at the event's end; staging large reads measured 10–20 % slower at 1–4000 B splits). */
const LARGE_READ = 512;
/** log2 of SIMD_BLOCK_CHARS (a power of two). */
const BLOCK_SHIFT = 31 - Math.clz32(SIMD_BLOCK_CHARS);

/** `{"audio_base64":"`: the start of every event the service sends (audio first). */
export const AUDIO_PREFIX = Buffer.from('{"audio_base64":"');

/** {@link Base64Stage.push}: the slot is full or the read is large; the caller gives the
 * characters back ({@link Base64Stage.evict}) and frames the read on the plain path. */
export const PUSH_FULL = -1;

const IDLE = 0;
/** Characters of the current event's audio are being staged. */
const STAGING = 1;
/** The audio string ended; the decoded bytes wait in the slot for the event's dispatch. */
const HOLDING = 2;

/** Whether the stage can run here at all (wasm SIMD present). */
export const stagingAvailable = scanBlocksSimd !== null;

export class Base64Stage implements SlotOwner {
  private readonly framer: SseFastPathSeam;
  /** What a slot holds of its owner (made once, so a lease allocates nothing). */
  private readonly ref: WeakRef<SlotOwner> = new WeakRef(this);
  private slot: Slot | null = null;
  /** The slot's base offset in wasm memory. */
  private base = 0;
  private state = IDLE;
  /** Most characters this event may stage: the slot's size, or less when the framer's line or
   * event limit comes first (that read then takes the plain path, which reports the fault). */
  private cap = 0;
  /** Characters staged since the framer last counted them ({@link settle}). */
  private unsettled = 0;
  /** Characters in the slot: `[base, base + staged)`. */
  private staged = 0;
  /** Characters decoded (whole 16-character blocks): `decoded / 16 * 12` bytes at base + SLOT_OUT. */
  private decoded = 0;

  /** Start offset (the framer's eventStartOffset) of the last event considered for staging. */
  private tried = -1;

  constructor(framer: SseFastPathSeam) {
    this.framer = framer;
  }

  /** Characters of the current event's audio are being staged (a field: read once per feed). */
  staging = false;
  /** The rest of the event's data line after its audio is being held ({@link pushTail}). */
  tailing = false;
  /** Where the held tail starts in the slot (after the decoded blocks' characters), its length,
   * and the most it may hold (the slot's room, or the framer's line/event room if smaller). */
  private tailAt = 0;
  private tailLen = 0;
  private tailCap = 0;
  /** The current event's leading audio is in the slot (staging or holding). */
  get active(): boolean {
    return this.state !== IDLE;
  }
  /** Decoded bytes waiting in the slot. */
  get decodedBytes(): number {
    return (this.decoded / SIMD_BLOCK_CHARS) * SIMD_BLOCK_BYTES;
  }

  /**
   * After a small read that ended inside the event starting at stream offset `event`: begins
   * staging when the event's data so far is `AUDIO_PREFIX` + base64 digits (each event is
   * considered once, as soon as it has more than the prefix), or starts holding the rest of the
   * line after the staged audio ({@link beginTail}). Only inside the event's first data line.
   */
  afterSmallRead(event: number): void {
    const f = this.framer;
    if (!f.inFirstDataLine) return;
    if (this.state === IDLE) {
      if (event === this.tried || f.pendingDataLength <= AUDIO_PREFIX.length) return;
      this.tried = event;
      if (bytesEqual(f.pendingData, 0, AUDIO_PREFIX, 0, AUDIO_PREFIX.length)) this.begin();
    } else if (this.state === HOLDING && !this.tailing) this.beginTail();
  }

  /**
   * Starts staging with the framer's pending data `AUDIO_PREFIX + chars` (all base64 digits so
   * far): the chars move into a slot. False (nothing changed) without a slot or when they do not
   * all fit / are not all digits.
   */
  private begin(): boolean {
    const f = this.framer;
    const d = f.pendingData;
    const at = AUDIO_PREFIX.length;
    const n = f.pendingDataLength - at;
    if (n > SLOT_CHARS) return false;
    const slot = leaseSlot(this.ref);
    if (slot === null) return false;
    const mem = simdMemory();
    if (n <= SMALL_COPY) for (let k = 0; k < n; k++) mem[slot.base + k] = d[at + k]!;
    else mem.set(new Uint8Array(d.buffer, d.byteOffset + at, n), slot.base);
    const r = scanBlocksSimd!(slot.base, n, slot.base + SLOT_OUT);
    if (r < 0) {
      // Not all digits: the string already ended in what was read (the plain path frames it).
      slot.owner = null;
      return false;
    }
    this.slot = slot;
    this.base = slot.base;
    this.state = STAGING;
    this.staging = true;
    this.staged = n;
    this.decoded = r;
    f.takePendingData(at);
    const room = f.dataRoom;
    this.cap = n + room < SLOT_CHARS ? n + room : SLOT_CHARS;
    this.unsettled = 0;
    return true;
  }

  /**
   * Stages `chunk[a..b)`. Returns b when all of it is base64 digits, else the index of the first
   * byte that is not (the bytes before it are staged, the stage now holds), or {@link PUSH_FULL}.
   */
  push(chunk: Uint8Array, a: number, b: number): number {
    const s0 = this.staged;
    const n = b - a;
    if (s0 + n > this.cap || n > LARGE_READ) return PUSH_FULL;
    const mem = simdMemory();
    const base = this.base;
    const d0 = this.decoded;
    // A native copy and one wasm call, ~45 ns for a 32 B read here; a JS loop that copies and
    // checks a read measured no faster even for reads of a few bytes, and a JS base64 decoder for
    // reads ≤ 64 B made the 1–64 B rows 0.58–0.67× as fast (native-notes, seventh pass).
    if (a === 0 && b === chunk.length) mem.set(chunk, base + s0);
    else mem.set(new Uint8Array(chunk.buffer, chunk.byteOffset + a, n), base + s0);
    const r = scanBlocksSimd!(base + d0, s0 + n - d0, base + SLOT_OUT + (d0 >>> BLOCK_SHIFT) * SIMD_BLOCK_BYTES);
    if (r >= 0) {
      this.decoded = d0 + r;
      this.staged = s0 + n;
      this.unsettled += n;
      return b;
    }
    return this.stopAt(a, s0, d0, -1 - r);
  }

  /** The first non-digit is at `q` past the decoded characters (at or after s0: those before were digits). */
  private stopAt(a: number, s0: number, d0: number, q: number): number {
    this.decoded = d0 + q - (q % SIMD_BLOCK_CHARS);
    this.staged = d0 + q;
    this.unsettled += d0 + q - s0;
    this.settle();
    this.state = HOLDING;
    this.staging = false;
    // Characters not in a whole block (< 16) go back to the framer: the event's JSON then reads
    // `AUDIO_PREFIX + those + the rest`, and the slot holds the decoded blocks before them.
    this.framer.restoreData(AUDIO_PREFIX.length, simdMemory(), this.base + this.decoded, this.base + this.staged);
    return a + (d0 + q - s0);
  }

  /**
   * Starts holding the rest of the event's data line (after the audio: the other fields, e.g. a
   * large snapshot) while it arrives in small reads: each read is copied into the slot after the
   * decoded characters and searched for a line end by one wasm call, instead of the framer's byte
   * loop; the bytes go to the framer at the line end. Only while the audio string has ended (HOLDING), with the framer
   * inside the event's first data line.
   */
  private beginTail(): void {
    const room = this.framer.dataRoom;
    const slotRoom = SLOT_CHARS - this.decoded;
    this.tailAt = this.decoded;
    this.tailLen = 0;
    this.tailCap = room < slotRoom ? room : slotRoom;
    this.tailing = true;
  }

  /**
   * Holds `chunk[a..b)` up to its first LF or CR. Returns b when the read has none, else the
   * index of the line end (the held bytes are then the framer's: it frames the read from there
   * on). A read that does not fit (the slot's room, or the framer's limits: the framer then
   * reports the fault at the same byte as the plain path) or is large ends the holding and
   * returns `a`.
   */
  pushTail(chunk: Uint8Array, a: number, b: number): number {
    const t0 = this.tailLen;
    const n = b - a;
    if (t0 + n > this.tailCap || n > LARGE_READ) {
      this.flushTail();
      return a;
    }
    const mem = simdMemory();
    const at = this.base + this.tailAt + t0;
    if (a === 0 && b === chunk.length) mem.set(chunk, at);
    else mem.set(new Uint8Array(chunk.buffer, chunk.byteOffset + a, n), at);
    const j = lineEndSimd!(at, n);
    this.tailLen = t0 + j;
    this.unsettled += j;
    if (j === n) return b;
    this.flushTail();
    return a + j;
  }

  /** The held tail bytes go to the end of the framer's pending data, as if it had framed them. */
  private flushTail(): void {
    this.tailing = false;
    this.settle();
    const t = this.tailLen;
    this.tailLen = 0;
    if (t === 0) return;
    const from = this.base + this.tailAt;
    this.framer.restoreData(this.framer.pendingDataLength, simdMemory(), from, from + t);
  }

  /** Commits the decoded bytes to the ring, which has room for them (checked by the caller). */
  writeDecoded(ring: RingBuffer): void {
    const n = this.decodedBytes;
    const out = this.base + SLOT_OUT;
    for (let done = 0; done < n;) {
      const wi = ring.writeIndex;
      const m = Math.min(ring.writeSpanLength, n - done);
      ring.buffer.set(simdMemory().subarray(out + done, out + done + m), wi);
      ring.commitWrite(m);
      done += m;
    }
  }

  /** The dispatched event's exact bytes into `out` (room checked): `d[start..end)` lacks the
   * decoded characters, which belong right after {@link AUDIO_PREFIX}. */
  rebuildEvent(d: Buffer, start: number, end: number, out: Buffer): Buffer {
    const at = AUDIO_PREFIX.length;
    d.copy(out, 0, start, start + at);
    this.copyDecodedChars(out, at);
    d.copy(out, at + this.decoded, start + at, end);
    return out;
  }

  /** The characters decoded into the slot, as bytes (for a rebuilt event), into `dst` at `at`. */
  copyDecodedChars(dst: Uint8Array, at: number): void {
    const base = this.slot!.base;
    dst.set(simdMemory().subarray(base, base + this.decoded), at);
  }
  /** Characters decoded into the slot (not in the framer's data). */
  get decodedChars(): number {
    return this.decoded;
  }

  /** Tells the framer how many bytes went past it (offsets, limits: within {@link cap}). */
  private settle(): void {
    if (this.unsettled === 0) return;
    const n = this.unsettled;
    this.unsettled = 0;
    this.framer.skipData(n);
  }

  /** Gives every staged character back to the framer (it goes on on the plain path). */
  evict(): void {
    if (this.state === IDLE) return;
    if (this.tailing) this.flushTail(); // the held tail first: it belongs at the end of the data
    this.settle();
    const base = this.slot!.base;
    const end = this.state === STAGING ? this.staged : this.decoded;
    this.framer.restoreData(AUDIO_PREFIX.length, simdMemory(), base, base + end);
    this.release();
  }

  /** Ends the lease (the event was dispatched or dropped). */
  release(): void {
    this.unsettled = 0; // the event is over (dispatched, dropped, or the stream failed)
    if (this.slot !== null && this.slot.owner === this.ref) this.slot.owner = null;
    this.slot = null;
    this.state = IDLE;
    this.staging = false;
    this.tailing = false;
    this.tailLen = 0;
    this.staged = 0;
    this.decoded = 0;
  }
}
