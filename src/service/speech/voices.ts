/**
 * The local service's voices (`reference_id`) and leading emotion tags.
 *
 * `reference_id` absent or null → the `default` voice. An id not in the table → 400
 * (`reference_id`, rule `unknown_voice`). Service options may add voices.
 */

export interface VoiceSpec {
  /** espeak-ng voice name, with an optional `+variant`. */
  espeak: string;
  /** 0–100, espeak default 50. */
  pitch: number;
  /** Pitch range 0–100, espeak default 50. */
  range: number;
  /** Words per minute at `prosody.speed` 1. */
  wpm: number;
  description: string;
}

/** espeak's default speaking rate, words per minute. */
export const ESPEAK_DEFAULT_WPM = 175;
export const ESPEAK_MIN_WPM = 80;
export const ESPEAK_MAX_WPM = 450;

export const DEFAULT_VOICE_ID = 'default';

export const VOICES: Readonly<Record<string, VoiceSpec>> = {
  default: { espeak: 'en-us', pitch: 50, range: 50, wpm: ESPEAK_DEFAULT_WPM, description: 'US English, male (espeak default)' },
  'en-us-male': { espeak: 'en-us+m3', pitch: 45, range: 50, wpm: ESPEAK_DEFAULT_WPM, description: 'US English, male, lower' },
  'en-us-female': { espeak: 'en-us+f3', pitch: 55, range: 60, wpm: ESPEAK_DEFAULT_WPM, description: 'US English, female' },
  'en-gb': { espeak: 'en-gb-x-rp', pitch: 50, range: 50, wpm: ESPEAK_DEFAULT_WPM, description: 'British English (RP), male' },
  'en-gb-female': { espeak: 'en-gb-x-rp+f2', pitch: 55, range: 60, wpm: ESPEAK_DEFAULT_WPM, description: 'British English (RP), female' },
  'en-scotland': { espeak: 'en-gb-scotland', pitch: 50, range: 50, wpm: ESPEAK_DEFAULT_WPM, description: 'Scottish English' },
  'en-us-klatt': { espeak: 'en-us+klatt', pitch: 50, range: 40, wpm: 165, description: 'US English, Klatt formant voice (robotic)' },
};

/** What a leading emotion tag changes. Multipliers apply to the voice's values. */
export interface EmotionStyle {
  /** espeak variant replacing the voice's own (`whisper`, ...). */
  variant?: string;
  pitchDelta?: number;
  range?: number;
  speed?: number;
  gainDb?: number;
}

export const EMOTIONS: Readonly<Record<string, EmotionStyle>> = {
  happy: { pitchDelta: 15, range: 80, speed: 1.1 },
  excited: { pitchDelta: 20, range: 90, speed: 1.15, gainDb: 2 },
  sad: { pitchDelta: -15, range: 20, speed: 0.85, gainDb: -3 },
  angry: { pitchDelta: 5, range: 90, speed: 1.1, gainDb: 4 },
  calm: { pitchDelta: -5, range: 30, speed: 0.9 },
  whisper: { variant: 'whisper', speed: 0.95 },
  whispering: { variant: 'whisper', speed: 0.95 },
  shouting: { pitchDelta: 10, range: 90, gainDb: 6 },
  serious: { pitchDelta: -5, range: 25 },
};

const LEADING_TAG = /^\s*[([]\s*([A-Za-z][A-Za-z _-]{0,30}?)\s*[)\]]\s*/;

/**
 * Removes one leading bracketed tag (`(happy)`, `[whisper]`) from the text. A known tag gives its
 * style; an unknown one is still removed (it is a stage direction, not speech) with no change.
 */
export function takeEmotionTag(text: string): { text: string; tag: string | null; style: EmotionStyle | null } {
  const m = LEADING_TAG.exec(text);
  if (!m) return { text, tag: null, style: null };
  const tag = m[1]!.toLowerCase().trim();
  const rest = text.slice(m[0].length);
  return { text: rest, tag, style: EMOTIONS[tag] ?? null };
}

export interface ResolvedVoice {
  espeak: string;
  pitch: number;
  range: number;
  wpm: number;
  gainDb: number;
}

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

/** The espeak settings for a voice, an emotion style and `prosody.speed`. */
export function resolveVoice(voice: VoiceSpec, style: EmotionStyle | null, speed: number): ResolvedVoice {
  const base = voice.espeak.split('+')[0]!;
  const espeak = style?.variant ? `${base}+${style.variant}` : voice.espeak;
  return {
    espeak,
    pitch: clamp(voice.pitch + (style?.pitchDelta ?? 0), 0, 100),
    range: clamp(style?.range ?? voice.range, 0, 100),
    wpm: Math.round(clamp(voice.wpm * speed * (style?.speed ?? 1), ESPEAK_MIN_WPM, ESPEAK_MAX_WPM)),
    gainDb: style?.gainDb ?? 0,
  };
}
