/**
 * Input a step-limited decoder accepted but has not fed to its codec yet: a copy (its inputs are
 * transient ring views), appended at the end and taken from the front. Bounded by what the caller
 * hands over while it is non-empty (the FrameProducer hands over nothing new until it drains).
 */
export class ByteBacklog {
  private bytes = new Uint8Array(0);
  private start = 0;
  private end = 0;

  get length(): number {
    return this.end - this.start;
  }

  /** Appends a copy of `bytes` (compacting, or doubling the storage, when the end is reached). */
  push(bytes: Uint8Array): void {
    const held = this.end - this.start;
    if (this.end + bytes.length > this.bytes.length) {
      if (held + bytes.length <= this.bytes.length) {
        this.bytes.copyWithin(0, this.start, this.end);
      } else {
        const grown = new Uint8Array(Math.max(2 * this.bytes.length, held + bytes.length));
        grown.set(this.bytes.subarray(this.start, this.end));
        this.bytes = grown;
      }
      this.start = 0;
      this.end = held;
    }
    this.bytes.set(bytes, this.end);
    this.end += bytes.length;
  }

  /** Takes up to `n` bytes from the front: a view, valid until the next `push`. */
  take(n: number): Uint8Array {
    const end = Math.min(this.end, this.start + n);
    const piece = this.bytes.subarray(this.start, end);
    this.start = end;
    if (this.start === this.end) this.start = this.end = 0;
    return piece;
  }

  clear(): void {
    this.start = this.end = 0;
  }
}
