import { OPUS_RATE } from '../../codec/opus/OpusHead.js';
import type { AudioFormat } from '../../codec/types.js';
import { OPUS_BITRATE_AUTO, TTS_DEFAULTS } from '../../protocol/ttsRequest.js';
import { Mp3StreamEncoder } from './Mp3StreamEncoder.js';
import { OggOpusStreamEncoder } from './OggOpusStreamEncoder.js';
import { PcmEncoder } from './PcmEncoder.js';
import type { StreamEncoder } from './types.js';
import { WavEncoder } from './WavEncoder.js';

export interface EncoderSettings {
  format: AudioFormat;
  sampleRate: number;
  mp3Kbps: number;
  opusBitrate: number;
}

export function createStreamEncoder(s: EncoderSettings): StreamEncoder {
  switch (s.format) {
    case 'pcm':
      return new PcmEncoder();
    case 'wav':
      return new WavEncoder(s.sampleRate);
    case 'mp3':
      return new Mp3StreamEncoder(s.sampleRate, s.mp3Kbps);
    case 'opus':
      return new OggOpusStreamEncoder(s.sampleRate, s.opusBitrate);
  }
}

/** The `Content-Type` of the audio itself (not of the SSE stream), for non-streaming uses. */
export const AUDIO_MIME: Record<AudioFormat, string> = {
  pcm: 'audio/L16',
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  opus: 'audio/ogg; codecs=opus',
};

/**
 * Loads the encoders' backends once (the native opus addon's first load is ~0.5 s; lamejs builds
 * its tables), so a warmed service's first request pays nothing for them.
 */
export function warmEncoders(): void {
  const silence = new Int16Array(2048);
  for (const format of ['opus', 'mp3'] as const) {
    // 48 kHz: a rate both encoders take.
    const enc = createStreamEncoder({ format, sampleRate: OPUS_RATE, mp3Kbps: TTS_DEFAULTS.mp3_bitrate, opusBitrate: OPUS_BITRATE_AUTO });
    enc.start();
    enc.encode(silence);
    enc.finish();
  }
}
