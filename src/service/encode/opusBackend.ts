/**
 * The Opus encoder behind the local service: native `@discordjs/opus` when it loads, else
 * `opusscript` (wasm). Both are libopus; see native-notes/service-encoders.md.
 */
import { createRequire } from 'node:module';

export interface OpusPacketEncoder {
  readonly backend: 'native' | 'wasm';
  /** One frame of s16 mono samples → one Opus packet. */
  encode(frame: Int16Array): Uint8Array;
  free(): void;
}

/** opus_defines.h */
const OPUS_SET_BITRATE_REQUEST = 4002;
const OPUS_AUTO = -1000;
const OPUSSCRIPT_APPLICATION_AUDIO = 2049;

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

/** `bitrate`: bits per second, or -1000 for libopus's automatic choice. */
export function createOpusPacketEncoder(rate: number, bitrate: number, forceWasm = false): OpusPacketEncoder {
  const Native = forceWasm ? null : loadNative();
  if (Native) {
    const enc = new Native(rate, 1);
    enc.applyEncoderCTL(OPUS_SET_BITRATE_REQUEST, bitrate === OPUS_AUTO ? OPUS_AUTO : bitrate);
    return { backend: 'native', encode: (f) => new Uint8Array(enc.encode(asBuffer(f))), free: () => undefined };
  }
  const OpusScript = require('opusscript') as new (rate: number, channels: number, app: number) => WasmEncoder;
  const enc = new OpusScript(rate, 1, OPUSSCRIPT_APPLICATION_AUDIO);
  enc.encoderCTL(OPUS_SET_BITRATE_REQUEST, bitrate);
  return {
    backend: 'wasm',
    encode: (f) => new Uint8Array(enc.encode(asBuffer(f), f.length)),
    free: () => enc.delete(),
  };
}
