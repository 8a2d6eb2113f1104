/**
 * A caller's side of a call for the telephony bench: real corpus clips (test/fixtures/vad:
 * utterances of several voices at 20 and 10 dB SNR, coughs and "mm-hm"s) at seeded random
 * moments over phone-line filler (the corpus's silence and pink-noise clips), the caller's sound
 * (each clip's labelled span) about {@link CALLER_SPEECH_SHARE} of the time, as issue 22's
 * realistic mix. μ-law 8 kHz, the corpus's format. Pure: the clips are passed in.
 */
import { seededRandom } from '../../test/support/rng.js';

/** Share of the track that is the caller's sound (issue 22: the caller speaks ~30 % of the time). */
export const CALLER_SPEECH_SHARE = 0.3;
/** Each gap is the share's mean gap times a uniform factor in [1 − JITTER, 1 + JITTER]. */
const GAP_JITTER = 0.5;

export interface TrackClip {
  kind: string;
  snrDb?: number;
  onset?: number;
  offset?: number;
  mulaw: Uint8Array;
}

export interface CallerTrack {
  mulaw: Uint8Array;
  /** Samples of labelled caller sound in the track. */
  soundSamples: number;
  /** Clips placed (whole or cut by the track's end). */
  sounds: number;
}

/** The clips a caller says: utterances at 20 and 10 dB, coughs and hums (labelled spans). */
export function callerSounds<C extends TrackClip>(clips: readonly C[]): C[] {
  return clips.filter(
    (c) => (c.kind === 'speech' || c.kind === 'cough' || c.kind === 'hum') && (c.snrDb === 20 || c.snrDb === 10) && c.onset !== undefined,
  );
}

/** The line between the caller's sounds: silence and pink noise. */
export function lineFiller<C extends TrackClip>(clips: readonly C[]): C[] {
  return clips.filter((c) => c.kind === 'silence' || c.kind === 'pink');
}

/**
 * `samples` of caller audio from `seed`: a gap of filler, a clip, a gap, a clip … Each gap (the
 * filler plus the clip's own noise around its labelled span) averages span × (1 / share − 1).
 */
export function callerTrack(
  sounds: readonly TrackClip[],
  filler: readonly TrackClip[],
  samples: number,
  seed: number,
  share = CALLER_SPEECH_SHARE,
): CallerTrack {
  if (sounds.length === 0 || filler.length === 0) throw new Error('callerTrack needs at least one sound and one filler clip');
  const random = seededRandom(seed);
  const out = new Uint8Array(samples);
  let at = 0;
  let soundSamples = 0;
  let count = 0;
  while (at < samples) {
    const c = sounds[Math.floor(random() * sounds.length)]!;
    const span = c.offset! - c.onset!;
    const gap = span * (1 / share - 1) * (1 - GAP_JITTER + 2 * GAP_JITTER * random());
    let fill = Math.max(0, Math.round(gap) - (c.mulaw.length - span));
    while (fill > 0 && at < samples) {
      const f = filler[Math.floor(random() * filler.length)]!.mulaw;
      const from = Math.floor(random() * f.length);
      const n = Math.min(fill, f.length - from, samples - at);
      out.set(f.subarray(from, from + n), at);
      at += n;
      fill -= n;
    }
    const n = Math.min(c.mulaw.length, samples - at);
    if (n <= 0) break;
    out.set(c.mulaw.subarray(0, n), at);
    soundSamples += Math.max(0, Math.min(n, c.offset!) - c.onset!);
    count++;
    at += n;
  }
  return { mulaw: out, soundSamples, sounds: count };
}
