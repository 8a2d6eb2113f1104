/**
 * A bounded byte ring.
 *
 * Writers fill {@link RingBuffer.writeSpan} in place (for example base64 decoded straight into it)
 * and then {@link RingBuffer.commitWrite}; readers take {@link RingBuffer.readSpan} (a zero-copy
 * view, valid until the next write) and then {@link RingBuffer.consume}. Spans are contiguous, so a
 * wrapped region comes back in two calls.
 *
 * Memory: `capacity` is the bound (what {@link free} and backpressure count against). By default
 * all of it is allocated up front and nothing allocates later. With `initialBytes` smaller, the
 * storage starts there and doubles, up to `capacity`, only when a writer finds it full: the
 * speech pipeline does that (a few seconds of opus is ~20 KiB), so a short stream never
 * allocates, nor makes the GC account for, a 1 MiB buffer, which cost ~10 % of decoding a 2.8 s
 * stream (native-notes/engine-performance.md). Growing copies the readable bytes once (amortised
 * O(1) per byte); after the ring has reached its working size nothing allocates.
 */
export const DEFAULT_RING_CAPACITY = 1024 * 1024;
/** A good `initialBytes` for a ring that may grow: 64 KiB. */
export const INITIAL_RING_BYTES = 64 * 1024;
const GROWTH_FACTOR = 2;

export class RingBuffer {
  readonly capacity: number;
  private storage: Buffer;
  /** Index of the next byte to read. */
  private head = 0;
  /** Number of readable bytes. */
  private size = 0;
  /** Bytes ever committed (a running offset readers can use to place events). */
  private written = 0;

  /**
   * @param initialBytes storage allocated up front. @defaultValue `capacity` (never grows). When
   * smaller, read {@link buffer} AFTER {@link writeIndex} (where growth happens), not before.
   */
  constructor(capacity: number = DEFAULT_RING_CAPACITY, initialBytes: number = capacity) {
    if (!Number.isInteger(capacity) || capacity <= 0) {
      throw new RangeError(`RingBuffer capacity must be a positive integer, got ${capacity}`);
    }
    if (!Number.isInteger(initialBytes) || initialBytes <= 0) {
      throw new RangeError(`RingBuffer initialBytes must be a positive integer, got ${initialBytes}`);
    }
    this.capacity = capacity;
    this.storage = Buffer.allocUnsafeSlow(Math.min(capacity, initialBytes));
  }

  /**
   * The storage the indexes refer to. In a growing ring it is replaced (never shrunk) when a
   * writer finds it full, which happens only in {@link writeIndex} / {@link writeSpanLength} /
   * {@link writeSpan}: read it after those. Views taken earlier keep their bytes.
   */
  get buffer(): Buffer {
    return this.storage;
  }

  /** Readable bytes. */
  get length(): number {
    return this.size;
  }
  /** Free bytes (against `capacity`, whatever storage is allocated so far). */
  get free(): number {
    return this.capacity - this.size;
  }
  /** Total bytes ever committed. */
  get totalWritten(): number {
    return this.written;
  }
  /** Total bytes ever consumed. */
  get totalRead(): number {
    return this.written - this.size;
  }

  /** Start index (in {@link buffer}) of the contiguous free region. */
  get writeIndex(): number {
    const cap = this.roomFor();
    const tail = this.head + this.size;
    return tail >= cap ? tail - cap : tail;
  }
  /** Length of the contiguous free region starting at {@link writeIndex}. */
  get writeSpanLength(): number {
    const cap = this.roomFor();
    const tail = this.head + this.size;
    return tail >= cap ? this.head - (tail - cap) : cap - tail;
  }
  /** The contiguous free region, as a view (allocates a view object; hot paths use the indexes). */
  writeSpan(): Buffer {
    const start = this.writeIndex;
    return this.storage.subarray(start, start + this.writeSpanLength);
  }
  commitWrite(n: number): void {
    if (n < 0 || n > this.free) throw new RangeError(`commitWrite(${n}) with ${this.free} bytes free`);
    this.size += n;
    this.written += n;
  }

  /**
   * Drops the last `n` committed bytes, which must not have been consumed yet (used to take back
   * the audio of an event that turned out to be invalid).
   */
  uncommit(n: number): void {
    if (n < 0 || n > this.size) throw new RangeError(`uncommit(${n}) with ${this.size} bytes readable`);
    this.size -= n;
    this.written -= n;
  }

  /** Start index of the contiguous readable region. */
  get readIndex(): number {
    return this.head;
  }
  /** Length of the contiguous readable region starting at {@link readIndex}. */
  get readSpanLength(): number {
    return Math.min(this.size, this.storage.length - this.head);
  }
  /** The contiguous readable region, as a view; valid until the next consume/write that wraps. */
  readSpan(): Buffer {
    return this.storage.subarray(this.head, this.head + this.readSpanLength);
  }
  consume(n: number): void {
    if (n < 0 || n > this.size) throw new RangeError(`consume(${n}) with ${this.size} bytes readable`);
    this.head += n;
    if (this.head >= this.storage.length) this.head -= this.storage.length;
    this.size -= n;
    if (this.size === 0) this.head = 0; // keep spans long: an empty ring restarts at 0
  }
  clear(): void {
    this.head = 0;
    this.size = 0;
  }

  /** The storage length, after growing it when a writer finds it full below `capacity`. */
  private roomFor(): number {
    const allocated = this.storage.length;
    const used = this.size;
    if (used < allocated || allocated === this.capacity) return allocated;
    const next = Buffer.allocUnsafeSlow(Math.min(this.capacity, allocated * GROWTH_FACTOR));
    // Unwrap the readable bytes to the start of the new storage.
    const first = Math.min(used, allocated - this.head);
    this.storage.copy(next, 0, this.head, this.head + first);
    this.storage.copy(next, first, 0, used - first);
    this.storage = next;
    this.head = 0;
    return next.length;
  }
}
