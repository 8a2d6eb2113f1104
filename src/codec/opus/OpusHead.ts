import { CodecError } from '../../errors.js';

/** @see RFC 7845 §5.1 (identification header) and §5.2 (comment header). */
export const OPUS_RATE = 48000;
/**
 * The rates libopus runs at natively: the decoder outputs them without resampling and the encoder
 * accepts only them as input. The one list: the request's legal opus `sample_rate`s derive from it.
 */
export const OPUS_NATIVE_RATES: readonly number[] = [8000, 12000, 16000, 24000, 48000];
const OPUS_HEAD_MAGIC = 'OpusHead';
const OPUS_TAGS_MAGIC = 'OpusTags';
const MAGIC_BYTES = 8;
/** An OpusHead of channel mapping family 0 (mono/stereo): the only one written or read here. */
const HEAD_MIN_BYTES = 19;
/** The version written; readers accept any 0.x (RFC 7845 §5.1). */
const VERSION = 1;
const U32_BYTES = 4;
const OFFSET_VERSION = 8;
const OFFSET_CHANNELS = 9;
const OFFSET_PRE_SKIP = 10;
const OFFSET_INPUT_RATE = 12;
const OFFSET_GAIN = 16;
const OFFSET_MAPPING = 18;
/** Only the major version (high nibble) must be 0. */
const MAJOR_VERSION_MASK = 0xf0;
const MAPPING_FAMILY_RTP = 0;

export interface OpusHead {
  channels: number;
  /** Samples at 48 kHz to drop from the start of the decoded stream. */
  preSkip: number;
  /** The sample rate of the encoder's input (informational only). */
  inputSampleRate: number;
  /** Output gain in Q7.8 dB (RFC 7845): applied by the decoder (OPUS_SET_GAIN), as opusdec does. */
  outputGain: number;
  mappingFamily: number;
}

function hasMagic(p: Uint8Array, magic: string): boolean {
  if (p.length < MAGIC_BYTES) return false;
  for (let i = 0; i < MAGIC_BYTES; i++) if (p[i] !== magic.charCodeAt(i)) return false;
  return true;
}

export const isOpusHead = (p: Uint8Array): boolean => hasMagic(p, OPUS_HEAD_MAGIC);
export const isOpusTags = (p: Uint8Array): boolean => hasMagic(p, OPUS_TAGS_MAGIC);

/**
 * A module-level function, not a closure made per call: under tsx/esbuild (`keepNames`) each
 * closure creation also runs a `__name` helper, which profiled at ~65 µs per stream here.
 */
function badHead(byteOffset: number, why: string): CodecError {
  return new CodecError('OPUS_BAD_HEAD', `Bad OpusHead in the page at byte ${byteOffset}: ${why}`, { byteOffset });
}

/** Parses an OpusHead packet; a malformed or unsupported one is a fatal OPUS_BAD_HEAD. */
export function parseOpusHead(p: Uint8Array, byteOffset: number): OpusHead {
  if (!isOpusHead(p)) throw badHead(byteOffset, 'the first packet of the stream is not OpusHead');
  if (p.length < HEAD_MIN_BYTES) throw badHead(byteOffset, `${p.length} bytes, at least ${HEAD_MIN_BYTES} needed`);
  if ((p[OFFSET_VERSION]! & MAJOR_VERSION_MASK) !== 0) throw badHead(byteOffset, `unsupported version ${p[OFFSET_VERSION]}`);
  const view = new DataView(p.buffer, p.byteOffset, p.byteLength);
  const channels = p[OFFSET_CHANNELS]!;
  const mappingFamily = p[OFFSET_MAPPING]!;
  if (channels < 1) throw badHead(byteOffset, '0 channels');
  if (mappingFamily !== MAPPING_FAMILY_RTP || channels > 2) {
    throw new CodecError(
      'CODEC_UNSUPPORTED',
      `Opus channel mapping family ${mappingFamily} with ${channels} channels is not supported (mono and stereo only)`,
      { byteOffset },
    );
  }
  return {
    channels,
    preSkip: view.getUint16(OFFSET_PRE_SKIP, true),
    inputSampleRate: view.getUint32(OFFSET_INPUT_RATE, true),
    outputGain: view.getInt16(OFFSET_GAIN, true),
    mappingFamily,
  };
}

const ascii = new TextEncoder();

/** The OpusHead packet for `head` (mapping family 0): the inverse of {@link parseOpusHead}. */
export function opusHeadPacket(head: OpusHead): Uint8Array {
  const p = new Uint8Array(HEAD_MIN_BYTES);
  const view = new DataView(p.buffer);
  p.set(ascii.encode(OPUS_HEAD_MAGIC), 0);
  p[OFFSET_VERSION] = VERSION;
  p[OFFSET_CHANNELS] = head.channels;
  view.setUint16(OFFSET_PRE_SKIP, head.preSkip, true);
  view.setUint32(OFFSET_INPUT_RATE, head.inputSampleRate, true);
  view.setInt16(OFFSET_GAIN, head.outputGain, true);
  p[OFFSET_MAPPING] = head.mappingFamily;
  return p;
}

/** An OpusTags packet naming the `vendor`, with no user comments (RFC 7845 §5.2). */
export function opusTagsPacket(vendor: string): Uint8Array {
  const name = ascii.encode(vendor);
  const p = new Uint8Array(MAGIC_BYTES + U32_BYTES + name.length + U32_BYTES);
  const view = new DataView(p.buffer);
  p.set(ascii.encode(OPUS_TAGS_MAGIC), 0);
  view.setUint32(MAGIC_BYTES, name.length, true);
  p.set(name, MAGIC_BYTES + U32_BYTES);
  view.setUint32(MAGIC_BYTES + U32_BYTES + name.length, 0, true); // user comment count
  return p;
}
