import type { OggPacketInfo } from './OggPageReader.js';

/**
 * Packets parsed ahead of decoding, kept without an object per packet: their bytes copied end to
 * end into one arena, where each one starts and ends (and its serial, granule and page offset) in
 * typed arrays. A decoder that parses a whole step of pages before decoding (OggOpusDecoder: up
 * to 16 KiB of pages, ~100 packets) held one packet object and one view per queued packet before:
 * young objects alive at every scavenge of a long stream, and the largest part of its garbage.
 *
 * A FIFO: `push` at the tail, `shift` at the head. Space is reclaimed when the queue empties, and
 * by moving the undecoded rest to the front when the tail reaches the end (no unbounded growth
 * while a stream keeps a backlog); it grows by doubling only when more is queued at once.
 */

/**
 * Slots and bytes to start with: a real-time stream's backlog (a few 200 ms pages of 20 ms
 * packets); a stream fed flat out grows them (doubling) to a 16 KiB step's worth once.
 */
const INITIAL_PACKETS = 32;
const INITIAL_ARENA_BYTES = 2048;
/** An arena grown past this (a big OpusTags) is dropped once the queue empties. */
const MAX_IDLE_ARENA_BYTES = 64 * 1024;
const FLAG_BOS = 1;
const FLAG_AFTER_GAP = 2;

export class OggPacketQueue {
  private arena = Buffer.allocUnsafeSlow(INITIAL_ARENA_BYTES);
  private arenaUsed = 0;
  private start = new Int32Array(INITIAL_PACKETS);
  private end = new Int32Array(INITIAL_PACKETS);
  private serial = new Uint32Array(INITIAL_PACKETS);
  private flags = new Uint8Array(INITIAL_PACKETS);
  /** Granule positions and page offsets: numbers up to 2^53. */
  private granule = new Float64Array(INITIAL_PACKETS);
  private pageOffset = new Float64Array(INITIAL_PACKETS);
  private head = 0;
  private tail = 0;
  private pushedTotal = 0;

  /** Packets queued and not shifted yet. */
  get length(): number {
    return this.tail - this.head;
  }

  /** Copies `bytes[start, end)` in as the last packet. */
  push(bytes: Uint8Array, start: number, end: number, info: Readonly<OggPacketInfo>): void {
    const n = end - start;
    if (this.tail === this.start.length) this.makeSlot();
    if (this.arenaUsed + n > this.arena.length) this.makeRoom(n);
    const arena = this.arena;
    const at = this.arenaUsed;
    // A plain view and one memcpy: 48 ns for a 160-byte packet, where a byte loop took 184 ns
    // (and Buffer#subarray's view costs more than the constructor's).
    arena.set(new Uint8Array(bytes.buffer, bytes.byteOffset + start, n), at);
    const t = this.tail++;
    this.start[t] = this.arenaUsed;
    this.end[t] = this.arenaUsed + n;
    this.arenaUsed += n;
    this.serial[t] = info.serial;
    this.flags[t] = (info.bos ? FLAG_BOS : 0) | (info.afterGap ? FLAG_AFTER_GAP : 0);
    this.granule[t] = info.granule;
    this.pageOffset[t] = info.pageOffset;
    this.pushedTotal++;
  }

  /** Packets pushed since the queue was made or {@link reset}. */
  get pushed(): number {
    return this.pushedTotal;
  }

  /**
   * The first packet's bytes: a view of the arena, valid until the next `push` (which may move
   * the bytes). A plain Uint8Array, made by its constructor: `Buffer#subarray` costs more per
   * packet (it was ~1 % of a telephony stream's CPU), and both Opus backends take any Uint8Array.
   */
  headBytes(): Uint8Array {
    return this.view(this.head);
  }
  get headSerial(): number {
    return this.serial[this.head]!;
  }
  get headBos(): boolean {
    return (this.flags[this.head]! & FLAG_BOS) !== 0;
  }
  get headGranule(): number {
    return this.granule[this.head]!;
  }
  get headPageOffset(): number {
    return this.pageOffset[this.head]!;
  }
  /** The first packet of its stream after a sequence gap (OggPacketInfo.afterGap). */
  get headAfterGap(): boolean {
    return (this.flags[this.head]! & FLAG_AFTER_GAP) !== 0;
  }

  /** The bytes of the `k`-th queued packet (0 is the head), valid as {@link headBytes}'. */
  bytesAt(k: number): Uint8Array {
    return this.view(this.head + k);
  }

  private view(slot: number): Uint8Array {
    const arena = this.arena;
    const start = this.start[slot]!;
    return new Uint8Array(arena.buffer, arena.byteOffset + start, this.end[slot]! - start);
  }
  /** The page offset of the `k`-th queued packet (0 is the head). */
  pageOffsetAt(k: number): number {
    return this.pageOffset[this.head + k]!;
  }

  /** Drops the first packet. */
  shift(): void {
    if (this.head === this.tail) return;
    if (++this.head === this.tail) this.clear();
  }

  /** Empties the queue and zeroes {@link pushed}. */
  reset(): void {
    this.clear();
    this.pushedTotal = 0;
  }

  clear(): void {
    this.head = 0;
    this.tail = 0;
    this.arenaUsed = 0;
    if (this.arena.length > MAX_IDLE_ARENA_BYTES) this.arena = Buffer.allocUnsafeSlow(INITIAL_ARENA_BYTES);
  }

  /** The tail is at the end of the slots: move the queued packets to the front, or double. */
  private makeSlot(): void {
    if (this.head > 0) {
      this.compact();
      return;
    }
    const size = this.start.length * 2;
    this.start = grown(this.start, new Int32Array(size));
    this.end = grown(this.end, new Int32Array(size));
    this.serial = grown(this.serial, new Uint32Array(size));
    this.flags = grown(this.flags, new Uint8Array(size));
    this.granule = grown(this.granule, new Float64Array(size));
    this.pageOffset = grown(this.pageOffset, new Float64Array(size));
  }

  /** `n` more bytes do not fit after the last packet: move the queued bytes to the front, or grow. */
  private makeRoom(n: number): void {
    this.compact();
    if (this.arenaUsed + n <= this.arena.length) return;
    const arena = Buffer.allocUnsafeSlow(Math.max(this.arena.length * 2, this.arenaUsed + n));
    this.arena.copy(arena, 0, 0, this.arenaUsed);
    this.arena = arena;
  }

  /** Moves the queued packets (slots and bytes) to the front. */
  private compact(): void {
    const head = this.head;
    if (head === 0) return;
    const tail = this.tail;
    const from = this.start[head]!;
    if (head < tail) {
      this.arena.copyWithin(0, from, this.arenaUsed);
      for (let i = head; i < tail; i++) {
        this.start[i] = this.start[i]! - from;
        this.end[i] = this.end[i]! - from;
      }
    }
    this.arenaUsed -= head < tail ? from : this.arenaUsed;
    for (const a of [this.start, this.end, this.serial, this.flags, this.granule, this.pageOffset]) a.copyWithin(0, head, tail);
    this.tail = tail - head;
    this.head = 0;
  }
}

function grown<T extends Int32Array | Uint32Array | Uint8Array | Float64Array>(old: T, into: T): T {
  into.set(old as never);
  return into;
}
