/**
 * The audio format of a phone line, as a provider's stream carries it both ways, and what follows
 * from it: bytes per sample, samples per millisecond, the frames a speech source must deliver, and
 * the conversions between line bytes and s16 PCM.
 *
 * Every count the call core keeps (sent, played, unacknowledged) is in samples at the line's own
 * rate; bytes only appear at the edges (the socket, the batcher).
 */
import type { AudioFrame } from '../codec/types.js';
import { SAMPLE_ENCODINGS } from '../codec/types.js';
import { alawDecode } from '../dsp/alaw.js';
import { mulawDecode } from '../dsp/mulaw.js';
import { TelephonyError } from '../errors.js';
import { S16_BYTES } from '../internal/s16.js';

/** `mulaw`/`alaw`: G.711, one byte a sample. `l16`: linear 16-bit PCM, two bytes a sample. */
export type LineEncoding = 'mulaw' | 'alaw' | 'l16';
/** The rates providers offer on a media stream (narrowband and wideband telephony). */
export type LineSampleRate = 8000 | 16000;

export interface LineFormat {
  readonly encoding: LineEncoding;
  readonly sampleRate: LineSampleRate;
  /** Byte order of `l16` samples on the wire (Vonage and Exotel: little-endian; RTP L16: big). */
  readonly byteOrder?: 'le' | 'be';
}

/** Twilio's only format, and the default of the call core: headerless μ-law, 8 kHz, mono. */
export const MULAW_8K: LineFormat = Object.freeze({ encoding: 'mulaw', sampleRate: 8000 });

/** One G.711 byte per sample. */
const G711_BYTES = 1;
const MS_PER_SECOND = 1000;
/** μ-law digital silence (the code for 0; 0x7f is its negative twin). */
const MULAW_SILENCE = 0xff;
/** A-law digital silence: code 0 with the even bits inverted (G.711). */
const ALAW_SILENCE = 0xd5;
/** L16 digital silence. */
const L16_SILENCE = 0;

export function bytesPerSample(format: LineFormat): number {
  return format.encoding === 'l16' ? S16_BYTES : G711_BYTES;
}

export function samplesPerMs(format: LineFormat): number {
  return format.sampleRate / MS_PER_SECOND;
}

/** The byte one silent sample is made of (every byte of an L16 silent sample is 0 too). */
export function silenceByte(format: LineFormat): number {
  return format.encoding === 'mulaw' ? MULAW_SILENCE : format.encoding === 'alaw' ? ALAW_SILENCE : L16_SILENCE;
}

export function describeLineFormat(format: LineFormat): string {
  const order = format.encoding === 'l16' ? ` ${format.byteOrder ?? 'le'}` : '';
  return `${format.encoding}${order} ${format.sampleRate} Hz mono`;
}

/**
 * The engine sample encoding a speech source's frames must have on this line: the G.711 codes
 * themselves, or s16 for L16 (put into the line's byte order by {@link frameLineBytes}).
 */
export function frameEncodingFor(format: LineFormat): string {
  return format.encoding === 'l16' ? 's16le' : format.encoding;
}

/**
 * Throws a `TELEPHONY_FORMAT_UNSUPPORTED` {@link TelephonyError} when the engine cannot make
 * frames for this line yet (an encoding its conversion stage does not output).
 */
export function checkEngineCanEncode(format: LineFormat, field = 'format.encoding'): void {
  const needed = frameEncodingFor(format);
  if (!(SAMPLE_ENCODINGS as readonly string[]).includes(needed)) {
    throw new TelephonyError(
      'TELEPHONY_FORMAT_UNSUPPORTED',
      `the engine cannot output ${needed} yet, so a ${describeLineFormat(format)} line has no speech source`,
      { field },
    );
  }
}

/**
 * A frame's samples as line bytes: a view for G.711 and little-endian L16 (on a little-endian
 * host), a byte-swapped copy for big-endian L16.
 */
export function frameLineBytes(frame: AudioFrame, format: LineFormat): Uint8Array {
  const s = frame.samples;
  if (s instanceof Uint8Array) return s; // G.711 codes as they are (no view made per frame)
  const bytes = new Uint8Array(s.buffer, s.byteOffset, s.byteLength);
  if (format.encoding !== 'l16' || (format.byteOrder ?? 'le') === 'le') return bytes;
  const swapped = new Uint8Array(bytes.length);
  for (let i = 0; i + 1 < bytes.length; i += S16_BYTES) {
    swapped[i] = bytes[i + 1]!;
    swapped[i + 1] = bytes[i]!;
  }
  return swapped;
}

/**
 * Decodes line bytes into `out` (s16, one sample per line sample); returns the samples written.
 */
export function decodeLineAudio(bytes: Uint8Array, format: LineFormat, out: Int16Array): number {
  switch (format.encoding) {
    case 'mulaw':
      mulawDecode(bytes, out.subarray(0, bytes.length));
      return bytes.length;
    case 'l16': {
      const n = bytes.length >> 1;
      const be = format.byteOrder === 'be';
      for (let i = 0; i < n; i++) {
        const lo = bytes[2 * i + (be ? 1 : 0)]!;
        const hi = bytes[2 * i + (be ? 0 : 1)]!;
        out[i] = (hi << 8) | lo; // Int16Array storage wraps the sign
      }
      return n;
    }
    case 'alaw':
      alawDecode(bytes, out.subarray(0, bytes.length));
      return bytes.length;
  }
}
