/**
 * The pipeline's write side, without the stream: body bytes into the {@link SpeechEventScanner},
 * and the write callbacks that carry backpressure to the source.
 *
 * At most one write is outstanding (a Writable calls `_write` again only after the callback), and
 * it is in one of three places: fed and called back, held on a full ring (called back once the
 * reader has made room and the rest went in), or waiting for the next tick. The reader's side
 * (the pipeline's pump) is reached through the `pump` hook, which may come back here to resume a
 * held write: the pump ignores a call made while it runs, so the recursion is one level deep.
 */
import type { RingBuffer } from '../buffer/RingBuffer.js';
import { VoicewireError } from '../errors.js';
import type { SpeechEventScanner } from '../events/SpeechEventScanner.js';

/**
 * A write larger than this is fed to the scanner in pieces of this size, with a pump between
 * them (see feed): about what one socket read delivers, and small enough to stay in cache.
 */
const WRITE_SLICE_BYTES = 64 * 1024;

interface PendingWrite {
  chunk: Uint8Array;
  /** Bytes of `chunk` the scanner has taken. */
  offset: number;
  callback: (error?: Error | null) => void;
}

export interface WriteFeederOptions {
  /** The ring the scanner writes audio into (its free space decides when a held write resumes). */
  ring: RingBuffer;
  scanner: SpeechEventScanner;
  /**
   * Lets the reader decode what the scanner completed, if it wants frames. Called between the
   * slices of a large write, when a write is held and after each write is called back.
   */
  pump(): void;
  /** Whether later bytes are to be ignored: the stream failed or is gone. */
  stopped(): boolean;
  /** The input failed (a typed scanner error, or RING_OVERFLOW): called before the write's callback. */
  fail(err: unknown): void;
}

export class WriteFeeder {
  /** Body bytes written so far. */
  bytes = 0;
  private readonly ring: RingBuffer;
  private readonly scanner: SpeechEventScanner;
  private readonly pump: () => void;
  private readonly stopped: () => boolean;
  private readonly fail: (err: unknown) => void;
  /** A write the ring had no room for: its callback waits until the reader drains the ring. */
  private held: PendingWrite | null = null;
  /** A write to feed on the next tick (see write). */
  private waiting: PendingWrite | null = null;

  constructor(options: WriteFeederOptions) {
    this.ring = options.ring;
    this.scanner = options.scanner;
    this.pump = options.pump;
    this.stopped = options.stopped;
    this.fail = options.fail;
  }

  /**
   * How far the reader may decode (a ring.totalWritten offset): the audio of complete, validated
   * events; while a write is held, everything in the ring, since the event being received must
   * be decoded as it arrives to make room for the rest of it.
   */
  get decodable(): number {
    const ring = this.ring;
    return this.held !== null ? ring.totalWritten : Math.min(this.scanner.committedAudio, ring.totalWritten);
  }

  /** Whether a write is held on a full ring. */
  get holding(): boolean {
    return this.held !== null;
  }

  /**
   * Takes a write: feeds it now, or with `nextTick`, on the next tick (the pipeline's consumer is
   * reading but its first read is a tick away) unless {@link feedWaiting} runs first.
   */
  write(chunk: Uint8Array, callback: (error?: Error | null) => void, nextTick: boolean): void {
    this.bytes += chunk.length;
    const write: PendingWrite = { chunk, offset: 0, callback };
    if (nextTick) {
      this.waiting = write;
      process.nextTick(this.feedWaiting);
      return;
    }
    this.feed(write);
  }

  /** Feeds the write waiting for the next tick now (a no-op when there is none). */
  readonly feedWaiting = (): void => {
    const waiting = this.waiting;
    this.waiting = null;
    if (waiting !== null) this.feed(waiting); // null: fed, failed or dropped meanwhile
  };

  /**
   * The reader may have made room: feeds the held write on, if the ring has any. It may hold
   * again, or be called back (and the callback may write again). False when nothing was fed.
   */
  resume(): boolean {
    const held = this.held;
    if (held !== null && this.ring.free > 0) {
      this.held = null;
      this.feed(held);
      return true;
    }
    return false;
  }

  /** The body ended: throws the scanner's SSE_TRUNCATED when it stopped inside an event. */
  end(): void {
    this.scanner.end();
  }

  /** The input failed: the held (or waiting) write is called back and the rest of it ignored. */
  release(): void {
    const write = this.held ?? this.waiting;
    this.drop();
    write?.callback();
  }

  /** The stream is gone: forgets the held or waiting write without calling it back. */
  drop(): void {
    this.held = null;
    this.waiting = null;
  }

  /**
   * Feeds a write into the scanner; holds it (and its callback) while the ring is full.
   *
   * A large write (a whole body handed over at once, a file) goes in {@link WRITE_SLICE_BYTES} at
   * a time, decoding what each slice completed when the consumer wants frames: the ring then
   * holds about a slice, not the whole write up to its capacity (growing, with a copy per
   * doubling, and out of cache by the time it is decoded).
   */
  private feed(write: PendingWrite): void {
    const { chunk } = write;
    try {
      while (write.offset < chunk.length) {
        const end = chunk.length - write.offset > WRITE_SLICE_BYTES ? write.offset + WRITE_SLICE_BYTES : chunk.length;
        // A view from 0, so that offsets (and the framer's in-place data lines) stay the chunk's.
        const piece = end === chunk.length ? chunk : chunk.subarray(0, end);
        const n = this.scanner.feed(piece, write.offset);
        write.offset += n;
        if (write.offset < end) {
          if (n === 0 && this.ring.length === 0) {
            throw new VoicewireError('RING_OVERFLOW', `the scanner made no progress with an empty ring of ${this.ring.capacity} bytes`, {
              byteOffset: this.bytes - chunk.length + write.offset,
            });
          }
          this.held = write; // ring full: the callback waits until the consumer drains it
          this.pump();
          return;
        }
        if (end < chunk.length) {
          this.pump(); // decodes the slice's events (a no-op when feed runs inside pump)
          if (this.stopped()) break; // later bytes are ignored, as in the pipeline's _write
        }
      }
    } catch (err) {
      this.fail(err);
    }
    write.callback();
    this.pump();
  }
}
