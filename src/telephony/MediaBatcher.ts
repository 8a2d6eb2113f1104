/**
 * Cuts outbound line audio into the media messages a provider accepts (Exotel: multiples of
 * 320 bytes, at least 3200; Vonage: exactly one 20 ms frame), keeping each acknowledgement request after the audio it follows.
 *
 * Unbatched (`minBatchBytes` and `quantumBytes` 0) every piece goes out as it comes and an
 * acknowledgement request at once. Batched, audio is copied into one growing batch buffer (no
 * per-chunk concatenation) and a request made while audio is held waits for the batch that
 * holds that audio: its acknowledgement then also covers the rest of that batch, so it arrives up
 * to one batch later than the audio it marks. The end of an utterance is padded with silence to a
 * valid size ({@link MediaBatcher.flushPadded}).
 */
import type { OutboundChunking } from './providerAdapter.js';

export interface BatchOutput {
  /** One message's audio: a view, valid only during the call (copy what must outlive it). */
  media(audio: Uint8Array): void;
  /** `counted`: an utterance's own request (false: a user's mark). */
  ack(name: string, counted: boolean): void;
}

interface DeferredAck {
  name: string;
  counted: boolean;
  /** Bytes of held audio before it. */
  at: number;
}

export class MediaBatcher {
  private held = new Uint8Array(0);
  private fill = 0;
  private deferred: DeferredAck[] = [];

  constructor(
    private readonly chunking: OutboundChunking,
    private readonly out: BatchOutput,
  ) {}

  get batched(): boolean {
    return this.chunking.minBatchBytes > 0 || this.chunking.quantumBytes > 0;
  }

  /** Bytes held back until a batch is full. */
  get heldBytes(): number {
    return this.fill;
  }

  /** Takes line audio; returns the bytes that went out now (audio held earlier included). */
  push(audio: Uint8Array): number {
    if (!this.batched || (this.fill === 0 && this.isBatch(audio.length))) {
      // Nothing held and the piece is a valid message as it is (Telnyx's and Vonage's 20 ms
      // frames): it goes out as it came, with no copy through the batch buffer.
      this.out.media(audio);
      return audio.length;
    }
    this.reserve(this.fill + audio.length);
    this.held.set(audio, this.fill);
    this.fill += audio.length;
    let sent = 0;
    for (let n = this.sendable(); n > 0; n = this.sendable()) sent += this.send(n); // bounded: each pass sends ≥ 1 quantum
    return sent;
  }

  /** Requests an acknowledgement after everything pushed so far. */
  ack(name: string, counted: boolean): void {
    if (this.fill === 0) this.out.ack(name, counted);
    else this.deferred.push({ name, counted, at: this.fill });
  }

  /**
   * Sends what is held, padded with `silence` bytes up to a valid batch; returns the bytes sent
   * (padding included).
   */
  flushPadded(silence: number): number {
    if (this.fill === 0) return 0;
    const { quantumBytes: q, minBatchBytes: min } = this.chunking;
    const whole = q > 0 ? Math.ceil(this.fill / q) * q : this.fill;
    const size = Math.max(whole, min);
    this.reserve(size);
    this.held.fill(silence, this.fill, size);
    this.fill = size;
    const max = this.chunking.maxBatchBytes ?? 0;
    let sent = 0;
    while (this.fill > 0) sent += this.send(max > 0 ? Math.min(this.fill, max) : this.fill);
    return sent;
  }

  /** After a clear: drops held audio; returns the users' marks that were waiting for it. */
  drop(): string[] {
    const users = this.deferred.filter((d) => !d.counted).map((d) => d.name);
    this.deferred = [];
    this.fill = 0;
    return users;
  }

  /** Whether `n` bytes make one valid message on their own. */
  private isBatch(n: number): boolean {
    const { quantumBytes: q, minBatchBytes: min } = this.chunking;
    const max = this.chunking.maxBatchBytes ?? 0;
    return n > 0 && n >= min && (q === 0 || n % q === 0) && (max === 0 || n <= max);
  }

  /** The largest valid batch in what is held (0: none yet). */
  private sendable(): number {
    const { quantumBytes: q, minBatchBytes: min } = this.chunking;
    const n = q > 0 ? Math.floor(this.fill / q) * q : this.fill;
    if (n < min || n === 0) return 0;
    const max = this.chunking.maxBatchBytes ?? 0;
    return max > 0 && n > max ? max : n;
  }

  private send(n: number): number {
    // A view: `media` builds its message before returning and keeps none of it (an adapter that
    // hands bytes to the socket copies them), so `held` can be reused at once.
    this.out.media(this.held.subarray(0, n));
    this.held.copyWithin(0, n, this.fill);
    this.fill -= n;
    let due = 0;
    while (due < this.deferred.length && this.deferred[due]!.at <= n) due++;
    const ready = this.deferred.splice(0, due);
    for (const d of this.deferred) d.at -= n;
    for (const d of ready) this.out.ack(d.name, d.counted);
    return n;
  }

  private reserve(size: number): void {
    if (size <= this.held.length) return;
    const grown = new Uint8Array(Math.max(size, this.held.length * 2, this.chunking.minBatchBytes + this.chunking.quantumBytes));
    grown.set(this.held.subarray(0, this.fill));
    this.held = grown;
  }
}
