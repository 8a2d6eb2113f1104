import type { StreamEncoder } from './types.js';

/** `pcm`: raw s16le mono, no header. */
export class PcmEncoder implements StreamEncoder {
  start(): Uint8Array[] {
    return [];
  }
  encode(pcm: Int16Array): Uint8Array[] {
    return [s16leBytes(pcm)];
  }
  finish(): Uint8Array[] {
    return [];
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The samples as s16le bytes (a view when the platform is little-endian). */
export function s16leBytes(pcm: Int16Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  const out = new Uint8Array(pcm.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < pcm.length; i++) view.setInt16(i * 2, pcm[i]!, true);
  return out;
}
