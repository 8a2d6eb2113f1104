import { s16leBytes } from './PcmEncoder.js';
import type { StreamEncoder } from './types.js';

/** RIFF and data sizes of a stream whose length is unknown while it is written. */
export const WAV_UNKNOWN_SIZE = 0xffffffff;
const WAV_HEADER_BYTES = 44;
const WAVE_FORMAT_PCM = 1;
const BITS_PER_SAMPLE = 16;

/** `wav`: a 44-byte PCM header with sizes 0xFFFFFFFF, then s16le mono. */
export class WavEncoder implements StreamEncoder {
  constructor(private readonly sampleRate: number) {}

  start(): Uint8Array[] {
    const h = new Uint8Array(WAV_HEADER_BYTES);
    const v = new DataView(h.buffer);
    const ascii = (off: number, s: string): void => { for (let i = 0; i < s.length; i++) h[off + i] = s.charCodeAt(i); };
    const channels = 1;
    const blockAlign = (channels * BITS_PER_SAMPLE) / 8;
    ascii(0, 'RIFF');
    v.setUint32(4, WAV_UNKNOWN_SIZE, true);
    ascii(8, 'WAVE');
    ascii(12, 'fmt ');
    v.setUint32(16, 16, true);
    v.setUint16(20, WAVE_FORMAT_PCM, true);
    v.setUint16(22, channels, true);
    v.setUint32(24, this.sampleRate, true);
    v.setUint32(28, this.sampleRate * blockAlign, true);
    v.setUint16(32, blockAlign, true);
    v.setUint16(34, BITS_PER_SAMPLE, true);
    ascii(36, 'data');
    v.setUint32(40, WAV_UNKNOWN_SIZE, true);
    return [h];
  }
  encode(pcm: Int16Array): Uint8Array[] {
    return [s16leBytes(pcm)];
  }
  finish(): Uint8Array[] {
    return [];
  }
}
