import { CodecError } from '../errors.js';
import type { AudioDecoder, DecodedAudio, PcmFormat } from './types.js';
import { OggPageReader, type OggPacket } from './ogg/OggPageReader.js';
import { OPUS_NATIVE_RATES, OPUS_RATE, isOpusHead, isOpusTags, parseOpusHead, type OpusHead } from './opus/OpusHead.js';
import { createOpusPacketDecoder, type OpusBackendName, type OpusPacketDecoder } from './opus/backend.js';

export interface OggOpusDecoderOptions {
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
  /** Packets parsed from the current input, decoded once the parse is done. */
  readonly #pending: OggPacket[] = [];
  #input: Uint8Array | null = null;
  #failed = false;

  constructor(options: OggOpusDecoderOptions = {}) {
    const rate = options.sampleRate ?? OPUS_RATE;
    this.sampleRate = OPUS_NATIVE_RATES.includes(rate) ? rate : OPUS_RATE;
    this.#backend = options.backend;
    this.#reader = new OggPageReader({ onPacket: (p) => this.#collect(p) });
  }

  /** The encoder's input rate from the first OpusHead: what a request's `sample_rate` names. */
  get sourceSampleRate(): number | null {
    return this.#sourceRate;
  }

  get format(): PcmFormat | null {
    return this.#format;
  }

  decode(bytes: Uint8Array): DecodedAudio {
    const out: DecodedAudio = { pcm: [], errors: [] };
    this.#out = out;
    if (this.#failed) return out;
    this.#input = bytes;
    let fault: unknown = null;
    try {
      this.#reader.push(bytes);
    } catch (error) {
      fault = error;
    }
    // Packets are parsed first and decoded after, in one tight loop: libopus interleaved with
    // page parsing measured ~15 % slower (caches), see bench/decode.bench.ts.
    const pending = this.#pending;
    try {
      for (let i = 0; i < pending.length; i++) this.#packet(pending[i]!);
    } catch (error) {
      fault ??= error;
    } finally {
      pending.length = 0;
      this.#input = null;
    }
    if (fault !== null) this.#fault(fault);
    return out;
  }

  /** Keeps a packet for decoding after the parse; copied unless it is a view into the input. */
  #collect(p: OggPacket): void {
    const input = this.#input;
    if (input === null || p.data.buffer !== input.buffer) p = { ...p, data: p.data.slice() };
    this.#pending.push(p);
  }

  flush(): DecodedAudio {
    const out: DecodedAudio = { pcm: [], errors: [] };
    this.#out = out;
    if (this.#failed) return out;
    const truncated = this.#reader.end();
    if (truncated) out.errors.push(truncated);
    return out;
  }

  reset(): void {
    this.#reader.reset();
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

  #packet(p: OggPacket): void {
    if (p.bos && isOpusHead(p.data)) {
      this.#startStream(p);
      return;
    }
    if (p.serial !== this.#serial) {
      // Before any OpusHead: not an Opus stream at all. Later: another multiplexed stream; ignored.
      if (this.#head === null) parseOpusHead(p.data, p.pageOffset); // throws OPUS_BAD_HEAD
      return;
    }
    if (this.#state === 'tags') {
      this.#state = 'audio';
      if (isOpusTags(p.data)) return;
    }
    this.#audio(p);
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

  #audio(p: OggPacket): void {
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
      return;
    }
    let from = 0;
    let count = pcm.length / channels;
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
    if (count === 0) return;
    this.#linkOut += count;
    this.#out.pcm.push(from === 0 && count * channels === pcm.length ? pcm : pcm.subarray(from * channels, (from + count) * channels));
  }

  #toOutputRate(samples48k: number): number {
    return this.sampleRate === OPUS_RATE ? samples48k : Math.round((samples48k * this.sampleRate) / OPUS_RATE);
  }
}
