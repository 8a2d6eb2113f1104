/**
 * The simulated real-time player: "would this stream have stalled on a phone call?"
 *
 * A player starts at the first audio plus a jitter buffer, then plays at exactly real time. Audio
 * arrives in pieces (each with the stream position it reaches); when the playhead gets to a
 * position before the audio for it has arrived, the player underruns (plays silence) until it
 * does, and everything after is heard that much later. Pure: times in, verdict out.
 */

/** One arrival of audio: at `atMs` the stream holds audio up to `endSec`. */
export interface AudioArrival {
  atMs: number;
  endSec: number;
}

export interface Underrun {
  /** When the player ran dry (ms on the request's clock). */
  atMs: number;
  /** Stream position it ran dry at (seconds of audio). */
  positionSec: number;
  /** How long it played silence. */
  ms: number;
}

export interface WordHearing {
  /** When the word's first sound would have been heard (ms on the request's clock). */
  heardMs: number;
  /** How much later than with no underrun before it. */
  lateMs: number;
}

export interface PlayerVerdict {
  jitterBufferMs: number;
  /** When playback started: first audio + the jitter buffer. Null without audio. */
  startMs: number | null;
  underruns: Underrun[];
  /** Total silence played. */
  underrunMs: number;
  /** When the last sample would have been heard. */
  endMs: number | null;
}

/**
 * Plays `arrivals` (in arrival order, `endSec` never decreasing) through a player that starts
 * `jitterBufferMs` after the first one.
 */
export function simulatePlayer(arrivals: readonly AudioArrival[], jitterBufferMs: number): PlayerVerdict {
  const first = arrivals.find((a) => a.endSec > 0);
  if (first === undefined) return { jitterBufferMs, startMs: null, underruns: [], underrunMs: 0, endMs: null };
  const startMs = first.atMs + jitterBufferMs;
  const underruns: Underrun[] = [];
  let stalledMs = 0;
  let availableSec = 0;
  for (const a of arrivals) {
    if (a.endSec <= availableSec) continue;
    // The moment the playhead reaches the end of what had arrived before this piece.
    const needMs = startMs + availableSec * 1000 + stalledMs;
    if (availableSec > 0 && a.atMs > needMs) {
      const ms = a.atMs - needMs;
      underruns.push({ atMs: needMs, positionSec: availableSec, ms });
      stalledMs += ms;
    }
    availableSec = a.endSec;
  }
  return { jitterBufferMs, startMs, underruns, underrunMs: stalledMs, endMs: startMs + availableSec * 1000 + stalledMs };
}

/** When a word starting at `startSec` of the stream is heard under `verdict`, and how late. */
export function hearWord(verdict: PlayerVerdict, startSec: number): WordHearing | null {
  if (verdict.startMs === null) return null;
  let lateMs = 0;
  for (const u of verdict.underruns) if (u.positionSec <= startSec) lateMs += u.ms;
  return { heardMs: verdict.startMs + startSec * 1000 + lateMs, lateMs };
}
