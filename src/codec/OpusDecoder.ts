import { CodecError } from '../errors.js';
import type { AudioDecoder, DecodedAudio, DecodeStepOptions, PcmFormat } from './types.js';
import { OggPageReader, type OggPacket } from './ogg/OggPageReader.js';
import { OPUS_NATIVE_RATES, OPUS_RATE, isOpusHead, isOpusTags, parseOpusHead, type OpusHead } from './opus/OpusHead.js';
import { createOpusPacketDecoder, type OpusBackendName, type OpusPacketDecoder } from './opus/backend.js';

/** A queue slot already decoded (lets the packet be collected). */
const EMPTY_PACKET: OggPacket = Object.freeze({ data: new Uint8Array(0), serial: -1, bos: false, eos: false, granule: -1, lastOnPage: false, pageSequence: 0, pageOffset: 0 });
const MIN_ARENA_BYTES = 4096;
const MS_PER_SECOND = 1000;

export interface OggOpusDecoderOptions extends DecodeStepOptions {
  /**
   * Output rate. libopus decodes natively at 8, 12, 16, 24 or 48 kHz; pre-skip and granule
   * positions (48 kHz units) are scaled to it. Any other rate: decode at 48 kHz and resample later.
   * @defaultValue 48000
   */
  sampleRate?: number;
  /** Force a backend (tests, benches). @defaultValue native when it loads, else wasm */
  backend?: OpusBackendName;
}

type StreamState = 'tags' | 'audio';

/**
 * Ogg Opus → interleaved s16, sample-exact with `opusdec --no-dither`: pre-skip dropped at the
 * start of every chained stream, the end trimmed to the last granule position, output gain
 * applied by libopus (OPUS_SET_GAIN, as opusdec does).
 *
 * A chained stream (a new BOS page with OpusHead) re-initialises the decoder. Its channel count
 * is kept from the first stream (libopus up/down-mixes), so the output format never changes.
 *
 * @example
 * const dec = new OggOpusDecoder({ sampleRate: 8000 });
 * const { pcm, errors } = dec.decode(bytes); // then dec.flush() at the end
 */
export class OggOpusDecoder implements AudioDecoder {
  readonly kind = 'opus' as const;
  readonly ready: Promise<void> = Promise.resolve();
  readonly sampleRate: number;
  readonly #backend: OpusBackendName | undefined;
  readonly #reader: OggPageReader;
  #format: PcmFormat | null = null;
  #decoder: OpusPacketDecoder | null = null;
  #serial = -1;
  #state: StreamState = 'tags';
  #head: OpusHead | null = null;
  /** The first stream's OpusHead input rate (0 there means "unspecified"). */
  #sourceRate: number | null = null;
  /** Output-rate samples per channel still to drop (pre-skip) in this stream. */
  #skip = 0;
  /** Output-rate samples per channel given out in this stream, after pre-skip. */
  #linkOut = 0;
  #out: DecodedAudio = { pcm: [], errors: [] };
  /** Packets parsed and not decoded yet, from {@link #queueHead} on. */
  readonly #queue: OggPacket[] = [];
  #queueHead = 0;
  /** A page fault found after the queued packets: reported once they are decoded. */
  #deferred: unknown = null;
  /** Copies of queued packets that were views of an earlier call's input. */
  #arena = new Uint8Array(0);
  #arenaUsed = 0;
  /** Samples per channel (output rate) decoded per call, at most plus one packet. */
  readonly #stepSamples: number;
  #input: Uint8Array | null = null;
  #failed = false;

  constructor(options: OggOpusDecoderOptions = {}) {
    const rate = options.sampleRate ?? OPUS_RATE;
    this.sampleRate = OPUS_NATIVE_RATES.includes(rate) ? rate : OPUS_RATE;
    this.#backend = options.backend;
    const stepMs = options.stepMs ?? Infinity;
    this.#stepSamples = stepMs === Infinity ? Infinity : Math.max(1, Math.round((stepMs * this.sampleRate) / MS_PER_SECOND));
    this.#reader = new OggPageReader({ onPacket: (p) => this.#collect(p) });
  }

  /** The encoder's input rate from the first OpusHead: what a request's `sample_rate` names. */
  get sourceSampleRate(): number | null {
    return this.#sourceRate;
  }

  get format(): PcmFormat | null {
    return this.#format;
  }

  /** True while packets of pages already read wait to be decoded (with `stepMs`). */
  get pending(): boolean {
    return this.#queueHead < this.#queue.length;
  }

  decode(bytes: Uint8Array): DecodedAudio {
    const out: DecodedAudio = { pcm: [], errors: [] };
    this.#out = out;
    if (this.#failed) return out;
    const firstNew = this.#queue.length;
    if (bytes.length > 0) {
      this.#input = bytes;
      try {
        this.#reader.push(bytes);
      } catch (error) {
        // Reported once the packets of the pages before the bad one are decoded.
        this.#deferred ??= error;
      } finally {
        this.#input = null;
      }
    }
    this.#drain(this.#stepSamples);
    if (this.pending && firstNew < this.#queue.length) this.#keepBacklog(bytes, firstNew);
    return out;
  }

  /**
   * Decodes queued packets until about `budget` samples per channel came out (at least one
   * packet), in one tight loop after the parse: libopus interleaved with page parsing measured
   * ~15 % slower (caches), see bench/decode.bench.ts. The queue's fault comes after its audio.
   */
  #drain(budget: number): void {
    const queue = this.#queue;
    let decoded = 0;
    try {
      while (this.#queueHead < queue.length && decoded < budget) {
        const p = queue[this.#queueHead]!;
        queue[this.#queueHead++] = EMPTY_PACKET;
        decoded += this.#packet(p);
      }
    } catch (error) {
      this.#fault(error);
    }
    if (this.#queueHead === queue.length || this.#failed) {
      queue.length = 0;
      this.#queueHead = 0;
      this.#arenaUsed = 0;
      const deferred = this.#deferred;
      this.#deferred = null;
      if (deferred !== null && !this.#failed) this.#fault(deferred);
    }
  }

  /**
   * Packets this call queued (from `firstNew`) and left undecoded that are views of its input:
   * copy them (the input is transient). Those of earlier calls were copied then.
   */
  #keepBacklog(input: Uint8Array, firstNew: number): void {
    const queue = this.#queue;
    for (let i = Math.max(this.#queueHead, firstNew); i < queue.length; i++) {
      const p = queue[i]!;
      if (p.data.buffer !== input.buffer) continue; // already ours
      const n = p.data.length;
      if (this.#arenaUsed + n > this.#arena.length) {
        // Views into the old arena stay valid (it is not reused until the queue is empty).
        this.#arena = new Uint8Array(Math.max(this.#arena.length * 2, n, MIN_ARENA_BYTES));
        this.#arenaUsed = 0;
      }
      this.#arena.set(p.data, this.#arenaUsed);
      p.data = this.#arena.subarray(this.#arenaUsed, this.#arenaUsed + n);
      this.#arenaUsed += n;
    }
  }

  /** Queues a packet for decoding after the parse; copied unless it is a view into the input. */
  #collect(p: OggPacket): void {
    const input = this.#input;
    if (input === null || p.data.buffer !== input.buffer) p = { ...p, data: p.data.slice() };
    this.#queue.push(p);
  }

  flush(): DecodedAudio {
    const out: DecodedAudio = { pcm: [], errors: [] };
    this.#out = out;
    if (this.#failed) return out;
    this.#drain(Infinity);
    if (this.#failed) return out;
    const truncated = this.#reader.end();
    if (truncated) out.errors.push(truncated);
    return out;
  }

  reset(): void {
    this.#reader.reset();
    this.#queue.length = 0;
    this.#queueHead = 0;
    this.#arenaUsed = 0;
    this.#deferred = null;
    this.#decoder?.free();
    this.#decoder = null;
    this.#serial = -1;
    this.#head = null;
    this.#sourceRate = null;
    this.#format = null;
    this.#failed = false;
  }

  free(): void {
    this.#decoder?.free();
    this.#decoder = null;
  }

  #fault(error: unknown): void {
    const e = error instanceof CodecError ? error : new CodecError('OPUS_DECODE_FAILED', String(error), { cause: error });
    if (e.fatal) this.#failed = true;
    this.#out.errors.push(e);
  }

  /** Handles one packet; returns the samples per channel libopus decoded (the step's work). */
  #packet(p: OggPacket): number {
    if (p.bos && isOpusHead(p.data)) {
      this.#startStream(p);
      return 0;
    }
    if (p.serial !== this.#serial) {
      // Before any OpusHead: not an Opus stream at all. Later: another multiplexed stream; ignored.
      if (this.#head === null) parseOpusHead(p.data, p.pageOffset); // throws OPUS_BAD_HEAD
      return 0;
    }
    if (this.#state === 'tags') {
      this.#state = 'audio';
      if (isOpusTags(p.data)) return 0;
    }
    return this.#audio(p);
  }

  #startStream(p: OggPacket): void {
    const head = parseOpusHead(p.data, p.pageOffset);
    const channels = this.#format?.channels ?? head.channels;
    this.#decoder?.free();
    this.#decoder = createOpusPacketDecoder(this.sampleRate, channels, this.#backend);
    if (head.outputGain !== 0) this.#decoder.setGain(head.outputGain);
    this.#format ??= { sampleRate: this.sampleRate, channels };
    this.#head = head;
    if (this.#sourceRate === null && head.inputSampleRate > 0) this.#sourceRate = head.inputSampleRate;
    this.#serial = p.serial;
    this.#state = 'tags';
    this.#skip = this.#toOutputRate(head.preSkip);
    this.#linkOut = 0;
  }

  #audio(p: OggPacket): number {
    const decoder = this.#decoder!;
    const channels = this.#format!.channels;
    let pcm: Int16Array;
    try {
      pcm = decoder.decode(p.data);
    } catch (error) {
      this.#out.errors.push(
        new CodecError('OPUS_DECODE_FAILED', `Opus packet in the page at byte ${p.pageOffset}: ${(error as Error).message}`, {
          byteOffset: p.pageOffset,
          fatal: false,
          cause: error,
        }),
      );
      return 0;
    }
    const decoded = pcm.length / channels;
    let from = 0;
    let count = decoded;
    if (this.#skip > 0) {
      const drop = Math.min(this.#skip, count);
      this.#skip -= drop;
      from = drop;
      count -= drop;
    }
    if (p.granule >= 0) {
      // End trimming: never run past the page's granule position (as opusdec does).
      const maxOut = this.#toOutputRate(p.granule - this.#head!.preSkip) - this.#linkOut;
      count = Math.max(0, Math.min(count, maxOut));
    }
    if (count === 0) return decoded;
    this.#linkOut += count;
    this.#out.pcm.push(from === 0 && count * channels === pcm.length ? pcm : pcm.subarray(from * channels, (from + count) * channels));
    return decoded;
  }

  #toOutputRate(samples48k: number): number {
    return this.sampleRate === OPUS_RATE ? samples48k : Math.round((samples48k * this.sampleRate) / OPUS_RATE);
  }
}
