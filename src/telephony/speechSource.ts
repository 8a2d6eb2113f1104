/**
 * Where a call's speech comes from. A bridge only needs "a readable of μ-law 8 kHz frames whose
 * playhead I move, that tells me about words": the voicewire client gives exactly that, and so can
 * a test, a cache of pre-rendered prompts, or another engine.
 */
import type { Readable } from 'node:stream';
import type { TtsRequest } from '../protocol/ttsRequest.js';
import { checkEngineCanEncode, frameEncodingFor, type LineFormat } from './lineFormat.js';
import type { SampleEncoding } from '../codec/types.js';
import { TWILIO_CHANNELS, TWILIO_SAMPLE_RATE } from './twilioMessages.js';

/** A word on the utterance's timeline, seconds from the utterance's first sample. */
export interface SpeechWord {
  text: string;
  start: number;
  end: number;
}

/** A `word` event of the stream (the pipeline's `WordEvent` fits). */
export interface SpeechWordEvent extends SpeechWord {
  /** Emitted after the playhead had already passed its start (its timing arrived late). */
  late?: boolean;
  chunkSeq?: number;
  index?: number;
}

/**
 * An object-mode Readable of `AudioFrame`s (μ-law, 8000 Hz, mono) whose playhead only moves when
 * told (`createSpeechPipeline({playhead: 'external'})` fits). It emits `word` when the playhead
 * reaches a word's start.
 */
export interface SpeechStream extends Readable {
  readonly playhead: { advanceTo(sample: number): void };
  /** The known word timeline, used to place marks exactly at word starts. Optional. */
  readonly alignment?: { timeline(): readonly SpeechWord[] };
  /**
   * True when `alignment` is already complete (pre-rendered audio): no word's timing can arrive
   * late, so frames past the last word need no extra marks.
   */
  readonly alignmentFinal?: boolean;
}

/** Context a source gets for one utterance. */
export interface SpeechSourceContext {
  /** Fires on interrupt, `stop` or socket close: stop synthesis and the network read. */
  signal: AbortSignal;
  /**
   * The line format the frames must be in: μ-law or A-law codes, or s16 for L16 (the call puts
   * the bytes in the line's order), at `format.sampleRate`, mono. Absent: μ-law 8 kHz.
   */
  format?: LineFormat;
}

/**
 * Starts one utterance. Resolves once audio can be read (for the client: the response head is in).
 * Must deliver mono frames in `context.format` (μ-law 8 kHz when absent) with an external playhead.
 */
export type SpeechSource = (request: TtsRequest, context: SpeechSourceContext) => Promise<SpeechStream>;

/** The frame length sent to the phone (Twilio's own inbound frames are 20 ms too). */
export const TELEPHONY_FRAME_MS = 20;
/** The conversion the phone line needs: headerless μ-law, 8 kHz, mono, 20 ms frames. */
export const TELEPHONY_OUTPUT = {
  sampleRate: TWILIO_SAMPLE_RATE,
  encoding: 'mulaw',
  channels: TWILIO_CHANNELS,
  frameMs: TELEPHONY_FRAME_MS,
} as const;

/**
 * What a bridge asks the service for when `speak()` gets plain text: PCM at 8 kHz, so nothing is
 * resampled (the service's own telephony recipe), then μ-law conversion in the engine.
 */
export const TELEPHONY_REQUEST_DEFAULTS: Partial<TtsRequest> = { format: 'pcm', sample_rate: TWILIO_SAMPLE_RATE };

/**
 * The conversion a line needs (`output` for the engine): its encoding (s16 for L16), its rate,
 * mono, 20 ms frames. Throws a `TELEPHONY_FORMAT_UNSUPPORTED` TelephonyError for an encoding the
 * engine cannot output yet.
 */
export function telephonyOutputFor(format: LineFormat): {
  sampleRate: number;
  encoding: SampleEncoding;
  channels: 1;
  frameMs: number;
} {
  checkEngineCanEncode(format);
  return {
    sampleRate: format.sampleRate,
    encoding: frameEncodingFor(format) as SampleEncoding,
    channels: TWILIO_CHANNELS,
    frameMs: TELEPHONY_FRAME_MS,
  };
}

/** {@link TELEPHONY_REQUEST_DEFAULTS} for a line: PCM at the line's rate, so nothing is resampled. */
export function telephonyRequestDefaults(format: LineFormat): Partial<TtsRequest> {
  return { ...TELEPHONY_REQUEST_DEFAULTS, sample_rate: format.sampleRate };
}
