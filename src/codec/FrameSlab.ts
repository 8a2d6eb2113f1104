/**
 * Frame memory cut from slabs: each frame is a view into a larger ArrayBuffer, carved at
 * increasing offsets and never handed out twice, so a frame stays the consumer's own (nothing
 * later overwrites it) while a stream allocates one ArrayBuffer per slab instead of one per frame.
 *
 * Why: every ArrayBuffer has an off-heap backing store that V8 tracks one by one (an extension
 * swept at each scavenge, counted as external memory towards GC heuristics). At telephony rates,
 * a fresh typed array per 20 ms frame per stream made the young-generation GC the main source of
 * frame lateness (native-notes/engine-performance.md, "Concurrency and memory").
 *
 * Trade-off, as with Node's Buffer pool: `frame.samples.buffer` is the shared slab, not the
 * frame's own memory, and the parts of it not handed out yet are uninitialized. Use
 * `samples.byteOffset`/`byteLength` with it, and to transfer a frame to a worker (postMessage
 * transfer list), send `samples.slice()`, never `samples.buffer` (that would detach the
 * neighbouring frames). A consumer that keeps one frame keeps its whole slab
 * alive ({@link FRAMES_PER_SLAB} frames, {@link MAX_SLAB_BYTES} at most).
 */

/**
 * Frames per slab. A slab is freed once its last frame is dropped, so it should die young: a
 * slab of 8 frames of 20 ms is garbage well within a second (frames are read in real time) and is
 * freed by a scavenge; a slab of 100 frames outlived two scavenges at telephony load, was promoted
 * and only freed by a mark-compact, which then ran every 1–2 s (native-notes/engine-performance.md).
 */
export const FRAMES_PER_SLAB = 8;
/** Requests larger than a quarter of this get an ArrayBuffer of their own (too few per slab to matter). */
export const MAX_SLAB_BYTES = 64 * 1024;
/** Every view starts on an 8-byte boundary (any typed array's alignment). */
const ALIGN = 8;
const NO_SLAB = new ArrayBuffer(0);

export class FrameSlab {
  /** The slab being carved (or, right after a large request, that request's own buffer). */
  private buffer: ArrayBuffer = NO_SLAB;
  private slab: ArrayBuffer | null = null;
  private used = 0;

  int16(length: number): Int16Array {
    const offset = this.take(length * Int16Array.BYTES_PER_ELEMENT);
    return new Int16Array(this.buffer, offset, length);
  }

  uint8(length: number): Uint8Array {
    const offset = this.take(length);
    return new Uint8Array(this.buffer, offset, length);
  }

  float32(length: number): Float32Array {
    const offset = this.take(length * Float32Array.BYTES_PER_ELEMENT);
    return new Float32Array(this.buffer, offset, length);
  }

  /** Reserves `bytes` never handed out before; returns their offset in `buffer`. */
  private take(bytes: number): number {
    const size = Math.ceil(bytes / ALIGN) * ALIGN;
    if (size * 4 > MAX_SLAB_BYTES) {
      this.buffer = uninitialized(bytes);
      return 0;
    }
    if (this.slab === null || this.used + size > this.slab.byteLength) {
      // Sized for FRAMES_PER_SLAB requests like this one (frames of a stream are all one size).
      this.slab = uninitialized(Math.min(MAX_SLAB_BYTES, size * FRAMES_PER_SLAB));
      this.used = 0;
    }
    const offset = this.used;
    this.used += size;
    this.buffer = this.slab;
    return offset;
  }
}

/**
 * Memory that is not zero-filled: every frame is written whole before it is handed out, so the
 * zeroing `new ArrayBuffer` does is wasted. Measured here: 0.65 µs for a 15 KiB slab (a slab of
 * eight 20 ms frames at 48 kHz) against 1.2 µs zeroed, 0.9 against 3.1 µs at 64 KiB. As with
 * Node's Buffer pool, the bytes of a slab not handed out yet are whatever the allocator held.
 */
function uninitialized(bytes: number): ArrayBuffer {
  return Buffer.allocUnsafeSlow(bytes).buffer as ArrayBuffer;
}
