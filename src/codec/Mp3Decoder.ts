import { MPEGDecoder } from 'mpg123-decoder';
import { CodecError } from '../errors.js';
import type { AudioDecoder, DecodedAudio, PcmFormat } from './types.js';
import { id3v2Length, ID3V2_HEADER_BYTES, parseMpegHeader, readXingTag, XING_PROBE_BYTES, type MpegFrameHeader } from './mp3/mpegHeader.js';

/** Where the first frame must show up (after any ID3v2 tags) before we call it not MP3. */
const PROBE_BYTES = 16 * 1024;
/** The MPEG Layer III decoder delay (528 + 1), which decoders add to the encoder's. */
const DECODER_DELAY = 529;
/** LAME's default encoder delay (576) + the decoder delay: the lag when no tag says otherwise. */
export const MP3_UNTAGGED_DELAY = 1105;
const S16_MAX = 32767;
const S16_MIN = -32768;
const S16_SCALE = 32768;

export interface Mp3DecoderOptions {
  /**
   * Without a LAME/Xing tag nothing says how much encoder delay there is, and the audio starts
   * {@link MP3_UNTAGGED_DELAY} samples late relative to the text timing. `true` drops those samples
   * (timing right, sample count then differs from ffmpeg's); see native-notes/mp3.md.
   * @defaultValue false (same samples as ffmpeg; `startOffsetSamples` reports the lag)
   */
  trimUntaggedDelay?: boolean;
}

/**
 * MP3 → interleaved s16 via mpg123-decoder (wasm, streaming, gapless through the LAME/Xing tag).
 * ID3v2 tags are skipped here; mono stays mono (mpg123 always gives two channels).
 * The wasm loads asynchronously: await `ready` before the first `decode`.
 */
export class Mp3Decoder implements AudioDecoder {
  readonly kind = 'mp3' as const;
  readonly ready: Promise<void>;
  readonly #trimUntagged: boolean;
  #mpg: MPEGDecoder;
  #isReady = false;
  #format: PcmFormat | null = null;
  /** Bytes seen before the first frame was found (copied: inputs are ring views). */
  #probe = new Uint8Array(PROBE_BYTES);
  #probeLength = 0;
  #probing = true;
  /** Bytes of an ID3v2 tag still to skip. */
  #skip = 0;
  #consumed = 0;
  #tagged = false;
  #trimLeft = 0;
  #failed = false;

  constructor(options: Mp3DecoderOptions = {}) {
    this.#trimUntagged = options.trimUntaggedDelay ?? false;
    this.#mpg = new MPEGDecoder();
    this.ready = this.#mpg.ready.then(() => {
      this.#isReady = true;
    });
  }

  get format(): PcmFormat | null {
    return this.#format;
  }

  /** True when a LAME tag gave the encoder delay (gapless trimming applies). Known with `format`. */
  get gapless(): boolean {
    return this.#tagged;
  }

  /** How many samples the audio lags the text timing: 0 when tagged or trimmed, else 1105. */
  get startOffsetSamples(): number {
    return this.#tagged || this.#trimUntagged ? 0 : MP3_UNTAGGED_DELAY;
  }

  decode(bytes: Uint8Array): DecodedAudio {
    const out: DecodedAudio = { pcm: [], errors: [] };
    if (this.#failed) return out;
    if (!this.#isReady) {
      throw new CodecError('CODEC_UNAVAILABLE', 'Mp3Decoder.decode called before `ready` resolved');
    }
    let i = 0;
    while (this.#probing && i < bytes.length) {
      i = this.#probeBytes(bytes, i, out);
      if (this.#failed) return out;
    }
    if (i < bytes.length) this.#feed(i === 0 ? bytes : bytes.subarray(i), out);
    return out;
  }

  flush(): DecodedAudio {
    const out: DecodedAudio = { pcm: [], errors: [] };
    if (this.#failed || !this.#isReady) return out;
    if (this.#probing && this.#probeLength > 0) this.#startFrames(this.#findFrame(true) ?? null, out);
    return out;
  }

  reset(): void {
    this.#probeLength = 0;
    this.#probing = true;
    this.#skip = 0;
    this.#consumed = 0;
    this.#tagged = false;
    this.#format = null;
    this.#failed = false;
    if (this.#isReady) {
      // mpg123-decoder's own reset is async; a fresh decoder is ready at once (module cached).
      this.#mpg.free();
      this.#isReady = false;
      this.#mpg = new MPEGDecoder();
      void this.#mpg.ready.then(() => {
        this.#isReady = true;
      });
    }
  }

  free(): void {
    if (this.#isReady) this.#mpg.free();
    this.#isReady = false;
  }

  /** Skips ID3v2 tags and collects bytes until the first frame (and its tag) can be read. */
  #probeBytes(bytes: Uint8Array, i: number, out: DecodedAudio): number {
    if (this.#skip > 0) {
      const n = Math.min(this.#skip, bytes.length - i);
      this.#skip -= n;
      this.#consumed += n;
      return i + n;
    }
    const take = Math.min(PROBE_BYTES - this.#probeLength, bytes.length - i);
    this.#probe.set(bytes.subarray(i, i + take), this.#probeLength);
    this.#probeLength += take;
    this.#consumed += take;
    // An ID3v2 tag at the start of what we hold: skip it (possibly beyond this chunk).
    if (this.#probeLength >= ID3V2_HEADER_BYTES) {
      const id3 = id3v2Length(this.#probe, 0);
      if (id3 > 0) {
        const inProbe = Math.min(id3, this.#probeLength);
        this.#probe.copyWithin(0, inProbe, this.#probeLength);
        this.#probeLength -= inProbe;
        this.#skip = id3 - inProbe;
        return i + take;
      }
    }
    const frame = this.#findFrame(this.#probeLength === PROBE_BYTES);
    if (frame !== undefined) this.#startFrames(frame, out);
    return i + take;
  }

  /** The first frame in the probe: its offset and header; undefined = need more bytes. */
  #findFrame(final: boolean): { at: number; header: MpegFrameHeader } | null | undefined {
    const b = this.#probe;
    const end = this.#probeLength;
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

  #startFrames(frame: { at: number; header: MpegFrameHeader } | null, out: DecodedAudio): void {
    this.#probing = false;
    if (frame === null) {
      this.#failed = true;
      out.errors.push(new CodecError('MP3_DECODE_FAILED', `No MPEG audio frame in the first ${this.#consumed} bytes`, { byteOffset: 0 }));
      return;
    }
    const tag = readXingTag(this.#probe.subarray(0, this.#probeLength), frame.at, frame.header);
    this.#tagged = tag !== null && tag.encoderDelay !== null;
    if (tag !== null && tag.encoderDelay !== null && tag.frames === null) {
      // A streaming encoder's tag (written before the audio, so no frame count): mpg123 then
      // trims nothing, ffmpeg trims the start only (delay + decoder delay). Do what ffmpeg does.
      this.#trimLeft = tag.encoderDelay + DECODER_DELAY;
    } else {
      this.#trimLeft = this.#trimUntagged && !this.#tagged ? MP3_UNTAGGED_DELAY : 0;
    }
    this.#format = { sampleRate: frame.header.sampleRate, channels: frame.header.channels };
    this.#feed(this.#probe.subarray(frame.at, this.#probeLength), out);
  }

  #feed(bytes: Uint8Array, out: DecodedAudio): void {
    let decoded;
    try {
      decoded = this.#mpg.decode(bytes);
    } catch (error) {
      out.errors.push(new CodecError('MP3_DECODE_FAILED', (error as Error).message, { cause: error, fatal: false }));
      return;
    }
    for (const e of decoded.errors) {
      out.errors.push(new CodecError('MP3_DECODE_FAILED', `MP3 frame ${e.frameNumber}: ${e.message}`, { byteOffset: e.inputBytes, fatal: false }));
    }
    let n = decoded.samplesDecoded;
    if (n === 0) return;
    let from = 0;
    if (this.#trimLeft > 0) {
      from = Math.min(this.#trimLeft, n);
      this.#trimLeft -= from;
      if (from === n) return;
    }
    const mono = this.#format!.channels === 1;
    const left = decoded.channelData[0]!;
    const right = decoded.channelData[1] ?? left;
    const count = n - from;
    const pcm = new Int16Array(mono ? count : count * 2);
    if (mono) {
      for (let k = 0; k < count; k++) pcm[k] = toS16(left[from + k]!);
    } else {
      for (let k = 0, o = 0; k < count; k++, o += 2) {
        pcm[o] = toS16(left[from + k]!);
        pcm[o + 1] = toS16(right[from + k]!);
      }
    }
    out.pcm.push(pcm);
  }
}

/** Float → s16 as ffmpeg's converter does: round to nearest, clip. */
function toS16(x: number): number {
  const v = Math.round(x * S16_SCALE);
  return v > S16_MAX ? S16_MAX : v < S16_MIN ? S16_MIN : v;
}
