/**
 * `mp3`: CBR mono through @breezystack/lamejs, preceded by an Info frame whose LAME tag carries
 * the encoder delay. Bitrates above what MPEG-2/2.5 allow (192 kbps below 32 kHz) are clamped to
 * 160 kbps (documented).
 */
import { Mp3Encoder } from '@breezystack/lamejs';
import { buildLameInfoFrame, maxMp3Kbps } from './lameTag.js';
import type { StreamEncoder } from './types.js';

/** Samples per lamejs call: its internal buffers are sized for this. */
const LAME_BLOCK = 1152;

export class Mp3StreamEncoder implements StreamEncoder {
  private readonly enc: Mp3Encoder;
  readonly kbps: number;

  constructor(
    private readonly sampleRate: number,
    kbps: number,
  ) {
    this.kbps = Math.min(kbps, maxMp3Kbps(sampleRate));
    this.enc = new Mp3Encoder(1, sampleRate, this.kbps);
  }

  start(): Uint8Array[] {
    return [buildLameInfoFrame(this.sampleRate, this.kbps)];
  }

  encode(pcm: Int16Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (let i = 0; i < pcm.length; i += LAME_BLOCK) {
      const bytes = this.enc.encodeBuffer(pcm.subarray(i, Math.min(pcm.length, i + LAME_BLOCK)));
      if (bytes.length > 0) out.push(new Uint8Array(bytes));
    }
    return out;
  }

  finish(): Uint8Array[] {
    const bytes = this.enc.flush();
    return bytes.length > 0 ? [new Uint8Array(bytes)] : [];
  }
}
