/**
 * The clock a bridge paces against. Injected so that tests drive time by hand and never sleep
 * (ENGINEERING.md habit 7).
 */
export interface TelephonyClock {
  /** Milliseconds on a monotonic scale (any origin). */
  now(): number;
  /** Calls `fn` once, `ms` from now. */
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Wall clock: `performance.now()` and the Node timers. */
export const systemClock: TelephonyClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, Math.max(0, ms)),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
