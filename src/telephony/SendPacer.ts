/**
 * Real-time pacing of one call's outbound audio against absolute time.
 *
 * `playEnd` estimates the clock time at which the phone finishes what was sent; each frame adds
 * its exact duration to it (`max(playEnd, now) + duration`, so an underrun restarts from now),
 * and the next frame is due once less than `leadMs` remains buffered: at `playEnd - leadMs`.
 * One timer at a time, set for that absolute instant, so timer jitter never accumulates (no
 * `setInterval`; after discord.js voice). How late each timed send went out is recorded.
 */
import { LatenessHistogram } from './LatenessHistogram.js';
import type { TelephonyClock } from './clock.js';

export class SendPacer {
  lateness = new LatenessHistogram();
  private playEnd = Number.NEGATIVE_INFINITY;
  private timer: unknown = null;
  private scheduledDue: number | null = null;
  /** The due time of the timer that just fired, until the send it woke up is recorded. */
  private firedDue: number | null = null;

  constructor(
    private readonly clock: TelephonyClock,
    readonly leadMs: number,
    private readonly wake: () => void,
  ) {}

  /** When the next frame may go out (≤ now: at once). */
  get due(): number {
    return this.playEnd - this.leadMs;
  }

  /** When audio sent at `now` starts playing (after what the phone still has buffered). */
  playStart(now: number): number {
    return Math.max(this.playEnd, now);
  }

  /** Arms the timer for `due` (replacing any other). */
  schedule(due: number, now: number): void {
    this.cancel();
    this.scheduledDue = due;
    this.timer = this.clock.setTimeout(this.onTimer, due - now);
  }

  /** A frame of `durationMs` went out at `now`, having been due at `due`. */
  sent(now: number, due: number, durationMs: number): void {
    if (this.firedDue !== null && due === this.firedDue) this.lateness.record(now - due);
    this.firedDue = null;
    this.playEnd = Math.max(this.playEnd, now) + durationMs;
  }

  /** A wake-up found nothing to send (the source is behind): not lateness. */
  idle(): void {
    this.firedDue = null;
  }

  /** The phone's buffer is known empty (after `clear`). */
  reset(): void {
    this.cancel();
    this.playEnd = Number.NEGATIVE_INFINITY;
  }

  /** The phone is known to have played everything by `now` (the end mark came back). */
  anchor(now: number): void {
    this.playEnd = now;
  }

  cancel(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.scheduledDue = null;
  }

  private readonly onTimer = (): void => {
    this.timer = null;
    this.firedDue = this.scheduledDue;
    this.scheduledDue = null;
    this.wake();
  };
}
