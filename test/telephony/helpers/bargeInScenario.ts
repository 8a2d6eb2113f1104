/**
 * The caller's side of the barge-in scenarios the call tests share (VoiceBargeIn, the provider
 * suite, detector threads): which corpus clips the caller says, and when.
 */

/** The VAD loads in real time (wasm / native): a bounded wait on real I/O, not a clock stand-in. */
export const LOAD_POLLS = 2000;
export const LOAD_POLL_MS = 5;
/** A 710 ms caller utterance (onset 400 ms into the clip). */
export const UTTERANCE = 'speech-en-us-male-u2-snr20.ul';
/**
 * A 150 ms cough-length burst: the first 150 ms of this utterance, the line noise going on
 * (`speechBurst(clip(BURST_FROM), BURST_MS)`). It pauses the bot, which then resumes.
 */
export const BURST_FROM = 'speech-en-us-klatt-u2-snr20.ul';
export const BURST_MS = 150;
/** The caller starts this long after the bot's first frame. */
export const CALLER_AT_MS = 1000;
