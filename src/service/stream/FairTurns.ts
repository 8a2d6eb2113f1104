/**
 * Turns on the service's main thread for per-piece work (gain, resampling, encoding, sending one
 * ~100 ms piece of synthesized audio), handed out fairly across requests.
 *
 * Each request asks for a turn before each piece, at its own `level` (how many pieces it has
 * handled so far); one turn is granted per event-loop iteration, lowest level first, arrival
 * order among equals. So every waiting request's first piece is encoded and sent before any
 * request's second, and sockets and worker messages are served between two turns. Before this,
 * each request took a turn per piece in plain arrival order (`setImmediate`): under load a new
 * request's first piece queued behind a round of every other request's later pieces.
 *
 * While any request still waits for its first audio (its first chunk queued for, or running on,
 * an espeak worker: {@link FairTurns.holdForFirstAudio}), only first pieces get turns: the main
 * thread then leaves the CPU to the workers, whose first chunks are what every waiting request
 * needs first. It cut the service CPU spent before first audio by 13–38 % at 40 concurrent
 * requests, and it costs throughput: workers and main thread overlap less (bench/README.md, "Fair
 * synthesis under load", decision 3).
 *
 * The waiting list is the engine's own fair {@link UnitQueue} (level in place of chunk index):
 * at most one entry per request in flight, since a request waits for one turn at a time.
 */
import { UnitQueue } from '../speech/UnitQueue.js';

/** Anything that hands out turns: `turn(level)` resolves when the caller may do one piece of work. */
export interface TurnTaker {
  turn(level: number): Promise<void>;
  /**
   * Says a request is waiting for its first audio (its first chunk is queued or running on a
   * worker); until the returned release is called, only first-piece (level 0) turns are granted.
   */
  holdForFirstAudio(): () => void;
}

/** A request waiting for a turn; `seq` is its level (the fair queue orders by it). */
interface Waiter {
  seq: number;
  grant: () => void;
}

export class FairTurns implements TurnTaker {
  private readonly waiting = new UnitQueue<Waiter>('fair');
  private scheduled = false;
  /** Requests waiting for their first audio. */
  private holds = 0;

  /** `defer` runs a callback on a later event-loop iteration (tests may step it by hand). */
  constructor(
    private readonly defer: (fn: () => void) => void = (fn) => {
      setImmediate(fn);
    },
  ) {}

  /** Waiting requests (for tests and diagnostics). */
  get waitingCount(): number {
    return this.waiting.length;
  }

  turn(level: number): Promise<void> {
    return new Promise<void>((grant) => {
      this.waiting.push({ seq: level, grant });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    this.defer(() => this.grantNext());
  }

  holdForFirstAudio(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      if (this.holds === 0) this.schedule();
    };
  }

  private grantNext(): void {
    this.scheduled = false;
    // Held: later pieces wait, without spinning, until the last first audio is under way.
    if (this.holds > 0 && (this.waiting.peek()?.seq ?? 0) > 0) return;
    this.waiting.take()?.grant();
    this.schedule();
  }
}

/** The turns before issue 19: every caller simply waits one `setImmediate`, in arrival order. */
export const arrivalOrderTurns: TurnTaker = {
  turn: () => new Promise<void>((resolve) => setImmediate(resolve)),
  holdForFirstAudio: () => () => undefined,
};

/** The main thread is one resource: every service in the process shares its turns. */
export const sharedFairTurns = new FairTurns();
