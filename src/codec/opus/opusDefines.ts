/**
 * The libopus constants (opus_defines.h) that voicewire passes to libopus, through the native
 * addon or opusscript: one place for the engine's decoder backend and the local service's encoder.
 */

/** OPUS_APPLICATION_AUDIO: also opusscript's application argument (unused by decoding). */
export const OPUS_APPLICATION_AUDIO = 2049;
/** OPUS_AUTO: let the encoder choose (here: the bitrate). */
export const OPUS_AUTO = -1000;
export const OPUS_SET_BITRATE_REQUEST = 4002;
export const OPUS_SET_GAIN_REQUEST = 4034;
