import { CodecError } from '../errors.js';
import type { AudioFormat } from './types.js';
import { ID3V2_MAGIC, parseMpegHeader } from './mp3/mpegHeader.js';
import { OGGS_CAPTURE } from './ogg/oggPageLayout.js';
import { RIFF_FOURCC } from './wavFormat.js';

/**
 * The format check: the first bytes of the audio against the declared `format`, so that a wrong
 * declaration is a typed FORMAT_MISMATCH instead of noise out of the wrong decoder.
 */
export type SniffedContainer = 'ogg' | 'mp3' | 'wav' | 'unknown';
/** Bytes `sniffContainer` needs to decide. */
export const SNIFF_BYTES = 4;
/** "RF64": WAV with 64-bit sizes (EBU Tech 3306). */
const RF64 = [0x52, 0x46, 0x36, 0x34];

function startsWith(b: Uint8Array, magic: readonly number[]): boolean {
  for (let i = 0; i < magic.length; i++) if (b[i] !== magic[i]) return false;
  return true;
}

/** What the bytes look like; undefined while fewer than {@link SNIFF_BYTES} are given. */
export function sniffContainer(b: Uint8Array): SniffedContainer | undefined {
  if (b.length < SNIFF_BYTES) return undefined;
  if (startsWith(b, OGGS_CAPTURE)) return 'ogg';
  if (startsWith(b, RIFF_FOURCC) || startsWith(b, RF64)) return 'wav';
  if (startsWith(b, ID3V2_MAGIC) || parseMpegHeader(b, 0) !== null) return 'mp3';
  return 'unknown';
}

const EXPECTED: Record<Exclude<AudioFormat, 'pcm'>, SniffedContainer> = { opus: 'ogg', mp3: 'mp3', wav: 'wav' };
const DESCRIBE: Record<SniffedContainer, string> = {
  ogg: 'an Ogg stream ("OggS")',
  mp3: 'MP3 (ID3 tag or MPEG frame sync)',
  wav: 'a WAV file ("RIFF")',
  unknown: 'no known signature',
};

/**
 * Checks the first bytes of a stream against its declared format. Returns the FORMAT_MISMATCH
 * error (fatal) when they disagree, null when they agree, undefined when more bytes are needed.
 * Raw `pcm` has no signature: it only fails when it starts with an Ogg, RIFF or ID3 signature
 * (an MPEG frame sync is also a plausible pair of PCM samples, so that is not flagged).
 */
export function checkDeclaredFormat(declared: AudioFormat, b: Uint8Array): CodecError | null | undefined {
  const found = sniffContainer(b);
  if (found === undefined) return undefined;
  if (declared === 'pcm') {
    if (found === 'unknown' || (found === 'mp3' && !startsWith(b, ID3V2_MAGIC))) return null;
  } else if (found === EXPECTED[declared]) {
    return null;
  }
  const hex = Array.from(b.subarray(0, SNIFF_BYTES), (x) => x.toString(16).padStart(2, '0')).join(' ');
  return new CodecError('FORMAT_MISMATCH', `Declared format "${declared}" but the audio starts with ${DESCRIBE[found]} (bytes ${hex})`, {
    byteOffset: 0,
    field: 'format',
  });
}
