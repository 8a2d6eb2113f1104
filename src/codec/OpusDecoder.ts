import { CodecError, type OggSequenceError } from '../errors.js';
import type { AudioDecoder, DecodedAudio, DecodeStepOptions, PcmFormat } from './types.js';
import { OggPacketQueue } from './ogg/OggPacketQueue.js';
import { OggPageReader } from './ogg/OggPageReader.js';
import { OPUS_NATIVE_RATES, OPUS_RATE, isOpusHead, isOpusTags, parseOpusHead, type OpusHead } from './opus/OpusHead.js';
import { createOpusPacketDecoder, type OpusBackendName, type OpusPacketDecoder } from './opus/backend.js';
import { headPacketStart, opusPacketSamples } from './opus/packetSamples.js';

const MS_PER_SECOND = 1000;
/**
 * The most silence one sequence gap is repaired with (48 kHz samples: 10 s). Granules that claim
 * more missing audio than this are not trusted to be filled (nor is that much memory spent on
 * zeros): the gap is then a fatal OGG_PAGE_SEQUENCE, as under onInvalidPage 'fail'.
 */
const MAX_GAP_SILENCE_48K = 10 * OPUS_RATE;
/** Nothing is added to it: results are only written during a decode or flush call. */
const IDLE_OUT: DecodedAudio = Object.freeze({
  pcm: Object.freeze([]) as unknown as Int16Array[],
  errors: Object.freeze([]) as unknown as DecodedAudio['errors'],
});

export interface OggOpusDecoderOptions extends DecodeStepOptions {
  /**
   * Output rate. libopus decodes natively at 8, 12, 16, 24 or 48 kHz; pre-skip and granule
   * positions (48 kHz units) are scaled to it. Any other rate: decode at 48 kHz and resample later.
   * @defaultValue 48000
   */
  sampleRate?: number;
  /** Force a backend (tests, benches). @defaultValue native when it loads, else wasm */
  backend?: OpusBackendName;
  /**
   * An Ogg page out of sequence in its stream (pages lost, repeated or swapped on the way; an
   * {@link OggSequenceError}). `'fail'`: a fatal OGG_PAGE_SEQUENCE at that page, after the audio of
   * the pages before it. `'skip'`: a non-fatal one (a pipeline `warning`) and decoding goes on: a
   * page seen before is not decoded again, and the audio of lost pages is replaced by silence of
   * their duration, worked out from the granule positions (RFC 7845 §4.1), so everything after
   * the gap keeps its time. The pipeline passes its `onInvalidEvent`.
   * @defaultValue 'fail'
   */
  onInvalidPage?: 'fail' | 'skip';
  /**
   * The caller is done with each `decode` result before its next call on this decoder (the
   * pipeline's FrameProducer frames every block at once): the result object and its `pcm` and
   * `errors` arrays are then one set, emptied and refilled by every `decode` call, instead of three
   * new objects per call (at telephony rates, ~25 calls a second per stream; the blocks themselves
   * are libopus's fresh output either way). `flush()` always returns objects of its own.
   * @defaultValue false
   */
  reuseResult?: boolean;
}

type StreamState = 'tags' | 'audio';

/**
 * Ogg Opus → interleaved s16, sample-exact with `opusdec --no-dither`: pre-skip dropped at the
 * start of every chained stream, the end trimmed to the last granule position, output gain
 * applied by libopus (OPUS_SET_GAIN, as opusdec does).
 *
 * A chained stream (a new BOS page with OpusHead) re-initialises the decoder. Its channel count
 * is kept from the first stream (libopus up/down-mixes), so the output format never changes.
 * Pages lost, repeated or swapped on the way fail the stream or are repaired: `onInvalidPage`.
 *
 * @example
 * const dec = new OggOpusDecoder({ sampleRate: 8000 });
 * const { pcm, errors } = dec.decode(bytes); // then dec.flush() at the end
 */
export class OggOpusDecoder implements AudioDecoder {
  readonly kind = 'opus' as const;
  readonly ready: Promise<void> = Promise.resolve();
  readonly sampleRate: number;
  private readonly backend: OpusBackendName | undefined;
  private readonly reader: OggPageReader;
  private formatValue: PcmFormat | null = null;
  private decoder: OpusPacketDecoder | null = null;
  private serial = -1;
  private state: StreamState = 'tags';
  private head: OpusHead | null = null;
  /** The first stream's OpusHead input rate (0 there means "unspecified"). */
  private sourceRate: number | null = null;
  /** Output-rate samples per channel still to drop (pre-skip) in this stream. */
  private skip = 0;
  /** Output-rate samples per channel given out in this stream, after pre-skip. */
  private linkOut = 0;
  /**
   * Where this stream's decoding has got to on the granule timeline (48 kHz samples, pre-skip
   * included): the end of the last packet decoded or silence inserted. NaN until its first audio
   * packet, whose page's granule places it. Used to size the silence that repairs a gap.
   */
  private granulePos = NaN;
  /** 48 kHz samples per output sample (1, 2, 3, 4 or 6). */
  private readonly per48k: number;
  /**
   * Sequence faults reported under 'skip', each with the count of packets queued before it: given
   * out when decoding gets there, so a fault comes after the audio before it, as a fatal one does.
   */
  private readonly faults: { error: OggSequenceError; after: number }[] = [];
  private packetsDone = 0;
  /** The current call's result; {@link IDLE_OUT} between calls (the caller owns the last one's blocks). */
  private out: DecodedAudio = IDLE_OUT;
  /**
   * Packets parsed and not decoded yet, copied (the input is transient), with no object per
   * packet: the queue holds up to a step's worth of pages and is alive at every GC.
   */
  private readonly queue = new OggPacketQueue();
  /** A page fault found after the queued packets: reported once they are decoded. */
  private deferred: unknown = null;
  /** Samples per channel (output rate) decoded per call, at most plus one packet. */
  private readonly stepSamples: number;
  private failed = false;
  /** The one result every `decode` call refills (OggOpusDecoderOptions.reuseResult), or null. */
  private readonly reused: DecodedAudio | null;
  /**
   * Blocks written into the current result's `pcm` so far. A reused `pcm` is overwritten from
   * index 0 and cut to this length at the end of the call, not emptied first: setting an array's
   * length to 0 drops its backing store in V8, so every call's first block would allocate a new one.
   */
  private blocks = 0;

  constructor(options: OggOpusDecoderOptions = {}) {
    const rate = options.sampleRate ?? OPUS_RATE;
    this.sampleRate = OPUS_NATIVE_RATES.includes(rate) ? rate : OPUS_RATE;
    this.backend = options.backend;
    const stepMs = options.stepMs ?? Infinity;
    this.stepSamples = stepMs === Infinity ? Infinity : Math.max(1, Math.round((stepMs * this.sampleRate) / MS_PER_SECOND));
    this.per48k = OPUS_RATE / this.sampleRate;
    this.reused = options.reuseResult === true ? { pcm: [], errors: [], ownedBuffers: true } : null;
    this.reader = new OggPageReader({
      // The queue's own method, not a closure per decoder (see OggPageReaderOptions.packetSink).
      packetSink: this.queue,
      ...(options.onInvalidPage === 'skip'
        ? { onSequenceFault: (error: OggSequenceError) => this.faults.push({ error, after: this.queue.pushed }) }
        : {}),
    });
  }

  /** The encoder's input rate from the first OpusHead: what a request's `sample_rate` names. */
  get sourceSampleRate(): number | null {
    return this.sourceRate;
  }

  get format(): PcmFormat | null {
    return this.formatValue;
  }

  /** True while packets of pages already read wait to be decoded (with `stepMs`). */
  get pending(): boolean {
    return this.queue.length > 0;
  }

  decode(bytes: Uint8Array): DecodedAudio {
    const out = this.freshResult();
    this.out = out;
    if (!this.failed) {
      if (bytes.length > 0) {
        try {
          this.reader.push(bytes);
        } catch (error) {
          // Reported once the packets of the pages before the bad one are decoded.
          this.deferred ??= error;
        }
      }
      this.drain(this.stepSamples);
    }
    if (out.pcm.length !== this.blocks) out.pcm.length = this.blocks; // a reused result's blocks from before
    this.out = IDLE_OUT;
    return out;
  }

  /**
   * Decodes queued packets until about `budget` samples per channel came out (at least one
   * packet), in one tight loop after the parse: libopus interleaved with page parsing measured
   * ~15 % slower (caches), see bench/decode.bench.ts. The queue's fault comes after its audio.
   */
  private drain(budget: number): void {
    const queue = this.queue;
    let decoded = 0;
    try {
      while (queue.length > 0 && decoded < budget) {
        if (this.faults.length > 0) this.faultsUpTo(this.packetsDone);
        try {
          decoded += this.packet(queue);
        } finally {
          queue.shift();
          this.packetsDone++;
        }
      }
    } catch (error) {
      this.fault(error);
    }
    if (queue.length === 0 || this.failed) {
      queue.clear();
      if (this.failed) this.faults.length = 0;
      else this.faultsUpTo(Infinity);
      const deferred = this.deferred;
      this.deferred = null;
      if (deferred !== null && !this.failed) this.fault(deferred);
    }
  }

  /** The reused result, emptied (OggOpusDecoderOptions.reuseResult), else a new one. */
  private freshResult(): DecodedAudio {
    this.blocks = 0;
    const out = this.reused;
    if (out === null) return { pcm: [], errors: [], ownedBuffers: true };
    if (out.errors.length > 0) out.errors.length = 0;
    out.ownedBuffers = true;
    return out;
  }

  /** Gives out the sequence faults found before packet number `done` was queued. */
  private faultsUpTo(done: number): void {
    const faults = this.faults;
    let n = 0;
    while (n < faults.length && faults[n]!.after <= done) this.out.errors.push(faults[n++]!.error);
    if (n > 0) faults.splice(0, n);
  }

  flush(): DecodedAudio {
    const out: DecodedAudio = { pcm: [], errors: [], ownedBuffers: true };
    this.blocks = 0;
    this.out = out;
    if (this.failed) return out;
    this.drain(Infinity);
    if (this.failed) return out;
    this.out = IDLE_OUT;
    const truncated = this.reader.end();
    if (truncated) out.errors.push(truncated);
    return out;
  }

  reset(): void {
    this.reader.reset();
    this.queue.reset();
    this.faults.length = 0;
    this.packetsDone = 0;
    this.deferred = null;
    this.decoder?.free();
    this.decoder = null;
    this.serial = -1;
    this.head = null;
    this.sourceRate = null;
    this.formatValue = null;
    this.failed = false;
  }

  free(): void {
    this.decoder?.free();
    this.decoder = null;
  }

  private fault(error: unknown): void {
    const e = error instanceof CodecError ? error : new CodecError('OPUS_DECODE_FAILED', String(error), { cause: error });
    if (e.fatal) this.failed = true;
    this.out.errors.push(e);
  }

  /** Handles the queue's first packet; returns the samples per channel libopus decoded (the step's work). */
  private packet(q: OggPacketQueue): number {
    if (q.headBos && isOpusHead(q.headBytes())) {
      this.startStream(q);
      return 0;
    }
    if (q.headSerial !== this.serial) {
      // Before any OpusHead: not an Opus stream at all. Later: another multiplexed stream; ignored.
      if (this.head === null) parseOpusHead(q.headBytes(), q.headPageOffset); // throws OPUS_BAD_HEAD
      return 0;
    }
    if (this.state === 'tags') {
      this.state = 'audio';
      if (isOpusTags(q.headBytes())) return 0;
    }
    let silence = 0;
    if (q.headAfterGap) silence = this.fillGap(q);
    else if (Number.isNaN(this.granulePos)) this.granulePos = headPacketStart(q);
    return silence + this.audio(q.headBytes(), q.headGranule, q.headPageOffset);
  }

  /**
   * Pages were lost before the queue's first packet (onInvalidPage 'skip'): silence for the audio
   * they held, from where decoding got to up to where this packet starts (RFC 7845 §4.1), so the
   * audio after the gap keeps its place in time. Returns the samples per channel inserted.
   */
  private fillGap(q: OggPacketQueue): number {
    const start = headPacketStart(q);
    const from = Number.isNaN(this.granulePos) ? 0 : this.granulePos;
    this.granulePos = Math.max(from, start);
    const missing = start - from;
    if (missing <= 0) return 0;
    if (missing > MAX_GAP_SILENCE_48K) {
      throw new CodecError(
        'OGG_PAGE_SEQUENCE',
        `Ogg pages lost before the page at byte ${q.headPageOffset}: ` +
          `the granule positions put ${(missing / OPUS_RATE).toFixed(2)} s of audio in the gap,` +
          ` more than the ${MAX_GAP_SILENCE_48K / OPUS_RATE} s repaired with silence`,
        { byteOffset: q.headPageOffset },
      );
    }
    const samples = this.toOutputRate(missing);
    this.emit(new Int16Array(samples * this.formatValue!.channels), samples, q.headGranule);
    return samples;
  }

  private startStream(q: OggPacketQueue): void {
    const head = parseOpusHead(q.headBytes(), q.headPageOffset);
    const channels = this.formatValue?.channels ?? head.channels;
    this.decoder?.free();
    this.decoder = createOpusPacketDecoder(this.sampleRate, channels, this.backend);
    if (head.outputGain !== 0) this.decoder.setGain(head.outputGain);
    this.formatValue ??= { sampleRate: this.sampleRate, channels };
    this.head = head;
    if (this.sourceRate === null && head.inputSampleRate > 0) this.sourceRate = head.inputSampleRate;
    this.serial = q.headSerial;
    this.state = 'tags';
    this.skip = this.toOutputRate(head.preSkip);
    this.linkOut = 0;
    this.granulePos = NaN;
  }

  private audio(packet: Uint8Array, granule: number, pageOffset: number): number {
    const decoder = this.decoder!;
    const channels = this.formatValue!.channels;
    let pcm: Int16Array;
    try {
      pcm = decoder.decode(packet);
    } catch (error) {
      this.out.errors.push(
        new CodecError('OPUS_DECODE_FAILED', `Opus packet in the page at byte ${pageOffset}: ${(error as Error).message}`, {
          byteOffset: pageOffset,
          fatal: false,
          cause: error,
        }),
      );
      // Its audio is lost: later granule arithmetic (a gap's silence) still counts it.
      this.granulePos += opusPacketSamples(packet);
      return 0;
    }
    // The native backend's output is a fresh ArrayBuffer of its own; the wasm one's comes from
    // Node's shared Buffer pool, so the framer must not reuse that memory (DecodedAudio.ownedBuffers).
    if (pcm.byteOffset !== 0 || pcm.byteLength !== pcm.buffer.byteLength) this.out.ownedBuffers = false;
    const decoded = pcm.length / channels;
    this.granulePos += decoded * this.per48k;
    this.emit(pcm, decoded, granule);
    return decoded;
  }

  /**
   * Gives out `pcm` (`decoded` samples per channel: a packet's output or a gap's silence) less
   * what pre-skip and end trimming take.
   */
  private emit(pcm: Int16Array, decoded: number, granule: number): void {
    const channels = this.formatValue!.channels;
    let from = 0;
    let count = decoded;
    if (this.skip > 0) {
      const drop = Math.min(this.skip, count);
      this.skip -= drop;
      from = drop;
      count -= drop;
    }
    if (granule >= 0) {
      // End trimming: never run past the granule position of the page the packet completes on.
      // Every packet of the page is held to it, not only the last: a final granule lowered by more
      // than one packet trims the page's earlier packets too, from the end (RFC 7845 §4.4; opusdec
      // and ffmpeg do the same).
      const maxOut = this.toOutputRate(granule - this.head!.preSkip) - this.linkOut;
      count = Math.max(0, Math.min(count, maxOut));
    }
    if (count === 0) return;
    this.linkOut += count;
    // At index `blocks`, not push(): see {@link blocks} (a fresh result's array grows the same way).
    this.out.pcm[this.blocks++] =
      from === 0 && count * channels === pcm.length ? pcm : pcm.subarray(from * channels, (from + count) * channels);
  }

  private toOutputRate(samples48k: number): number {
    return this.sampleRate === OPUS_RATE ? samples48k : Math.round((samples48k * this.sampleRate) / OPUS_RATE);
  }
}
