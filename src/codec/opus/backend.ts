import { createRequire } from 'node:module';
import { OPUS_APPLICATION_AUDIO, OPUS_SET_GAIN_REQUEST } from './opusDefines.js';

/**
 * Picks the Opus decoding backend: the native `@discordjs/opus` addon (an optionalDependency,
 * about 300× real time) when it loads, else `opusscript` (wasm, a regular dependency) with a
 * one-line notice. Both wrap libopus, so their output is the same. See native-notes/opus.md.
 */
export type OpusBackendName = 'native' | 'wasm';

/** One libopus decoder: packet in, interleaved s16 out (a fresh buffer the caller owns). */
export interface OpusPacketDecoder {
  decode(packet: Uint8Array): Int16Array;
  setGain(q78dB: number): void;
  free(): void;
}

interface NativeOpusEncoder {
  decode(buf: Buffer): Buffer;
  applyDecoderCTL(ctl: number, value: number): void;
}
interface OpusScriptInstance {
  decode(buf: Buffer): Buffer;
  decoderCTL(ctl: number, arg: number): void;
  delete(): void;
}
type Ctor<T> = new (rate: number, channels: number, ...rest: unknown[]) => T;

const require = createRequire(import.meta.url);
let nativeCtor: Ctor<NativeOpusEncoder> | null | undefined;
let wasmCtor: Ctor<OpusScriptInstance> | undefined;
let noticeShown = false;

/** The notice printed once when falling back; replaceable in tests. */
export let opusNotice: (message: string) => void = (message) => process.emitWarning(message, { code: 'VOICEWIRE_OPUS_FALLBACK' });
export function setOpusNotice(fn: (message: string) => void): void {
  opusNotice = fn;
}

function loadNative(): Ctor<NativeOpusEncoder> | null {
  if (nativeCtor !== undefined) return nativeCtor;
  try {
    nativeCtor = (require('@discordjs/opus') as { OpusEncoder: Ctor<NativeOpusEncoder> }).OpusEncoder;
  } catch (error) {
    nativeCtor = null;
    if (!noticeShown) {
      noticeShown = true;
      opusNotice(`voicewire: native @discordjs/opus unavailable (${(error as Error).message.split('\n')[0]}); using opusscript (wasm)`);
    }
  }
  return nativeCtor;
}

function loadWasm(): Ctor<OpusScriptInstance> {
  wasmCtor ??= require('opusscript') as Ctor<OpusScriptInstance>;
  return wasmCtor;
}

/** The backend `createOpusPacketDecoder` uses when none is forced. */
export function defaultOpusBackend(): OpusBackendName {
  return loadNative() ? 'native' : 'wasm';
}

/**
 * Both backends are typed as taking a Buffer but read any Uint8Array (the addon through
 * `napi_get_buffer_info`, which takes any ArrayBufferView; opusscript copies it into its heap), so
 * a packet is passed as it is, with no Buffer view made per packet (test/codec/opusBackend.test.ts).
 */
const asBufferArg = (packet: Uint8Array): Buffer => packet as Buffer;

function asInt16(buf: Buffer): Int16Array {
  // Both backends hand back a fresh Buffer; reuse its memory when aligned (it is: own allocation).
  if (buf.byteOffset % 2 === 0) return new Int16Array(buf.buffer, buf.byteOffset, buf.byteLength >> 1);
  return new Int16Array(new Uint8Array(buf).buffer);
}

export function createOpusPacketDecoder(
  rate: number,
  channels: number,
  backend: OpusBackendName = defaultOpusBackend(),
): OpusPacketDecoder {
  if (backend === 'native') {
    const Native = loadNative();
    if (Native) {
      const dec = new Native(rate, channels);
      return {
        decode: (packet) => asInt16(dec.decode(asBufferArg(packet))),
        setGain: (gain) => dec.applyDecoderCTL(OPUS_SET_GAIN_REQUEST, gain),
        free: () => {},
      };
    }
  }
  const Wasm = loadWasm();
  const dec = new Wasm(rate, channels, OPUS_APPLICATION_AUDIO);
  return {
    decode: (packet) => asInt16(dec.decode(asBufferArg(packet))),
    setGain: (gain) => dec.decoderCTL(OPUS_SET_GAIN_REQUEST, gain),
    free: () => dec.delete(),
  };
}
