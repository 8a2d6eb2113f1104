/**
 * voicewire: the speech stream engine and what every user of it needs (SSE parsing, speech events,
 * decoders, conversion, sinks, captions, errors). It loads nothing else: the rest is behind its
 * subpath, so importing the engine does not pay for a WebSocket server or a webhook toolkit.
 *
 * Subpaths: `voicewire/client` (speech, agents, sessions), `voicewire/webhooks` (signatures,
 * receivers, dedup), `voicewire/service` (the local service), `voicewire/telephony` (Twilio
 * Media Streams bridge).
 *
 * @example
 * ```ts
 * import { createWavFileSink } from 'voicewire';
 * import { createClient } from 'voicewire/client';
 * import { pipeline } from 'node:stream/promises';
 *
 * const client = createClient({ baseUrl, apiKey });
 * const { stream } = await client.tts.streamWithTimestamps({ text: 'Hello there.', format: 'opus' });
 * stream.on('word', (w) => console.log(w.start.toFixed(2), w.text)); // as the audio is consumed
 * await pipeline(stream, createWavFileSink('hello.wav'));
 * ```
 */

// ---- errors
export * from './errors.js';

// ---- the engine
export { createSpeechPipeline, SpeechPipeline } from './engine/SpeechPipeline.js';
export type {
  SpeechPipelineOptions,
  SpeechSummary,
  OutputFormat,
  OutputOptions,
  WordEvent,
  WordRevision,
} from './engine/SpeechPipeline.js';
export { AlignmentStore } from './align/AlignmentStore.js';
export type { TimelineWord, AlignmentChange, AlignmentSnapshot, AlignmentInput } from './align/AlignmentStore.js';
export { Playhead, type PlayheadMode } from './play/Playhead.js';
export { WordClock } from './play/WordClock.js';
export { RingBuffer, DEFAULT_RING_CAPACITY } from './buffer/RingBuffer.js';

// ---- SSE and speech events
export { SseParseStream, type SseParseStreamOptions } from './sse/SseParseStream.js';
export { createSseParser, DEFAULT_MAX_SSE_BYTES, type SseEvent, type SseParser, type SseParserOptions } from './sse/SseParser.js';
export {
  validateSpeechEvent,
  parseSpeechEventData,
  inspectSpeechEvent,
  validateAlignment,
  type SpeechEvent,
  type Alignment,
  type AlignmentSegment,
} from './events/SpeechEvent.js';
export { SpeechEventScanner, type SpeechEventMeta, type SpeechEventScannerOptions } from './events/SpeechEventScanner.js';

// ---- codecs
export type {
  AudioFormat,
  SampleEncoding,
  PcmFormat,
  AudioFrame,
  PcmFrame,
  AudioDecoder,
  DecodedAudio,
  DecodeHint,
  DecodeStepOptions,
} from './codec/types.js';
export { DECODE_STEP_MS } from './codec/types.js';
export { createDecoder, type CreateDecoderOptions } from './codec/createDecoder.js';
export { PcmDecoder } from './codec/PcmDecoder.js';
export { WavDecoder } from './codec/WavDecoder.js';
export { OggOpusDecoder, type OggOpusDecoderOptions } from './codec/OpusDecoder.js';
export { Mp3Decoder, MP3_UNTAGGED_DELAY, type Mp3DecoderOptions } from './codec/Mp3Decoder.js';
export { OggPageReader, type OggPacket, type OggPacketSink, type OggPageReaderOptions } from './codec/ogg/OggPageReader.js';
export { sniffContainer, checkDeclaredFormat, type SniffedContainer } from './codec/sniff.js';
export { Framer, DEFAULT_FRAME_MS } from './codec/Framer.js';

// ---- conversion (resample, μ-law, A-law, L16, downmix, reframe)
export { ConversionStage, DEFAULT_OUTPUT_FRAME_MS } from './dsp/ConversionStage.js';
export { Resampler, loadResampler, DEFAULT_RESAMPLER_QUALITY } from './dsp/Resampler.js';
export { mulawEncode, mulawDecode, mulawEncodeSample, mulawDecodeSample } from './dsp/mulaw.js';
export { alawEncode, alawDecode, alawEncodeSample, alawDecodeSample } from './dsp/alaw.js';
export { l16Encode, l16Decode, type L16ByteOrder } from './dsp/l16.js';

// ---- the speech request (one module for client and service)
export {
  validateTtsRequest,
  TTS_DEFAULTS,
  TTS_MODELS,
  DEFAULT_MODEL,
  MAX_TEXT_LENGTH,
  defaultSampleRate,
  isLegalSampleRate,
  type TtsRequest,
  type NormalizedTtsRequest,
  type TtsModel,
  type LatencyMode,
} from './protocol/ttsRequest.js';
export { unknownFields, type UnknownFields } from './protocol/unknownFields.js';

// ---- sinks (WAV file, player, frames → bytes) and captions
export * from './sinks/index.js';
export * from './captions/index.js';
export { WavWriter, wavHeader, WAV_SIZE_UNKNOWN, type WavFormat } from './sinks/WavWriter.js';
