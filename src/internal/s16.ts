/**
 * The signed 16-bit sample range, named once for every stage that converts to or from s16 (WAV,
 * the mp3 float output, the output conversion, μ-law).
 */

export const S16_MIN = -32768;
export const S16_MAX = 32767;
/** Full scale: a float sample of ±1.0 is ±32768 in s16 (then clipped to {@link S16_MAX}). */
export const S16_SCALE = 32768;
export const S16_BYTES = 2;
