/**
 * What a fast path may take from {@link SseFramer}: the one seam between SSE framing and the
 * speech hot path's base64 stage (`events/Base64Stage.ts`). The stage keeps the characters of an
 * event's audio string (and the rest of that data line) outside the framer for a while, in wasm
 * memory, and the framer must go on counting them so that line and event limits and byte offsets
 * stay exactly what they would be without the stage; these members are how the two agree on that.
 * Nothing else of the framer is the fast path's business: its framing API (`feed`, `end`,
 * `eventStartOffset`, the dispatched event's view) belongs to whoever owns the framer.
 *
 * An interface, not a wrapper: the stage holds the framer itself, typed as this, so a call costs
 * what a call on the class costs (no closure, no extra object per read).
 */
export interface SseFastPathSeam {
  /** Whether the stream is inside the value of the current event's first and only `data` line
   * (its bytes so far are {@link pendingData}`[0..`{@link pendingDataLength}`)`). */
  readonly inFirstDataLine: boolean;
  /** The current event's data so far (valid between feeds). */
  readonly pendingData: Buffer;
  readonly pendingDataLength: number;
  /** Data bytes the current line can still take before a line or event limit is exceeded. */
  readonly dataRoom: number;
  /** The pending data after `keep` bytes is now held outside; the framer still counts it against
   * the event limit. */
  takePendingData(keep: number): void;
  /** `n` more bytes of the current data line were consumed (and kept) outside the framer: offsets
   * and the line and event limits count them as if they had been framed there. */
  skipData(n: number): void;
  /** Bytes held outside come back: `src[a..b)` is inserted into the pending data at `at`. */
  restoreData(at: number, src: Uint8Array, a: number, b: number): void;
}
