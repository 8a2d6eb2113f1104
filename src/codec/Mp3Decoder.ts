import { MPEGDecoder } from 'mpg123-decoder';
import { CodecError } from '../errors.js';
import type { AudioDecoder, DecodedAudio, DecodeStepOptions, PcmFormat } from './types.js';
import { ByteBacklog } from './mp3/ByteBacklog.js';
import { floatToS16 } from './mp3/floatToS16.js';
import { directMpg123, type DirectMpg123 } from './mp3/mpg123Direct.js';
import { id3v2Length, ID3V2_HEADER_BYTES, parseMpegHeader, readXingTag, XING_PROBE_BYTES, type MpegFrameHeader } from './mp3/mpegHeader.js';

/** Where the first frame must show up (after any ID3v2 tags) before we call it not MP3. */
const PROBE_BYTES = 16 * 1024;
/** The MPEG Layer III decoder delay (528 + 1), which decoders add to the encoder's. */
const DECODER_DELAY = 529;
/** LAME's default encoder delay (576) + the decoder delay: the lag when no tag says otherwise. */
export const MP3_UNTAGGED_DELAY = 1105;
const MS_PER_SECOND = 1000;
/** Step size when the first frame is free-format (no frame size in its header). */
const FREE_FORMAT_STEP_BYTES = 1024;

export interface Mp3DecoderOptions extends DecodeStepOptions {
  /**
   * Without a LAME/Xing tag nothing says how much encoder delay there is, and the audio starts
   * {@link MP3_UNTAGGED_DELAY} samples late relative to the text timing. `true` drops those samples
   * (timing right, sample count then differs from ffmpeg's); see native-notes/mp3.md.
   * @defaultValue false (same samples as ffmpeg; `startOffsetSamples` reports the lag)
   */
  trimUntaggedDelay?: boolean;
  /**
   * Drive mpg123's wasm without its wrapper's per-frame copies (mp3/mpg123Direct.ts) when the
   * installed mpg123-decoder has the known internals; `false` forces the public `decode()`.
   * @defaultValue true
   */
  direct?: boolean;
  /**
   * Hand out each call's samples as a view of memory the next call reuses (what the
   * {@link DecodedAudio} contract allows), instead of a copy of their own: for a caller that
   * copies them at once, as the pipeline's framer does. Saves a copy and an allocation per call.
   * @defaultValue false (every block stays valid after later calls)
   */
  reuseOutput?: boolean;
}

/**
 * MP3 → interleaved s16 via mpg123-decoder (wasm, streaming, gapless through the LAME/Xing tag).
 * ID3v2 tags are skipped here; mono stays mono (mpg123 always gives two channels).
 * The wasm loads asynchronously: await `ready` before the first `decode`.
 */
export class Mp3Decoder implements AudioDecoder {
  readonly kind = 'mp3' as const;
  /** Settles when the wasm is loaded; after reset(), the fresh decoder's load. */
  private readyValue: Promise<void>;
  private readonly trimUntagged: boolean;
  private mpg: MPEGDecoder;
  private isReady = false;
  private formatValue: PcmFormat | null = null;
  /** Bytes seen before the first frame was found (copied: inputs are ring views). */
  private probe = new Uint8Array(PROBE_BYTES);
  private probeLength = 0;
  private probing = true;
  /** Bytes of an ID3v2 tag still to skip. */
  private skip = 0;
  private consumed = 0;
  private tagged = false;
  /** Stream offset of the first byte fed to mpg123 (after ID3v2 tags and anything before the first frame). */
  private feedBase = 0;
  private trimLeft = 0;
  private failed = false;
  private readonly stepMs: number;
  /** Bytes fed to mpg123 per call (≈ stepMs of audio, whole frames), once the first frame is read. */
  private stepBytes = Infinity;
  /** Input not yet fed to mpg123 (with `stepMs`). */
  private readonly backlog = new ByteBacklog();
  /** mpg123 driven without its wrapper's copies (null: the public decode(), see mpg123Direct.ts). */
  private direct: DirectMpg123 | null = null;
  private readonly allowDirect: boolean;
  private readonly reuseOutput: boolean;
  /** s16 output of the current call, reused from call to call. */
  private scratch = new Int16Array(0);
  private scratchUsed = 0;

  constructor(options: Mp3DecoderOptions = {}) {
    this.trimUntagged = options.trimUntaggedDelay ?? false;
    this.stepMs = options.stepMs ?? Infinity;
    this.allowDirect = options.direct ?? true;
    this.reuseOutput = options.reuseOutput ?? false;
    this.mpg = new MPEGDecoder();
    this.readyValue = this.whenReady();
  }

  /** Await it before the first `decode`, and again after `reset()` (which loads a fresh decoder). */
  get ready(): Promise<void> {
    return this.readyValue;
  }

  private whenReady(): Promise<void> {
    const mpg = this.mpg;
    return mpg.ready.then(() => {
      if (mpg !== this.mpg) return; // reset() replaced it meanwhile
      this.direct = this.allowDirect ? directMpg123(mpg) : null;
      this.isReady = true;
    });
  }

  get format(): PcmFormat | null {
    return this.formatValue;
  }

  /** True when a LAME tag gave the encoder delay (gapless trimming applies). Known with `format`. */
  get gapless(): boolean {
    return this.tagged;
  }

  /** How many samples the audio lags the text timing: 0 when tagged or trimmed, else 1105. */
  get startOffsetSamples(): number {
    return this.tagged || this.trimUntagged ? 0 : MP3_UNTAGGED_DELAY;
  }

  /** True while input is held back to bound the work per call (with `stepMs`). */
  get pending(): boolean {
    return this.backlog.length > 0;
  }

  decode(bytes: Uint8Array): DecodedAudio {
    const out: DecodedAudio = { pcm: [], errors: [] };
    if (this.failed) return out;
    if (!this.isReady) {
      throw new CodecError('CODEC_UNAVAILABLE', 'Mp3Decoder.decode called before `ready` resolved');
    }
    let i = 0;
    while (this.probing && i < bytes.length) {
      i = this.probeBytes(bytes, i, out);
      if (this.failed) return this.emit(out);
    }
    if (!this.probing) this.step(i === 0 ? bytes : bytes.subarray(i), out);
    return this.emit(out);
  }

  flush(): DecodedAudio {
    const out: DecodedAudio = { pcm: [], errors: [] };
    if (this.failed || !this.isReady) return out;
    if (this.probing && this.probeLength > 0) this.startFrames(this.findFrame(true) ?? null, out);
    if (this.pending) {
      this.feed(this.backlog.take(Infinity), out);
    }
    return this.emit(out);
  }

  reset(): void {
    this.backlog.clear();
    this.stepBytes = Infinity;
    this.probeLength = 0;
    this.probing = true;
    this.skip = 0;
    this.consumed = 0;
    this.tagged = false;
    this.formatValue = null;
    this.failed = false;
    if (this.isReady) {
      // mpg123-decoder's own reset is async; a fresh decoder is ready at once (module cached).
      this.mpg.free();
      this.isReady = false;
      this.direct = null;
      this.mpg = new MPEGDecoder();
      this.readyValue = this.whenReady();
    }
  }

  free(): void {
    if (this.isReady) this.mpg.free();
    this.isReady = false;
  }

  /** Skips ID3v2 tags and collects bytes until the first frame (and its tag) can be read. */
  private probeBytes(bytes: Uint8Array, i: number, out: DecodedAudio): number {
    if (this.skip > 0) {
      const n = Math.min(this.skip, bytes.length - i);
      this.skip -= n;
      this.consumed += n;
      return i + n;
    }
    const take = Math.min(PROBE_BYTES - this.probeLength, bytes.length - i);
    this.probe.set(bytes.subarray(i, i + take), this.probeLength);
    this.probeLength += take;
    this.consumed += take;
    // An ID3v2 tag at the start of what we hold: skip it (possibly beyond this chunk).
    if (this.probeLength >= ID3V2_HEADER_BYTES) {
      const id3 = id3v2Length(this.probe, 0);
      if (id3 > 0) {
        const inProbe = Math.min(id3, this.probeLength);
        this.probe.copyWithin(0, inProbe, this.probeLength);
        this.probeLength -= inProbe;
        this.skip = id3 - inProbe;
        return i + take;
      }
    }
    const frame = this.findFrame(this.probeLength === PROBE_BYTES);
    if (frame !== undefined) this.startFrames(frame, out);
    return i + take;
  }

  /** The first frame in the probe: its offset and header; undefined = need more bytes. */
  private findFrame(final: boolean): { at: number; header: MpegFrameHeader } | null | undefined {
    const b = this.probe;
    const end = this.probeLength;
    if (end >= 3 && b[0] === 0x49 && b[1] === 0x44 && b[2] === 0x33 && end < ID3V2_HEADER_BYTES && !final) return undefined;
    for (let p = 0; p + 4 <= end; p++) {
      const header = parseMpegHeader(b, p);
      if (header === null) continue;
      const need = header.frameBytes > 0 ? Math.min(header.frameBytes, XING_PROBE_BYTES) : XING_PROBE_BYTES;
      if (!final && end - p < need) return undefined;
      return { at: p, header };
    }
    return final ? null : undefined;
  }

  private startFrames(frame: { at: number; header: MpegFrameHeader } | null, out: DecodedAudio): void {
    this.probing = false;
    if (frame === null) {
      this.failed = true;
      out.errors.push(new CodecError('MP3_DECODE_FAILED', `No MPEG audio frame in the first ${this.consumed} bytes`, { byteOffset: 0 }));
      return;
    }
    this.feedBase = this.consumed - this.probeLength + frame.at;
    const tag = readXingTag(this.probe.subarray(0, this.probeLength), frame.at, frame.header);
    this.tagged = tag !== null && tag.encoderDelay !== null;
    if (tag !== null && tag.encoderDelay !== null && tag.frames === null) {
      // A streaming encoder's tag (written before the audio, so no frame count): mpg123 then
      // trims nothing, ffmpeg trims the start only (delay + decoder delay). Do what ffmpeg does.
      this.trimLeft = tag.encoderDelay + DECODER_DELAY;
    } else {
      this.trimLeft = this.trimUntagged && !this.tagged ? MP3_UNTAGGED_DELAY : 0;
    }
    const header = frame.header;
    this.formatValue = { sampleRate: header.sampleRate, channels: header.channels };
    if (this.stepMs !== Infinity) {
      const frameMs = (header.samplesPerFrame * MS_PER_SECOND) / header.sampleRate;
      this.stepBytes = header.frameBytes > 0 ? header.frameBytes * Math.max(1, Math.round(this.stepMs / frameMs)) : FREE_FORMAT_STEP_BYTES;
    }
    this.step(this.probe.subarray(frame.at, this.probeLength), out);
  }

  /**
   * Feeds mpg123 at most `stepBytes` (the backlog first), keeping the rest (copied: `bytes` may be
   * a ring view) for the next call. Without a step limit, everything at once.
   */
  private step(bytes: Uint8Array, out: DecodedAudio): void {
    const step = this.stepBytes;
    const backlog = this.backlog;
    if (backlog.length === 0) {
      if (bytes.length <= step) {
        if (bytes.length > 0) this.feed(bytes, out);
        return;
      }
      this.feed(bytes.subarray(0, step), out);
      backlog.push(bytes.subarray(step));
      return;
    }
    if (bytes.length > 0) backlog.push(bytes);
    this.feed(backlog.take(step), out); // mpg123 copies its input before the backlog changes
  }

  /** Feeds mpg123; the samples go to the call's scratch block (see `emit`). */
  private feed(bytes: Uint8Array, out: DecodedAudio): void {
    const direct = this.direct;
    if (direct !== null) {
      try {
        direct.decode(bytes, this.onFrame, (message, inputBytes) => {
          // mpg123 names no position: the end of what it was fed so far, as a stream offset.
          const at = this.feedBase + inputBytes;
          out.errors.push(
            new CodecError('MP3_DECODE_FAILED', `MP3 decode error near input byte ${at}: ${message}`, { byteOffset: at, fatal: false }),
          );
        });
      } catch (error) {
        out.errors.push(new CodecError('MP3_DECODE_FAILED', (error as Error).message, { cause: error, fatal: false }));
      }
      return;
    }
    let decoded;
    try {
      decoded = this.mpg.decode(bytes);
    } catch (error) {
      out.errors.push(new CodecError('MP3_DECODE_FAILED', (error as Error).message, { cause: error, fatal: false }));
      return;
    }
    for (const e of decoded.errors) {
      const at = this.feedBase + e.inputBytes;
      out.errors.push(
        new CodecError('MP3_DECODE_FAILED', `MP3 frame ${e.frameNumber} near input byte ${at}: ${e.message}`, {
          byteOffset: at,
          fatal: false,
        }),
      );
    }
    const n = decoded.samplesDecoded;
    if (n > 0) this.samples(decoded.channelData[0]!, 0, decoded.channelData[1] ?? decoded.channelData[0]!, 0, n);
  }

  /** One frame from the direct driver: left = heap[0..n), right = heap[n..2n). */
  private readonly onFrame = (heap: Float32Array, n: number): void => this.samples(heap, 0, heap, n, n);

  /** Appends n decoded samples per channel (after any start trimming) to the scratch as s16. */
  private samples(left: Float32Array, leftAt: number, right: Float32Array, rightAt: number, n: number): void {
    let from = 0;
    if (this.trimLeft > 0) {
      from = Math.min(this.trimLeft, n);
      this.trimLeft -= from;
      if (from === n) return;
    }
    const mono = this.formatValue!.channels === 1;
    const count = n - from;
    const need = this.scratchUsed + (mono ? count : 2 * count);
    if (need > this.scratch.length) {
      const grown = new Int16Array(Math.max(need, 2 * this.scratch.length));
      grown.set(this.scratch.subarray(0, this.scratchUsed));
      this.scratch = grown;
    }
    floatToS16(left, leftAt + from, mono ? null : right, rightAt + from, count, this.scratch, this.scratchUsed);
    this.scratchUsed = need;
  }

  /**
   * The call's samples as one block: a copy of its own (~2 frames per step), so a public
   * decoder's blocks stay valid after the next call, or with `reuseOutput` a view of the scratch.
   */
  private emit(out: DecodedAudio): DecodedAudio {
    const n = this.scratchUsed;
    if (n > 0) out.pcm.push(this.reuseOutput ? this.scratch.subarray(0, n) : this.scratch.slice(0, n));
    this.scratchUsed = 0;
    return out;
  }
}
