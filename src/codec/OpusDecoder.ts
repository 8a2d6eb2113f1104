import { CodecError } from '../errors.js';
import type { AudioDecoder, DecodedAudio, DecodeStepOptions, PcmFormat } from './types.js';
import { OggPacketQueue } from './ogg/OggPacketQueue.js';
import { OggPageReader } from './ogg/OggPageReader.js';
import { OPUS_NATIVE_RATES, OPUS_RATE, isOpusHead, isOpusTags, parseOpusHead, type OpusHead } from './opus/OpusHead.js';
import { createOpusPacketDecoder, type OpusBackendName, type OpusPacketDecoder } from './opus/backend.js';

const MS_PER_SECOND = 1000;
/** Nothing is added to it: results are only written during a decode or flush call. */
const IDLE_OUT: DecodedAudio = Object.freeze({ pcm: Object.freeze([]) as unknown as Int16Array[], errors: Object.freeze([]) as unknown as DecodedAudio['errors'] });

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
  /** The current call's result; {@link IDLE_OUT} between calls (the caller owns the last one's blocks). */
  #out: DecodedAudio = IDLE_OUT;
  /**
   * Packets parsed and not decoded yet, copied (the input is transient), with no object per
   * packet: the queue holds up to a step's worth of pages and is alive at every GC.
   */
  readonly #queue = new OggPacketQueue();
  /** A page fault found after the queued packets: reported once they are decoded. */
  #deferred: unknown = null;
  /** Samples per channel (output rate) decoded per call, at most plus one packet. */
  readonly #stepSamples: number;
  #failed = false;

  constructor(options: OggOpusDecoderOptions = {}) {
    const rate = options.sampleRate ?? OPUS_RATE;
    this.sampleRate = OPUS_NATIVE_RATES.includes(rate) ? rate : OPUS_RATE;
    this.#backend = options.backend;
    const stepMs = options.stepMs ?? Infinity;
    this.#stepSamples = stepMs === Infinity ? Infinity : Math.max(1, Math.round((stepMs * this.sampleRate) / MS_PER_SECOND));
    this.#reader = new OggPageReader({ onPacketBytes: (bytes, start, end, info) => this.#queue.push(bytes, start, end, info) });
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
    return this.#queue.length > 0;
  }

  decode(bytes: Uint8Array): DecodedAudio {
    const out: DecodedAudio = { pcm: [], errors: [], ownedBuffers: true };
    this.#out = out;
    if (this.#failed) return out;
    if (bytes.length > 0) {
      try {
        this.#reader.push(bytes);
      } catch (error) {
        // Reported once the packets of the pages before the bad one are decoded.
        this.#deferred ??= error;
      }
    }
    this.#drain(this.#stepSamples);
    this.#out = IDLE_OUT;
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
      while (queue.length > 0 && decoded < budget) {
        try {
          decoded += this.#packet(queue);
        } finally {
          queue.shift();
        }
      }
    } catch (error) {
      this.#fault(error);
    }
    if (queue.length === 0 || this.#failed) {
      queue.clear();
      const deferred = this.#deferred;
      this.#deferred = null;
      if (deferred !== null && !this.#failed) this.#fault(deferred);
    }
  }

  flush(): DecodedAudio {
    const out: DecodedAudio = { pcm: [], errors: [], ownedBuffers: true };
    this.#out = out;
    if (this.#failed) return out;
    this.#drain(Infinity);
    if (this.#failed) return out;
    this.#out = IDLE_OUT;
    const truncated = this.#reader.end();
    if (truncated) out.errors.push(truncated);
    return out;
  }

  reset(): void {
    this.#reader.reset();
    this.#queue.clear();
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

  /** Handles the queue's first packet; returns the samples per channel libopus decoded (the step's work). */
  #packet(q: OggPacketQueue): number {
    if (q.headBos && isOpusHead(q.headBytes())) {
      this.#startStream(q);
      return 0;
    }
    if (q.headSerial !== this.#serial) {
      // Before any OpusHead: not an Opus stream at all. Later: another multiplexed stream; ignored.
      if (this.#head === null) parseOpusHead(q.headBytes(), q.headPageOffset); // throws OPUS_BAD_HEAD
      return 0;
    }
    if (this.#state === 'tags') {
      this.#state = 'audio';
      if (isOpusTags(q.headBytes())) return 0;
    }
    return this.#audio(q.headBytes(), q.headGranule, q.headPageOffset);
  }

  #startStream(q: OggPacketQueue): void {
    const head = parseOpusHead(q.headBytes(), q.headPageOffset);
    const channels = this.#format?.channels ?? head.channels;
    this.#decoder?.free();
    this.#decoder = createOpusPacketDecoder(this.sampleRate, channels, this.#backend);
    if (head.outputGain !== 0) this.#decoder.setGain(head.outputGain);
    this.#format ??= { sampleRate: this.sampleRate, channels };
    this.#head = head;
    if (this.#sourceRate === null && head.inputSampleRate > 0) this.#sourceRate = head.inputSampleRate;
    this.#serial = q.headSerial;
    this.#state = 'tags';
    this.#skip = this.#toOutputRate(head.preSkip);
    this.#linkOut = 0;
  }

  #audio(packet: Uint8Array, granule: number, pageOffset: number): number {
    const decoder = this.#decoder!;
    const channels = this.#format!.channels;
    let pcm: Int16Array;
    try {
      pcm = decoder.decode(packet);
    } catch (error) {
      this.#out.errors.push(
        new CodecError('OPUS_DECODE_FAILED', `Opus packet in the page at byte ${pageOffset}: ${(error as Error).message}`, {
          byteOffset: pageOffset,
          fatal: false,
          cause: error,
        }),
      );
      return 0;
    }
    // The native backend's output is a fresh ArrayBuffer of its own; the wasm one's comes from
    // Node's shared Buffer pool, so the framer must not reuse that memory (DecodedAudio.ownedBuffers).
    if (pcm.byteOffset !== 0 || pcm.byteLength !== pcm.buffer.byteLength) this.#out.ownedBuffers = false;
    const decoded = pcm.length / channels;
    let from = 0;
    let count = decoded;
    if (this.#skip > 0) {
      const drop = Math.min(this.#skip, count);
      this.#skip -= drop;
      from = drop;
      count -= drop;
    }
    if (granule >= 0) {
      // End trimming: never run past the granule position of the page the packet completes on.
      // Every packet of the page is held to it, not only the last: a final granule lowered by more
      // than one packet trims the page's earlier packets too, from the end (RFC 7845 §4.4; opusdec
      // and ffmpeg do the same).
      const maxOut = this.#toOutputRate(granule - this.#head!.preSkip) - this.#linkOut;
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
