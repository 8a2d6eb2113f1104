/**
 * The Opus encoder behind the local service: native `@discordjs/opus` when it loads, else
 * `opusscript` (wasm). Both are libopus; see native-notes/service-encoders.md.
 */
import { createRequire } from 'node:module';
import { OPUS_APPLICATION_AUDIO, OPUS_AUTO, OPUS_SET_BITRATE_REQUEST } from '../../codec/opus/opusDefines.js';
import { OPUS_BITRATE_AUTO } from '../../protocol/ttsRequest.js';

export interface OpusPacketEncoder {
  readonly backend: 'native' | 'wasm';
  /** One frame of s16 mono samples → one Opus packet. */
  encode(frame: Int16Array): Uint8Array;
  free(): void;
}

interface NativeEncoder {
  encode(pcm: Buffer): Buffer;
  setBitrate(bps: number): void;
  applyEncoderCTL(ctl: number, value: number): void;
}
interface WasmEncoder {
  encode(pcm: Buffer, frameSize: number): Buffer;
  encoderCTL(ctl: number, value: number): void;
  delete(): void;
}

const require = createRequire(import.meta.url);
let native: (new (rate: number, channels: number) => NativeEncoder) | null | undefined;

function loadNative(): typeof native {
  if (native !== undefined) return native;
  try {
    native = (require('@discordjs/opus') as { OpusEncoder: NonNullable<typeof native> }).OpusEncoder;
  } catch {
    native = null;
  }
  return native;
}

const asBuffer = (x: Int16Array): Buffer => Buffer.from(x.buffer, x.byteOffset, x.byteLength);

/** `bitrate`: bits per second, or the request's {@link OPUS_BITRATE_AUTO} for libopus's own choice. */
export function createOpusPacketEncoder(rate: number, bitrate: number, forceWasm = false): OpusPacketEncoder {
  // The wire's "auto" and libopus's OPUS_AUTO are both -1000 today; mapping keeps the two contracts apart.
  const libopusBitrate = bitrate === OPUS_BITRATE_AUTO ? OPUS_AUTO : bitrate;
  const Native = forceWasm ? null : loadNative();
  if (Native) {
    const enc = new Native(rate, 1);
    enc.applyEncoderCTL(OPUS_SET_BITRATE_REQUEST, libopusBitrate);
    return { backend: 'native', encode: (f) => new Uint8Array(enc.encode(asBuffer(f))), free: () => undefined };
  }
  const OpusScript = require('opusscript') as new (rate: number, channels: number, app: number) => WasmEncoder;
  const enc = new OpusScript(rate, 1, OPUS_APPLICATION_AUDIO);
  enc.encoderCTL(OPUS_SET_BITRATE_REQUEST, libopusBitrate);
  return {
    backend: 'wasm',
    encode: (f) => new Uint8Array(enc.encode(asBuffer(f), f.length)),
    free: () => enc.delete(),
  };
}
