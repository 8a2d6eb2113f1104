/**
 * The speech stream engine: a Duplex you write SSE body bytes into and read audio frames from.
 *
 * ```
 * bytes → SpeechEventScanner → RingBuffer → decoder → Framer → [conversion stage] → frames
 *                └→ AlignmentStore → WordClock ← Playhead (moved when the consumer reads a frame)
 * ```
 *
 * - Audio is decoded lazily, when the readable side wants frames, and only up to the end of the
 *   last complete (validated) event — unless the ring is full, in which case the event being
 *   received is decoded as it arrives so it can ever complete. A full ring holds the write
 *   callback: real backpressure toward the source.
 * - A typed error ends the stream, but only after every frame (and word) from before the fault
 *   has been read by the consumer.
 */
import { Duplex } from 'node:stream';
import { AlignmentStore } from '../align/AlignmentStore.js';
import { DEFAULT_RING_CAPACITY, INITIAL_RING_BYTES, RingBuffer } from '../buffer/RingBuffer.js';
import { createDecoder } from '../codec/createDecoder.js';
import type { AudioDecoder, AudioFrame } from '../codec/types.js';
import { DECODE_STEP_MS } from '../codec/types.js';
import { AbortError, CodecError, type VoicewireError } from '../errors.js';
import { SpeechEventScanner, type SpeechEventMeta } from '../events/SpeechEventScanner.js';
import { Playhead } from '../play/Playhead.js';
import { WordClock, type WordEvent, type WordRevision } from '../play/WordClock.js';
import { FrameProducer, type OutputFormat } from './FrameProducer.js';
import { defaultStageFactory, resolveOutput, type FrameStage } from './outputStage.js';
import { WriteFeeder } from './WriteFeeder.js';

import type { SpeechPipelineOptions, SpeechSummary } from './types.js';

export type { OutputOptions } from './outputStage.js';
export type { WordEvent, WordRevision } from '../play/WordClock.js';
export type { OutputFormat } from './FrameProducer.js';
export type { SpeechPipelineOptions, SpeechSummary } from './types.js';

/**
 * The readable side's highWaterMark, in frames. `_read()` runs when a read leaves fewer than
 * this many buffered, and then gets every frame one decode step made (see pump): frames are
 * decoded as the consumer takes them, not far ahead (each frame alive across a GC is a survivor
 * to copy). Not 0: a read that finds the buffer empty sets `needReadable`, and every refill then
 * queues an `emitReadable` tick (thousands pile up while a writer feeds flat out); with one frame
 * kept back the buffer is refilled before it empties.
 */
const READABLE_HIGH_WATER_FRAMES = 1;

/**
 * How much audio one {@link SpeechPipeline.readFrame} that finds no frame ready decodes, when that
 * much is decodable: the frames after it are then taken from the queue until it runs out. A paced
 * consumer (a phone line, one frame per 20 ms) then visits the decoder once per 200 ms (two pages
 * of the local service's Opus, 5 packets of 20 ms each) instead of once per decode step
 * (DECODE_STEP_MS: two packets), so its state (libopus, Ogg packet queue, framer, slab) is touched
 * while still in cache: with hundreds of streams visited in turn it was cold at every visit.
 * Measured flat out, 100 streams: 100 ms cut ~4 % of the engine's CPU, 200 ms ~5 % more
 * (native-notes/engine-performance.md, eleventh pass). Bounded: at most this much plus one
 * decode step is decoded ahead of the consumer (10–12 μ-law frames, ~2 KB). The price is a
 * burst: one visit in ten decodes ten packets (~0.85 ms here, against ~0.25 ms for a floor that
 * decodes each 5-packet event on arrival). Paced at 40–80 streams, 100 ms and 60 ms bounds cut the
 * burst by a third and by half but cost 0–13 % more CPU per stream-second (thirteenth pass); at
 * 40–120 streams (sixteenth pass) 60 ms halved the burst, read within the rounds' spread flat
 * out but +2.4–8.4 % paced, lateness not decidable on that loaded machine: the concurrency bench
 * searches its N beside this default's.
 */
export const PULL_AHEAD_MS = 200;

/**
 * The frame queue's slots kept when it empties: slots below `queueHead` are spent (already
 * delivered), and one of them holds {@link SPENT_FRAME}, never a frame the consumer has.
 */
const SPENT_SLOTS = 1;
const SPENT_FRAME: AudioFrame = Object.freeze({
  samples: new Uint8Array(0),
  encoding: 'mulaw',
  sampleRate: 0,
  channels: 0,
  startSample: 0,
  sampleCount: 0,
});

// Typed events: the interface merges overloads into the class's Duplex methods (the rule's concern, members
// declared but not implemented, does not apply: Duplex implements them).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface SpeechPipeline {
  on(event: 'word', listener: (word: WordEvent) => void): this;
  on(event: 'wordRevised', listener: (revision: WordRevision) => void): this;
  on(event: 'warning', listener: (warning: VoicewireError) => void): this;
  on(event: 'format', listener: (format: OutputFormat) => void): this;
  on(event: 'summary', listener: (summary: SpeechSummary) => void): this;
  on(event: 'data', listener: (frame: AudioFrame) => void): this;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Duplex's own signature
  on(event: string | symbol, listener: (...args: any[]) => void): this;
  once(event: 'word', listener: (word: WordEvent) => void): this;
  once(event: 'summary', listener: (summary: SpeechSummary) => void): this;
  once(event: 'format', listener: (format: OutputFormat) => void): this;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Duplex's own signature
  once(event: string | symbol, listener: (...args: any[]) => void): this;
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class SpeechPipeline extends Duplex {
  readonly playhead: Playhead;
  readonly alignment = new AlignmentStore();
  private readonly options: SpeechPipelineOptions;
  private readonly ring: RingBuffer;
  /** The write side: body bytes into the scanner, a write held while the ring is full. */
  private readonly input: WriteFeeder;
  private readonly decoder: AudioDecoder;
  private readonly clock: WordClock;
  private readonly frameMs: number;
  /** Frames one pulling pump decodes ahead at most ({@link PULL_AHEAD_MS}). */
  private readonly pullFrames: number;
  /**
   * With `pullSpreadMs`: the frames one readFrame() decodes at most, and it decodes once no more
   * than {@link pullFrames} minus these are queued (so a visit decodes a whole spread, not one
   * decode step every other call); 0 without it (decodes only when none is queued).
   */
  private readonly spreadFrames: number;
  /** Frames queued when this readFrame() visit began decoding (spread visits stop `spreadFrames` later). */
  private pullFrom = 0;
  private readonly producer: FrameProducer;
  private stage: FrameStage | null = null;
  /** Frames waiting for the readable side. */
  private queue: AudioFrame[] = [];
  private queueHead = 0;
  private wantFrames = false;
  /** Whether `_read()` has run yet. */
  private readStarted = false;
  private pumping = false;
  /** {@link readFrame} is decoding: pump stops once a frame is queued, pushing nothing. */
  private pulling = false;
  /** Inside readFrame's fallback to `read()`: a `_read()` then does not refill (see readFrame). */
  private inReadFrame = false;
  /**
   * A `_read()` skipped its refill (readFrame's fallback took a buffered frame): the readable
   * side's `reading` flag stays set until a push, so a later plain `read()` refills first.
   */
  private refillOwed = false;
  private inputEnded = false;
  /** First fault of the input (SSE / event) or of decoding: the stream ends with it once drained. */
  private fault: Error | null = null;
  private decodeDone = false;
  private decoderReady: boolean;
  private finished = false;
  private cleaned = false;
  private stats = { events: 0, frames: 0 };
  private readonly onAbort = (): void => {
    this.destroy(new AbortError('speech pipeline aborted', this.options.signal?.reason));
  };

  constructor(options: SpeechPipelineOptions) {
    super({ readableObjectMode: true, readableHighWaterMark: READABLE_HIGH_WATER_FRAMES, decodeStrings: true });
    this.options = options;
    // Frame size and output format are read from the options here, once (and checked).
    const { frameMs, output } = resolveOutput(options);
    this.frameMs = frameMs;
    this.pullFrames = Math.max(1, Math.ceil((options.pullAheadMs ?? PULL_AHEAD_MS) / frameMs));
    this.spreadFrames = options.pullSpreadMs === undefined ? 0 : Math.max(1, Math.ceil(options.pullSpreadMs / frameMs));
    this.playhead = new Playhead(options.playhead ?? 'consumer');
    // stepMs: bounded decode work per step (frames flow after every packet or two; see FrameProducer).
    // reuseOutput: the FrameProducer's framer copies every block before the next decode call.
    this.decoder = createDecoder(options.format, {
      sampleRate: options.sampleRate,
      outputSampleRate: output?.sampleRate,
      stepMs: DECODE_STEP_MS,
      reuseOutput: true,
      onInvalidPage: options.onInvalidEvent ?? 'fail',
    });
    if (output !== null) this.stage = (options.stageFactory ?? defaultStageFactory)(output);
    // The decoder's wasm (mp3) and the conversion stage's resampler wasm may load asynchronously.
    const loading = [this.decoder.ready, this.stage?.ready].filter((p): p is Promise<void> => p !== undefined);
    this.decoderReady = loading.length === 0;
    if (!this.decoderReady) {
      Promise.all(loading).then(
        () => {
          this.decoderReady = true;
          this.pump();
        },
        (err: unknown) => this.failDecode(err instanceof Error ? err : new CodecError('CODEC_UNAVAILABLE', String(err))),
      );
    }
    // Grows on demand up to its capacity: a short stream never pays for a 1 MiB buffer. Safe here:
    // the scanner's writer and the FrameProducer read ring.buffer after ring.writeIndex/readIndex.
    this.ring = new RingBuffer(options.ringCapacity ?? DEFAULT_RING_CAPACITY, INITIAL_RING_BYTES);
    this.producer = new FrameProducer({
      ring: this.ring,
      decoder: this.decoder,
      frameMs: this.frameMs,
      stage: this.stage,
      output,
      defaultStage: options.stageFactory === undefined,
      declared: { format: options.format, ...(options.sampleRate === undefined ? {} : { sampleRate: options.sampleRate }) },
      onWarning: (warning) => this.emit('warning', warning),
      onFormat: (format) => {
        this.playhead.setSampleRate(format.sampleRate);
        this.emit('format', format);
      },
    });
    this.input = new WriteFeeder({
      ring: this.ring,
      scanner: new SpeechEventScanner({
        ring: this.ring,
        onEvent: (meta) => this.onSpeechEvent(meta),
        onWarning: (warning) => this.emit('warning', warning),
        onInvalidEvent: options.onInvalidEvent ?? 'fail',
        ...(options.maxEventBytes === undefined ? {} : { maxEventBytes: options.maxEventBytes }),
      }),
      pump: () => this.pump(),
      stopped: () => this.fault !== null || this.destroyed,
      fail: (err) => this.failInput(err),
    });
    this.clock = new WordClock({
      onWord: (word) => this.emit('word', word),
      onRevised: (revision) => this.emit('wordRevised', revision),
    });
    this.playhead.onAdvance((seconds) => this.clock.advance(seconds));
    const signal = options.signal;
    if (signal?.aborted) process.nextTick(this.onAbort);
    else signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The output format, once known (also sent as a `format` event). */
  get format(): OutputFormat | null {
    return this.producer.format;
  }

  /** Totals so far (the final ones come with the `summary` event). */
  summary(): SpeechSummary {
    const rate = this.producer.format?.sampleRate ?? 0;
    return {
      durationSec: rate > 0 ? this.producer.samples / rate : 0,
      words: this.alignment.timeline().length,
      events: this.stats.events,
      bytes: this.input.bytes,
      audioBytes: this.ring.totalWritten,
      frames: this.stats.frames,
    };
  }

  /**
   * The byte source failed (e.g. the connection broke mid-body): later input is ignored, every
   * frame and word validated before the fault is still delivered, then the stream ends with
   * `error`. (Added for the speech client, which must report a typed mid-stream error without
   * losing the audio that came before it.)
   */
  failSource(error: Error): void {
    if (this.destroyed || this.finished) return;
    this.input.feedWaiting(); // received before the fault: fed first
    this.failInput(error);
  }

  // --- writable side: SSE bytes --------------------------------------------------------------

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.fault !== null || this.finished) {
      callback(); // the input already failed: later bytes are ignored, the error comes once drained
      return;
    }
    // With the consumer reading ('data' listener, pipe, resume) but its first read a tick away
    // (resume() queued it), the write is fed on the tick after, once frames flow, instead of
    // filling the ring with as much of a large write as it holds and decoding it all later, out
    // of cache. Measured: a 1.9 MB pcm body written right after on('data') cost 1.14–1.23× the
    // raw floor fed at once, 0.98–0.99× fed once frames flow.
    const firstReadATickAway = !this.readStarted && this.readableFlowing === true;
    this.input.write(chunk, callback, firstReadATickAway);
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.fault === null) {
      try {
        this.input.end();
      } catch (err) {
        this.failInput(err);
      }
    }
    this.inputEnded = true;
    callback();
    this.pump();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.cleanup();
    callback(error);
  }

  private onSpeechEvent(meta: SpeechEventMeta): void {
    this.stats.events = meta.index + 1;
    // A chunk_seq the store has never seen: its audio begins here (one-WAV-per-chunk streams).
    if (this.alignment.chunk(meta.chunkSeq) === undefined) this.producer.markChunkStart(meta.audioStart);
    const change = this.alignment.apply(meta);
    if (change !== null) this.clock.update(change);
    this.options.onEvent?.(meta);
  }

  private failInput(err: unknown): void {
    if (this.fault === null) this.fault = err instanceof Error ? err : new Error(String(err));
    this.input.release();
    this.pump();
  }

  /** The decoder's or stage's backend failed to load: nothing will be decoded; drain and end with it. */
  private failDecode(err: Error): void {
    this.decoderReady = true;
    this.decodeDone = true;
    if (this.fault === null) this.fault = err;
    this.pump();
  }

  // --- readable side: frames -----------------------------------------------------------------

  override _read(): void {
    this.readStarted = true;
    if (this.inReadFrame && this.readableLength > 0) {
      // readFrame() is taking the last buffered frame: the frames after it are taken directly.
      this.refillOwed = true;
      return;
    }
    this.wantFrames = true;
    this.pump();
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Duplex's own signature
  override read(size?: number): any {
    if (this.refillOwed && !this.inReadFrame) {
      // readFrame() left the readable side waiting on a refill it skipped: make it now.
      this.refillOwed = false;
      this.wantFrames = true;
      this.pump();
    }
    return super.read(size);
  }

  /**
   * The next frame, taken directly from the decoder's output, or null when none is ready yet:
   * `read()` for a consumer that takes frames on its own clock (a phone line's 20 ms tick), without
   * the readable side's per-frame buffering and scheduling (a push, a buffer shift and a queued
   * tick per frame: native-notes/engine-performance.md, tenth pass). Frames are decoded as they are
   * taken, as with `read()`.
   *
   * The stream contract is `read()`'s: frames already buffered on the readable side come first;
   * after null, `'readable'` is emitted once a frame is ready, and `'end'` (or `'error'`, after
   * every frame before the fault) once none is left. The playhead and `word` events move as with
   * `read()`; no `'data'` event is emitted for frames taken here (a `'data'` listener puts the
   * stream in flowing mode, where this is `read()`). Mix with `read()` freely.
   * @example
   * ```ts
   * const frame = speech.readFrame(); // every 20 ms
   * if (frame === null) speech.once('readable', resumeTicks);
   * ```
   */
  readFrame(): AudioFrame | null {
    // `cleaned`: the stream finished or was destroyed (one field of this object: the readable
    // side's `destroyed` reads both sides' states, more memory touched per frame).
    if (!this.cleaned && this.readableLength === 0 && this.readableFlowing !== true) {
      const queued = this.queue.length - this.queueHead;
      if (queued === 0 || (this.spreadFrames > 0 && queued <= this.pullFrames - this.spreadFrames)) {
        this.pullFrom = queued;
        this.pulling = true;
        try {
          this.pump();
        } finally {
          this.pulling = false;
        }
      }
      if (this.readableLength === 0 && this.queueHead < this.queue.length) {
        const frame = this.queue[this.queueHead++] as AudioFrame;
        this.delivered(frame);
        return frame;
      }
    }
    if (this.readableFlowing === true) return this.read() as AudioFrame | null;
    if (this.readableLength === 0) {
      // Nothing ready: read() returns null and the readable side waits for the next frame (its
      // 'readable'). A refill skipped before left it `reading` (no _read() comes): ask here.
      this.refillOwed = false;
      this.wantFrames = true;
    }
    this.inReadFrame = true;
    try {
      return super.read() as AudioFrame | null;
    } finally {
      this.inReadFrame = false;
    }
  }

  /** Every frame handed to the consumer passes here once ('data' fires in read(), flowing mode, pipe and async iteration alike). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Duplex's own signature
  override emit(event: string | symbol, ...args: any[]): boolean {
    if (event !== 'data') return super.emit(event, ...args);
    const frame = args[0] as AudioFrame;
    this.stats.frames++;
    this.playhead.consumedTo(frame.startSample + frame.sampleCount);
    const result = super.emit(event, ...args);
    if (this.decodeDone) this.maybeFinish();
    return result;
  }

  /** A frame taken by {@link readFrame}: what a `'data'` event does, without the event. */
  private delivered(frame: AudioFrame): void {
    this.stats.frames++;
    this.playhead.consumedTo(frame.startSample + frame.sampleCount);
    if (this.decodeDone) this.maybeFinish();
  }

  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (;;) {
        if (this.destroyed || this.finished) return;
        if (this.wantFrames && this.queueHead < this.queue.length) {
          // Every frame already decoded goes to the readable buffer at once, past its
          // highWaterMark if need be (they exist either way: one decode step's worth at most).
          // One push per frame, stopping at the mark, made each read() call _read() and push
          // one frame, each push scheduling a maybeReadMore tick: per-frame churn that stalls
          // hundreds of concurrent streams. Now _read() runs once per decode step.
          let more = true;
          while (this.queueHead < this.queue.length && !this.destroyed) more = this.push(this.queue[this.queueHead++] as AudioFrame);
          this.wantFrames = more;
        }
        if (this.queueHead === this.queue.length && this.queueHead > SPENT_SLOTS) {
          // Reused (no stage or decoder keeps a reference to it), cut to one spent slot rather
          // than emptied: an array cut to length 0 drops its backing store in V8, so each pulling
          // visit's first frame allocated a new one (~150 B per visit per stream).
          this.queue[0] = SPENT_FRAME;
          this.queue.length = SPENT_SLOTS;
          this.queueHead = SPENT_SLOTS;
        }
        // Frames for readFrame(): a batch when it is decodable, so later calls take them from the queue.
        if (this.pulling) {
          const queued = this.queue.length - this.queueHead;
          if (queued >= this.pullFrames || (this.spreadFrames > 0 && queued - this.pullFrom >= this.spreadFrames)) return;
        }
        if (!(this.wantFrames || this.pulling) || !this.decoderReady) return;
        if (this.decodeStep()) continue;
        if (this.input.resume()) continue; // the held write, into the room just made
        if ((this.inputEnded || this.fault !== null) && !this.input.holding && !this.decodeDone) {
          this.flushAll();
          continue;
        }
        if (this.decodeDone) this.maybeFinish();
        return;
      }
    } catch (err) {
      this.fault ??= err instanceof Error ? err : new Error(String(err));
      this.destroy(this.fault);
    } finally {
      this.pumping = false;
    }
  }

  /** Decodes one span of validated audio (or, with a full ring, of the event being received). */
  private decodeStep(): boolean {
    if (this.decodeDone) return false;
    const progressed = this.producer.step(this.input.decodable, this.queue);
    if (this.producer.fault !== null) this.fault ??= this.producer.fault;
    return progressed;
  }

  /** End of input (or a fault): flush the decoder, framer and stage. */
  private flushAll(): void {
    this.decodeDone = true;
    this.producer.finish(this.fault !== null, this.queue);
    if (this.producer.fault !== null) this.fault ??= this.producer.fault;
  }

  /** Ends the readable side once every queued frame was read by the consumer. */
  private maybeFinish(): void {
    if (this.finished || this.queueHead < this.queue.length || this.readableLength > 0) return;
    this.finished = true;
    if (this.fault !== null) {
      const fault = this.fault;
      process.nextTick(() => this.destroy(fault));
      return;
    }
    if (this.playhead.mode === 'consumer') this.clock.finish();
    this.emit('summary', this.summary());
    this.push(null);
    this.cleanup();
  }

  /** One cleanup for the end of the stream and for destroy(). */
  private cleanup(): void {
    if (this.cleaned) return;
    this.cleaned = true;
    this.options.signal?.removeEventListener('abort', this.onAbort);
    this.stage?.free?.();
    this.decoder.free?.();
    this.input.drop();
  }
}

/**
 * Creates the speech stream engine.
 * @example
 * ```ts
 * const speech = createSpeechPipeline({ format: 'pcm', sampleRate: 16000 });
 * speech.on('word', (w) => console.log(w.start.toFixed(2), w.text));
 * response.body.pipe(speech).pipe(mySink); // frames: {samples: Int16Array, sampleRate, ...}
 * ```
 */
export function createSpeechPipeline(options: SpeechPipelineOptions): SpeechPipeline {
  return new SpeechPipeline(options);
}
