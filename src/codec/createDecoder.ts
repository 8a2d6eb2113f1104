/**
 * One decoder per stream `format`.
 *
 * pcm and wav are built here; the mp3 and opus decoders live in their own modules
 * (`Mp3Decoder.ts`, `OpusDecoder.ts`), and their branches below stay one line each so that a
 * backend is easy to replace.
 */
import { InvalidOptionError } from '../errors.js';
import { PcmDecoder } from './PcmDecoder.js';
import { AUDIO_FORMATS, type AudioDecoder, type AudioFormat } from './types.js';
import { WavDecoder } from './WavDecoder.js';
import { OggOpusDecoder } from './OpusDecoder.js';
import { Mp3Decoder } from './Mp3Decoder.js';
import { FormatCheckDecoder } from './FormatCheckDecoder.js';

export interface CreateDecoderOptions {
  /** The request's `sample_rate`: required for pcm (no header), a hint for the others. */
  sampleRate?: number | undefined;
  /** Rate the consumer wants, for codecs that can decode natively at several rates (opus). */
  outputSampleRate?: number | undefined;
  /**
   * Bounded work per `decode` call for codecs with a backlog (opus, mp3): see
   * `DecodeStepOptions` in types.ts. The SpeechPipeline passes `DECODE_STEP_MS`.
   * @defaultValue Infinity (each call decodes all it is given)
   */
  stepMs?: number;
  /**
   * The caller copies every PCM block before its next call (the pipeline's framer does): a
   * decoder may then hand out views of memory it reuses (mp3) instead of copies, and refill one
   * result object (opus: `OggOpusDecoderOptions.reuseResult`) instead of making one per call.
   * @defaultValue false
   */
  reuseOutput?: boolean;
  /**
   * A container fault that can be repaired, so far an Ogg page out of sequence (opus): `'fail'`
   * ends the stream with a fatal error, `'skip'` reports it non-fatally and repairs it (see
   * `OggOpusDecoderOptions.onInvalidPage`). The SpeechPipeline passes its `onInvalidEvent`.
   * @defaultValue 'fail'
   */
  onInvalidPage?: 'fail' | 'skip';
}

/**
 * The decoder for `format`, behind the format check: the first bytes must carry the declared
 * format's signature (OggS / ID3 or frame sync / RIFF), else a fatal FORMAT_MISMATCH (see sniff.ts).
 */
export function createDecoder(format: AudioFormat, opts: CreateDecoderOptions = {}): AudioDecoder {
  return new FormatCheckDecoder(createUncheckedDecoder(format, opts), format);
}

/** The bare decoder for `format`, without the format check. */
export function createUncheckedDecoder(format: AudioFormat, opts: CreateDecoderOptions = {}): AudioDecoder {
  switch (format) {
    case 'pcm':
      if (opts.sampleRate === undefined)
        throw new InvalidOptionError('sampleRate', "format pcm needs sampleRate (the request's sample_rate): raw PCM has no header");
      return new PcmDecoder({ sampleRate: opts.sampleRate });
    case 'wav':
      return new WavDecoder();
    case 'mp3':
      return new Mp3Decoder({ ...(opts.stepMs === undefined ? {} : { stepMs: opts.stepMs }), reuseOutput: opts.reuseOutput ?? false });
    case 'opus':
      return new OggOpusDecoder({
        ...(opts.outputSampleRate === undefined ? {} : { sampleRate: opts.outputSampleRate }),
        ...(opts.stepMs === undefined ? {} : { stepMs: opts.stepMs }),
        ...(opts.onInvalidPage === undefined ? {} : { onInvalidPage: opts.onInvalidPage }),
        reuseResult: opts.reuseOutput ?? false,
      });
    default:
      throw new InvalidOptionError(
        'format',
        `unknown audio format ${JSON.stringify(format)} (expected one of ${AUDIO_FORMATS.join(', ')})`,
      );
  }
}
