import { wavHeader } from '../../codec/wavFormat.js';
import { s16leBytes } from './PcmEncoder.js';
import type { StreamEncoder } from './types.js';

/** The local service speaks mono. */
const WAV_CHANNELS = 1;

/**
 * `wav`: a 44-byte PCM header whose sizes say "unknown" (the stream's length is not known while it
 * is written), then s16le mono. The header is the WAV file sink's own ({@link wavHeader}).
 */
export class WavEncoder implements StreamEncoder {
  constructor(private readonly sampleRate: number) {}

  start(): Uint8Array[] {
    return [wavHeader({ sampleRate: this.sampleRate, channels: WAV_CHANNELS })];
  }
  encode(pcm: Int16Array): Uint8Array[] {
    return [s16leBytes(pcm)];
  }
  finish(): Uint8Array[] {
    return [];
  }
}
