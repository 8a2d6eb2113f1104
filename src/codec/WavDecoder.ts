/**
 * `wav` format: a streaming RIFF/WAVE parser (bytes in any split → interleaved s16 blocks).
 *
 * - A `data` size of 0 or 0xFFFFFFFF means "until the end" (streamed WAV).
 * - WAVE_FORMAT_EXTENSIBLE is accepted (its sub-format decides PCM or float).
 * - A server may send one complete WAV per text chunk. With an exact data size, that many bytes
 *   are read, then another RIFF header (or a trailing chunk inside the RIFF size, or the end) is
 *   expected. With an unknown size, a RIFF header is looked for where the audio of a new
 *   `chunk_seq` begins ({@link DecodeHint.chunkStart}).
 *
 * Faults are typed {@link CodecError}s with the stream byte offset: WAV_BAD_HEADER,
 * WAV_UNSUPPORTED, FORMAT_MISMATCH (a later WAV with another rate/channel count), AUDIO_TRUNCATED.
 */
import { CodecError } from '../errors.js';
import type { AudioDecoder, DecodedAudio, DecodeHint, PcmFormat } from './types.js';
import {
  CHUNK_HEADER_BYTES,
  convertToS16,
  parseWavFmt,
  RIFF_FOURCC,
  RIFF_HEADER_BYTES,
  WAV_SIZE_UNKNOWN,
  WAVE_FOURCC,
  type WavFmt,
} from './wavFormat.js';

/** A `fmt ` body larger than this is not a real header. */
const MAX_FMT_BYTES = 1024;
/** Some streaming writers say "size unknown" with 0 rather than {@link WAV_SIZE_UNKNOWN}. */
const SIZE_UNKNOWN_ZERO = 0;

type State =
  | 'riff' // collecting a 12-byte RIFF/WAVE header
  | 'chunk' // collecting an 8-byte chunk header
  | 'fmt' // collecting a fmt body
  | 'skip' // skipping an unknown chunk (or a pad byte)
  | 'data' // audio
  | 'probe' // unknown-size audio at a chunk start: is it a new RIFF header?
  | 'failed';

function fourcc(b: Uint8Array, at: number): string {
  return String.fromCharCode(b[at] as number, b[at + 1] as number, b[at + 2] as number, b[at + 3] as number);
}
function u32(b: Uint8Array, at: number): number {
  return ((b[at] as number) | ((b[at + 1] as number) << 8) | ((b[at + 2] as number) << 16) | ((b[at + 3] as number) << 24)) >>> 0;
}
function matches(b: Uint8Array, at: number, sig: readonly number[], len: number): boolean {
  for (let i = 0; i < len; i++) if (b[at + i] !== sig[i]) return false;
  return true;
}

/**
 * @example
 * ```ts
 * const wav = new WavDecoder();
 * for (const bytes of chunks) for (const block of wav.decode(bytes).pcm) play(block, wav.format!);
 * const { errors } = wav.flush(); // AUDIO_TRUNCATED when the stream stopped short of its declared size
 * ```
 */
export class WavDecoder implements AudioDecoder {
  readonly kind = 'wav' as const;
  format: PcmFormat | null = null;
  /** The fmt of the WAV being read. */
  private fmt: WavFmt | null = null;
  private state: State = 'riff';
  /** Header scratch (RIFF header, chunk header, fmt body, probe bytes). */
  private hdr = new Uint8Array(MAX_FMT_BYTES);
  private hdrLen = 0;
  private hdrNeed = RIFF_HEADER_BYTES;
  /** Stream offset of the first byte in {@link hdr}. */
  private hdrOffset = 0;
  /** Bytes left in the current data chunk (Infinity: until the end) or to skip. */
  private remaining = 0;
  /** Pad byte after an odd-sized data chunk. */
  private dataPad = 0;
  /** Stream offset where the current RIFF ends (Infinity when its size is unknown). */
  private riffEnd = Infinity;
  /** Bytes of a sample frame split across calls. */
  private partial = new Uint8Array(0);
  private partialLen = 0;
  /** Stream offset of the next byte. */
  private pos = 0;
  private files = 0;
  /** The current WAV's data chunk was read to its end. */
  private dataDone = false;

  decode(bytes: Uint8Array, hint?: DecodeHint): DecodedAudio {
    const out: DecodedAudio = { pcm: [], errors: [] };
    if (this.state === 'failed') return out;
    if (hint?.chunkStart && this.state === 'data' && this.remaining === Infinity) {
      this.beginHeader('probe', RIFF_FOURCC.length);
    }
    try {
      this.run(bytes, out);
    } catch (err) {
      if (!(err instanceof CodecError)) throw err;
      this.state = 'failed';
      out.errors.push(err);
    }
    return out;
  }

  flush(): DecodedAudio {
    const out: DecodedAudio = { pcm: [], errors: [] };
    const state = this.state;
    if (state === 'probe') {
      this.state = 'data';
      this.emitData(this.hdr.subarray(0, this.hdrLen), out);
    }
    if (state === 'failed') return out;
    const atBoundary = (state === 'riff' && this.hdrLen === 0) || (state === 'chunk' && this.hdrLen === 0 && this.pos >= this.riffEnd);
    const open = (state === 'data' || state === 'probe') && this.remaining === Infinity;
    const afterData = state === 'chunk' && this.hdrLen === 0 && this.dataDone && this.riffEnd === Infinity;
    if (!atBoundary && !open && !afterData) {
      const what =
        state === 'data'
          ? `the data chunk is ${this.remaining} bytes short`
          : `the stream ended inside a ${state === 'riff' ? 'RIFF header' : state === 'skip' ? 'chunk' : 'chunk header'}`;
      out.errors.push(new CodecError('AUDIO_TRUNCATED', `wav audio truncated: ${what}`, { byteOffset: this.pos }));
    } else if (this.partialLen > 0) {
      out.errors.push(
        new CodecError('AUDIO_TRUNCATED', `wav audio ended inside a sample frame; ${this.partialLen} bytes dropped`, {
          byteOffset: this.pos - this.partialLen,
          fatal: false,
        }),
      );
    }
    this.partialLen = 0;
    this.state = 'failed';
    return out;
  }

  reset(): void {
    this.format = null;
    this.fmt = null;
    this.files = 0;
    this.pos = 0;
    this.partialLen = 0;
    this.riffEnd = Infinity;
    this.beginHeader('riff', RIFF_HEADER_BYTES);
  }

  private beginHeader(state: State, need: number): void {
    this.state = state;
    this.hdrLen = 0;
    this.hdrNeed = need;
    this.hdrOffset = this.pos;
  }

  private run(bytes: Uint8Array, out: DecodedAudio): void {
    let i = 0;
    const n = bytes.length;
    while (i < n) {
      const state = this.state;
      if (state === 'data') {
        const take = Math.min(n - i, this.remaining);
        this.emitData(bytes.subarray(i, i + take), out);
        i += take;
        this.pos += take;
        if (this.remaining !== Infinity) {
          this.remaining -= take;
          if (this.remaining === 0) this.endData(out);
        }
        continue;
      }
      if (state === 'skip') {
        const take = Math.min(n - i, this.remaining);
        i += take;
        this.pos += take;
        this.remaining -= take;
        if (this.remaining === 0) this.beginHeader('chunk', CHUNK_HEADER_BYTES);
        continue;
      }
      // Header states: collect hdrNeed bytes into the scratch.
      const take = Math.min(n - i, this.hdrNeed - this.hdrLen);
      this.hdr.set(bytes.subarray(i, i + take), this.hdrLen);
      this.hdrLen += take;
      i += take;
      this.pos += take;
      if (state === 'probe') {
        const len = Math.min(this.hdrLen, RIFF_FOURCC.length);
        if (!matches(this.hdr, 0, RIFF_FOURCC, len)) {
          this.state = 'data';
          this.emitData(this.hdr.subarray(0, this.hdrLen), out);
          continue;
        }
        if (this.hdrLen === RIFF_FOURCC.length) {
          // A new WAV begins: keep "RIFF" and collect the rest of its header.
          this.dropPartial(out);
          this.state = 'riff';
          this.hdrNeed = RIFF_HEADER_BYTES;
        }
        continue;
      }
      if (this.hdrLen < this.hdrNeed) continue;
      this.onHeader(out);
    }
  }

  private onHeader(out: DecodedAudio): void {
    const h = this.hdr;
    const at = this.hdrOffset;
    if (this.state === 'riff') {
      if (!matches(h, 0, RIFF_FOURCC, 4) || !matches(h, 8, WAVE_FOURCC, 4)) {
        throw new CodecError('WAV_BAD_HEADER', `expected a RIFF/WAVE header, found '${fourcc(h, 0)}'…'${fourcc(h, 8)}'`, {
          byteOffset: at,
        });
      }
      const size = u32(h, 4);
      this.riffEnd = size === SIZE_UNKNOWN_ZERO || size === WAV_SIZE_UNKNOWN ? Infinity : at + CHUNK_HEADER_BYTES + size;
      this.files++;
      this.fmt = null;
      this.dataDone = false;
      this.beginHeader('chunk', CHUNK_HEADER_BYTES);
      return;
    }
    if (this.state === 'fmt') {
      const fmt = parseWavFmt(h.subarray(0, this.hdrLen), at);
      const known = this.format;
      if (known !== null && (known.sampleRate !== fmt.sampleRate || known.channels !== fmt.channels)) {
        throw new CodecError(
          'FORMAT_MISMATCH',
          `wav #${this.files} is ${fmt.sampleRate} Hz × ${fmt.channels}, the stream began at ${known.sampleRate} Hz × ${known.channels}`,
          { byteOffset: at },
        );
      }
      this.fmt = fmt;
      if (known === null) this.format = { sampleRate: fmt.sampleRate, channels: fmt.channels };
      if (this.partial.length < fmt.blockAlign) this.partial = new Uint8Array(fmt.blockAlign);
      this.afterBody(this.hdrLen);
      return;
    }
    // An 8-byte chunk header.
    const id = fourcc(h, 0);
    const size = u32(h, 4);
    if (matches(h, 0, RIFF_FOURCC, 4) && this.fmt !== null) {
      // The next WAV of a one-WAV-per-chunk stream: re-read it as a RIFF header.
      this.state = 'riff';
      this.hdrNeed = RIFF_HEADER_BYTES;
      return;
    }
    if (this.fmt !== null && at >= this.riffEnd) {
      throw new CodecError('WAV_BAD_HEADER', `expected another RIFF header or the end after the wav data, found '${id}'`, {
        byteOffset: at,
      });
    }
    if (id === 'fmt ') {
      if (size > MAX_FMT_BYTES || size < 1)
        throw new CodecError('WAV_BAD_HEADER', `wav 'fmt ' chunk size ${size} is not plausible`, { byteOffset: at });
      this.dataPad = size & 1;
      this.beginHeader('fmt', size);
      return;
    }
    if (id === 'data') {
      if (this.fmt === null) throw new CodecError('WAV_BAD_HEADER', `wav 'data' chunk before the 'fmt ' chunk`, { byteOffset: at });
      this.state = 'data';
      this.partialLen = 0;
      this.remaining = size === SIZE_UNKNOWN_ZERO || size === WAV_SIZE_UNKNOWN ? Infinity : size;
      this.dataPad = size & 1;
      if (this.remaining === 0) this.endData(out);
      return;
    }
    if (!/^[\x20-\x7e]{4}$/.test(id)) {
      throw new CodecError('WAV_BAD_HEADER', `wav chunk id is not text (${JSON.stringify(id)})`, { byteOffset: at });
    }
    this.state = 'skip';
    this.remaining = size + (size & 1);
    if (this.remaining === 0) this.beginHeader('chunk', CHUNK_HEADER_BYTES);
  }

  /** After a fmt body: skip its pad byte, then the next chunk header. */
  private afterBody(size: number): void {
    if (size & 1) {
      this.state = 'skip';
      this.remaining = 1;
    } else {
      this.beginHeader('chunk', CHUNK_HEADER_BYTES);
    }
  }

  private endData(out: DecodedAudio): void {
    this.dataDone = true;
    if (this.partialLen > 0) {
      // A data size that is not a whole number of frames: the tail cannot be converted; say so.
      out.errors.push(
        new CodecError('AUDIO_TRUNCATED', `wav data chunk ended inside a sample frame; ${this.partialLen} bytes dropped`, {
          byteOffset: this.pos - this.partialLen,
          fatal: false,
        }),
      );
      this.partialLen = 0;
    }
    if (this.dataPad) {
      this.state = 'skip';
      this.remaining = 1;
    } else {
      this.beginHeader('chunk', CHUNK_HEADER_BYTES);
    }
  }

  private dropPartial(out: DecodedAudio): void {
    if (this.partialLen === 0) return;
    out.errors.push(
      new CodecError(
        'AUDIO_TRUNCATED',
        `wav audio ended inside a sample frame before the next RIFF header; ${this.partialLen} bytes dropped`,
        { byteOffset: this.pos, fatal: false },
      ),
    );
    this.partialLen = 0;
  }

  /** Converts data bytes (any split) to whole s16 frames, carrying a split frame over. */
  private emitData(src: Uint8Array, out: DecodedAudio): void {
    const fmt = this.fmt as WavFmt;
    const block = fmt.blockAlign;
    let i = 0;
    const pre = this.partialLen > 0 ? 1 : 0;
    if (pre) {
      const take = Math.min(block - this.partialLen, src.length);
      this.partial.set(src.subarray(0, take), this.partialLen);
      this.partialLen += take;
      i = take;
      if (this.partialLen < block) return;
    }
    const whole = Math.floor((src.length - i) / block);
    const frames = whole + pre;
    if (!pre && whole > 0 && fmt.kind === 's16' && (src.byteOffset & 1) === 0 && src.buffer !== this.hdr.buffer) {
      // s16 input on a 2-byte boundary: hand out a view of it (valid until the next call, see
      // DecodedAudio; the header scratch is reused within a call, so never a view of that).
      out.pcm.push(new Int16Array(src.buffer, src.byteOffset, whole * fmt.channels));
    } else if (frames > 0) {
      const pcm = new Int16Array(frames * fmt.channels);
      if (pre) convertToS16(fmt, this.partial, 0, 1, pcm, 0);
      convertToS16(fmt, src, i, whole, pcm, pre * fmt.channels);
      out.pcm.push(pcm);
    }
    this.partialLen = 0;
    i += whole * block;
    if (i < src.length) {
      this.partial.set(src.subarray(i), 0);
      this.partialLen = src.length - i;
    }
  }
}
