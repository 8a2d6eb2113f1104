/**
 * Cuts a sample stream into fixed windows whatever the sizes of the pushes, so detection does not
 * depend on how the network split the audio. Holds at most one partial window.
 */
export class Framer {
  private readonly buf: Int16Array;
  private fill = 0;
  /** Input index of the first sample of the window being filled. */
  private start = 0;

  constructor(readonly size: number) {
    this.buf = new Int16Array(size);
  }

  /** Calls `onWindow` for each window completed by `pcm`; the view is valid during the call only. */
  push(pcm: Int16Array, onWindow: (window: Int16Array, start: number) => void): void {
    const size = this.size;
    let i = 0;
    while (i < pcm.length) {
      const n = Math.min(size - this.fill, pcm.length - i);
      // Element by element: a `subarray` view per push is garbage on a thread hosting many calls.
      const buf = this.buf;
      for (let k = 0, at = this.fill; k < n; k++) buf[at + k] = pcm[i + k]!;
      this.fill += n;
      i += n;
      if (this.fill === size) {
        onWindow(this.buf, this.start);
        this.start += size;
        this.fill = 0;
      }
    }
  }

  /** Input samples taken so far, the partial window included. */
  get position(): number {
    return this.start + this.fill;
  }

  reset(): void {
    this.fill = 0;
    this.start = 0;
  }
}
