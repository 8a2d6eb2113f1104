/**
 * The speech engine's waiting room: units of synthesis (one text chunk of one request each),
 * and which one a free worker takes next.
 *
 * - `fair` (the default): the unit with the lowest `seq` (the request's chunk index), earliest
 *   arrival first among equals. Every waiting request gets its first chunk before any request
 *   gets its second, its second before any third, and so on: under load a new request's first
 *   audio waits for one round of first chunks, not behind the later chunks of earlier requests.
 * - `fifo`: arrival order, the scheduler before fairness (kept so the load bench can run both
 *   side by side in one process).
 *
 * A request has at most one unit waiting (its next chunk is queued when the previous one is
 * done), so the queue holds at most one unit per open request: a linear scan for the lowest
 * `seq` costs microseconds even with hundreds of requests, and keeps removal (a cancelled
 * request) trivial.
 */
export type SchedulerKind = 'fair' | 'fifo';

export const SCHEDULER_KINDS: readonly SchedulerKind[] = ['fair', 'fifo'];

export interface QueuedUnit {
  /** The unit's index within its request (its `chunk_seq`). */
  readonly seq: number;
}

export class UnitQueue<T extends QueuedUnit> {
  /** In arrival order. */
  private readonly units: T[] = [];

  constructor(private readonly kind: SchedulerKind) {}

  get length(): number {
    return this.units.length;
  }

  push(unit: T): void {
    this.units.push(unit);
  }

  /** The unit a free worker should run next, left in the queue. */
  peek(): T | undefined {
    return this.units[this.nextIndex()];
  }

  /** Removes and returns the unit a free worker should run next. */
  take(): T | undefined {
    if (this.units.length === 0) return undefined;
    return this.units.splice(this.nextIndex(), 1)[0];
  }

  private nextIndex(): number {
    let best = 0;
    if (this.kind === 'fair') {
      for (let i = 1; i < this.units.length; i++) {
        if (this.units[i]!.seq < this.units[best]!.seq) best = i;
      }
    }
    return best;
  }

  /** Drops a unit that has not started (its request was cancelled); false if it was not waiting. */
  remove(unit: T): boolean {
    const i = this.units.indexOf(unit);
    if (i < 0) return false;
    this.units.splice(i, 1);
    return true;
  }

  /** Empties the queue, returning what was waiting. */
  drain(): T[] {
    return this.units.splice(0);
  }
}
