/**
 * Speech SSE events written as bytes, the way they reach a client from a socket: no JS string per
 * event. Each event is byte for byte what `sseEvent()` (bench/lib/audio.ts) builds with
 * `Buffer.toString('base64')`, `JSON.stringify` and a template string, and what
 * test/bench/sseBytes.test.ts checks it against.
 *
 * Why: on a real connection the engine is handed Buffers read from a socket, so in the long-stream
 * benches (scenario 6 memory, the telephony streams) building each event out of strings made the
 * bench, not the engine, the process's main allocator: for the 60-minute pcm stream ~90 % of the
 * bytes allocated (base64 string, JSON string, concatenation, `Buffer.from`), and with it most
 * scavenges and the young-generation growth that the RSS figure then showed.
 *
 * Memory: events are carved from shared 64 KiB slabs at increasing offsets, never handed out twice
 * (a written chunk may wait in a Writable's buffer, so it must never be overwritten). That is one
 * ArrayBuffer per 64 KiB of body, as a socket gives one per read of up to 64 KiB.
 */

/** A socket read's usual size in Node (libuv's 64 KiB read buffer). */
export const SLAB_BYTES = 64 * 1024;
/** Events larger than this share of a slab get a buffer of their own. */
const OWN_BUFFER_FRACTION = 4;

const B64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_CODES = Uint8Array.from(B64_ALPHABET, (c) => c.charCodeAt(0));
const B64_PAD = 0x3d; // '='
const SIX_BITS = 0x3f;
const DIGIT_0 = 0x30;
const DECIMAL = 10;

const ascii = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));
/** The fixed parts of `data: ${JSON.stringify(event)}\n\n`, in JSON.stringify's key order. */
const PREFIX = ascii('data: {"audio_base64":"');
const AFTER_AUDIO = ascii('","content":');
const AFTER_CONTENT = ascii(',"alignment":');
const AFTER_ALIGNMENT = ascii(',"chunk_seq":');
const AFTER_SEQ = ascii(',"chunk_audio_offset_sec":');
const SUFFIX = ascii('}\n\n');
const FIXED_BYTES = PREFIX.length + AFTER_AUDIO.length + AFTER_CONTENT.length + AFTER_ALIGNMENT.length + AFTER_SEQ.length + SUFFIX.length;

/** Base64 length (with padding) of `n` bytes. */
export function base64Length(n: number): number {
  return Math.ceil(n / 3) * 4;
}

/** Writes `src` as standard padded base64 at `dst[at..]`; returns the index after it. */
export function base64Into(src: Uint8Array, dst: Uint8Array, at: number): number {
  const whole = src.length - (src.length % 3);
  let o = at;
  for (let i = 0; i < whole; i += 3) {
    const v = (src[i]! << 16) | (src[i + 1]! << 8) | src[i + 2]!;
    dst[o] = B64_CODES[v >>> 18]!;
    dst[o + 1] = B64_CODES[(v >>> 12) & SIX_BITS]!;
    dst[o + 2] = B64_CODES[(v >>> 6) & SIX_BITS]!;
    dst[o + 3] = B64_CODES[v & SIX_BITS]!;
    o += 4;
  }
  const rest = src.length - whole;
  if (rest > 0) {
    const v = (src[whole]! << 16) | (rest === 2 ? src[whole + 1]! << 8 : 0);
    dst[o] = B64_CODES[v >>> 18]!;
    dst[o + 1] = B64_CODES[(v >>> 12) & SIX_BITS]!;
    dst[o + 2] = rest === 2 ? B64_CODES[(v >>> 6) & SIX_BITS]! : B64_PAD;
    dst[o + 3] = B64_PAD;
    o += 4;
  }
  return o;
}

function digitCount(n: number): number {
  let d = 1;
  for (let x = n; x >= DECIMAL; x = Math.floor(x / DECIMAL)) d++;
  return d;
}

/** A non-negative integer's decimal digits (as JSON.stringify writes it) at `dst[at..]`. */
function writeUint(n: number, dst: Uint8Array, at: number): number {
  const end = at + digitCount(n);
  let x = n;
  for (let o = end - 1; o >= at; o--) {
    dst[o] = DIGIT_0 + (x % DECIMAL);
    x = Math.floor(x / DECIMAL);
  }
  return end;
}

/** The JSON bytes of a value, for the per-event fields that repeat (content, alignment, offset). */
export function jsonBytes(value: unknown): Uint8Array {
  return new Uint8Array(Buffer.from(JSON.stringify(value), 'utf8'));
}

const NULL_JSON = jsonBytes(null);

/** One event's fields, the repeating ones already as JSON bytes (see {@link jsonBytes}). */
export interface EventBytesFields {
  /** JSON of `content` (a string). */
  content: Uint8Array;
  /** JSON of `alignment`; null writes `null`. */
  alignment: Uint8Array | null;
  /** A non-negative integer. */
  chunkSeq: number;
  /** JSON of `chunk_audio_offset_sec` (a number). */
  offset: Uint8Array;
}

/** Writes speech SSE events as bytes into slab memory (see the module comment). */
export class SseEventWriter {
  private slab = new Uint8Array(0);
  private used = 0;

  /** `data: {"audio_base64":…,"content":…,"alignment":…,"chunk_seq":…,"chunk_audio_offset_sec":…}\n\n` */
  event(audio: Uint8Array, f: EventBytesFields): Buffer {
    const alignment = f.alignment ?? NULL_JSON;
    const size = FIXED_BYTES + base64Length(audio.length) + f.content.length + alignment.length + digitCount(f.chunkSeq) + f.offset.length;
    const out = this.take(size);
    let at = put(PREFIX, out, 0);
    at = base64Into(audio, out, at);
    at = put(AFTER_AUDIO, out, at);
    at = put(f.content, out, at);
    at = put(AFTER_CONTENT, out, at);
    at = put(alignment, out, at);
    at = put(AFTER_ALIGNMENT, out, at);
    at = writeUint(f.chunkSeq, out, at);
    at = put(AFTER_SEQ, out, at);
    at = put(f.offset, out, at);
    put(SUFFIX, out, at);
    return out;
  }

  private take(size: number): Buffer {
    if (size * OWN_BUFFER_FRACTION > SLAB_BYTES) return Buffer.allocUnsafeSlow(size);
    if (this.used + size > this.slab.length) {
      this.slab = new Uint8Array(SLAB_BYTES);
      this.used = 0;
    }
    const out = Buffer.from(this.slab.buffer, this.used, size);
    this.used += size;
    return out;
  }
}

function put(part: Uint8Array, dst: Uint8Array, at: number): number {
  dst.set(part, at);
  return at + part.length;
}

/** One writer for the process: streams share its slabs, as a server's sockets share memory. */
export const sharedEventWriter = new SseEventWriter();
