/**
 * The time source and timers of anything paced in real time (players, telephony bridges).
 * Injected so that tests drive time by hand and never sleep.
 */
export interface Clock {
  /** Milliseconds on a monotonic scale (any origin). */
  now(): number;
  /** Calls `fn` once, `ms` from now. */
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Wall clock: `performance.now()` and the Node timers. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, Math.max(0, ms)),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
