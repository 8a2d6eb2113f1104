import type { TelephonyClock } from '../../../src/telephony/clock.js';

interface Timer {
  id: number;
  due: number;
  fn: () => void;
}

/** An injected clock that moves only when the test says so. Timers fire in due order. */
export class ManualClock implements TelephonyClock {
  private t = 0;
  private seq = 0;
  private timers: Timer[] = [];
  private added: (() => void)[] = [];

  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { id: ++this.seq, due: this.t + Math.max(0, ms), fn };
    this.timers.push(timer);
    for (const wake of this.added.splice(0)) wake();
    return timer.id;
  }
  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }
  /** Resolves when the next timer is set (real I/O made the code under test schedule work). */
  timerAdded(): Promise<void> {
    return new Promise((resolve) => this.added.push(resolve));
  }
  get pendingTimers(): number {
    return this.timers.length;
  }
  nextDue(): number | null {
    let best: Timer | null = null;
    for (const t of this.timers) if (best === null || t.due < best.due || (t.due === best.due && t.id < best.id)) best = t;
    return best === null ? null : best.due;
  }
  /** Moves to the earliest timer's due time and fires it; false when there is none. */
  fireNext(limit = Number.POSITIVE_INFINITY): boolean {
    const due = this.nextDue();
    if (due === null || due > limit) return false;
    const timer = this.timers.filter((t) => t.due === due).sort((a, b) => a.id - b.id)[0]!;
    this.timers = this.timers.filter((t) => t !== timer);
    if (due > this.t) this.t = due;
    timer.fn();
    return true;
  }
  /** Moves to `t` without firing anything (the caller fires what is due first). */
  set(t: number): void {
    if (t > this.t) this.t = t;
  }
}
