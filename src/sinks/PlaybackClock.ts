/**
 * Where a real-time player is in the audio we gave it — the pure core of the player sink.
 *
 * Bytes written to a player are not audio heard. A player such as aplay fills its output buffer
 * first and starts the device only once the buffer holds `bufferSec` of audio (ALSA's start
 * threshold; aplay's default is the whole buffer), then plays at exactly real time; after an
 * underrun (nothing left to play) it waits for a full buffer again. The clock models exactly
 * that, as runs of contiguous playback:
 *
 *   on write of n samples at t:  a playing run that has not ended by t grows by n; otherwise the
 *                                samples wait, and a new run starts at t once `bufferSec` waits
 *                                (or at the end of the stream, see {@link PlaybackClock.flush})
 *   heard at t:                  the run playing at t: its first sample + (t − its start) · rate
 *
 * Writes are paced so the audio not yet heard stays near `buffer + lead`: the player never
 * starves while audio is available, and captions driven by `heardSamples()` never run ahead of
 * the sound. All times are seconds on an injected clock.
 */

/** Keeps `(0.35 − 0.1) · 1000` from flooring to 249. */
const FLOAT_SLACK = 1e-6;

export interface PlaybackClockOptions {
  sampleRate: number;
  /** The player's output buffer: it starts playing once this much audio has arrived. */
  bufferSec: number;
  /** How much audio to keep queued beyond `bufferSec`, against scheduling jitter. */
  leadSec: number;
}

interface Run {
  startAt: number;
  endAt: number;
  firstSample: number;
  endSample: number;
}

export class PlaybackClock {
  readonly sampleRate: number;
  readonly bufferSec: number;
  readonly leadSec: number;
  private written = 0;
  /** Started runs not yet fully heard, oldest first: at most a few (one per underrun in flight). */
  private readonly runs: Run[] = [];
  /** Samples written after an underrun (or at the start), waiting for a full buffer. */
  private waiting = 0;
  /** Samples known heard (runs that ended). */
  private heardBase = 0;

  constructor(options: PlaybackClockOptions) {
    this.sampleRate = options.sampleRate;
    this.bufferSec = options.bufferSec;
    this.leadSec = options.leadSec;
  }

  /** Samples (per channel) handed to the player so far. */
  get writtenSamples(): number {
    return this.written;
  }

  /** Records `samples` (per channel) handed to the player at time `now`. */
  onWrite(samples: number, now: number): void {
    this.written += samples;
    const last = this.runs[this.runs.length - 1];
    if (this.waiting === 0 && last !== undefined && last.endAt > now) {
      last.endAt += samples / this.sampleRate;
      last.endSample += samples;
      return;
    }
    this.waiting += samples;
    if (this.waiting / this.sampleRate + FLOAT_SLACK >= this.bufferSec) this.startWaiting(now);
  }

  /** The stream ended: the player plays what it holds even if its buffer is not full. */
  flush(now: number): void {
    if (this.waiting > 0) this.startWaiting(now);
  }

  /** Samples (per channel) heard by time `now` (never earlier than the last query's `now`). */
  heardSamples(now: number): number {
    while (this.runs.length > 0 && this.runs[0]!.endAt <= now) this.heardBase = this.runs.shift()!.endSample;
    const run = this.runs[0];
    if (run === undefined || now <= run.startAt) return this.heardBase;
    return Math.min(run.endSample, run.firstSample + Math.floor((now - run.startAt) * this.sampleRate + FLOAT_SLACK));
  }

  /** Seconds to wait before the next write keeps the queue at `buffer + lead`. */
  delayBeforeWrite(now: number): number {
    return Math.max(0, this.remaining(now) - this.bufferSec - this.leadSec);
  }

  /** Seconds of audio written and not yet heard (waiting audio included). */
  remaining(now: number): number {
    const last = this.runs[this.runs.length - 1];
    const playing = last === undefined ? 0 : Math.max(0, last.endAt - now);
    return playing + this.waiting / this.sampleRate;
  }

  private startWaiting(now: number): void {
    const last = this.runs[this.runs.length - 1];
    const startAt = Math.max(now, last?.endAt ?? now);
    const firstSample = this.written - this.waiting;
    this.runs.push({ startAt, endAt: startAt + this.waiting / this.sampleRate, firstSample, endSample: this.written });
    this.waiting = 0;
  }
}
