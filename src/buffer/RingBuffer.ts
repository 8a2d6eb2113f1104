/**
 * A bounded, preallocated byte ring.
 *
 * Writers fill {@link RingBuffer.writeSpan} in place (for example base64 decoded straight into it)
 * and then {@link RingBuffer.commitWrite}; readers take {@link RingBuffer.readSpan} (a zero-copy
 * view, valid until the next write) and then {@link RingBuffer.consume}. Spans are contiguous, so a
 * wrapped region comes back in two calls. Nothing here allocates after construction.
 */
export const DEFAULT_RING_CAPACITY = 1024 * 1024;

export class RingBuffer {
  readonly capacity: number;
  readonly buffer: Buffer;
  /** Index of the next byte to read. */
  private head = 0;
  /** Number of readable bytes. */
  private size = 0;
  /** Bytes ever committed (a running offset readers can use to place events). */
  private written = 0;

  constructor(capacity: number = DEFAULT_RING_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity <= 0) {
      throw new RangeError(`RingBuffer capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
    this.buffer = Buffer.allocUnsafeSlow(capacity);
  }

  /** Readable bytes. */
  get length(): number {
    return this.size;
  }
  /** Free bytes. */
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
    const tail = this.head + this.size;
    return tail >= this.capacity ? tail - this.capacity : tail;
  }
  /** Length of the contiguous free region starting at {@link writeIndex}. */
  get writeSpanLength(): number {
    const tail = this.head + this.size;
    return tail >= this.capacity ? this.head - (tail - this.capacity) : this.capacity - tail;
  }
  /** The contiguous free region, as a view (allocates a view object; hot paths use the indexes). */
  writeSpan(): Buffer {
    const start = this.writeIndex;
    return this.buffer.subarray(start, start + this.writeSpanLength);
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
    return Math.min(this.size, this.capacity - this.head);
  }
  /** The contiguous readable region, as a view; valid until the next consume/write that wraps. */
  readSpan(): Buffer {
    return this.buffer.subarray(this.head, this.head + this.readSpanLength);
  }
  consume(n: number): void {
    if (n < 0 || n > this.size) throw new RangeError(`consume(${n}) with ${this.size} bytes readable`);
    this.head += n;
    if (this.head >= this.capacity) this.head -= this.capacity;
    this.size -= n;
    if (this.size === 0) this.head = 0; // keep spans long: an empty ring restarts at 0
  }
  clear(): void {
    this.head = 0;
    this.size = 0;
  }
}
