/**
 * Keeps a detector thread out of onnxruntime-node's native code while the process exits.
 *
 * When the process exits (`process.exit()`, an uncaught exception) or a worker is terminated,
 * Node stops the worker's JavaScript where it stands. If that is inside a call into
 * onnxruntime-node's addon (a Silero run, loading the model or the addon), the addon's next
 * N-API call fails, it throws a C++ `Napi::Error` it cannot hand to JavaScript any more, and the
 * whole process aborts (`terminate called after throwing an instance of 'Napi::Error'`, SIGABRT,
 * exit code 134) instead of exiting with its code (native-notes/vad.md, "The detector thread and
 * process exit"). So every native call on a detector thread goes through a gate shared with the
 * thread that owns it: the owner closes the gate before the thread is stopped and waits, briefly
 * and bounded, until the thread is out; a thread finding the gate closed does not go in.
 *
 * The gate is two int32 words in a `SharedArrayBuffer`. Both sides store their own word, then
 * load the other's (sequentially consistent `Atomics`), so either the thread sees the gate closed
 * and stays out, or the owner sees the thread inside and waits for it: never neither.
 */
import { TelephonyError } from '../../errors.js';

/** The owner closed the gate (the thread is about to be stopped). */
const CLOSED = 0;
/** The thread is inside native code. */
const INSIDE = 1;
const WORDS = 2;
const I32_BYTES = 4;

/**
 * How long the owner waits for a thread to leave native code: the longest native call on a
 * detector thread is loading the addon or the model (~20–100 ms of CPU, measured here; a Silero
 * run of 32 windows is ~2 ms), given room for a loaded machine. A thread still inside after this
 * is stuck, and the exit goes on.
 */
export const NATIVE_EXIT_WAIT_MS = 2000;

export class NativeGate {
  readonly buffer: SharedArrayBuffer;
  private readonly words: Int32Array;

  /** A new gate (the owner's side), or the owner's gate seen from the thread (its buffer). */
  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(WORDS * I32_BYTES)) {
    this.buffer = buffer;
    this.words = new Int32Array(buffer, 0, WORDS);
  }

  /** Whether the owner has closed the gate. */
  get closed(): boolean {
    return Atomics.load(this.words, CLOSED) === 1;
  }

  /**
   * The thread's side: marks it inside native code. Throws a `TelephonyError`
   * (`BARGE_IN_UNAVAILABLE`) and stays out when the gate is closed.
   */
  enter(what: string): void {
    Atomics.store(this.words, INSIDE, 1);
    if (Atomics.load(this.words, CLOSED) === 0) return;
    this.leave();
    throw new TelephonyError('BARGE_IN_UNAVAILABLE', `${what}: not started, the detector thread is stopping (the process is exiting)`, {
      field: 'bargeIn',
    });
  }

  /** The thread's side: out of native code (wakes an owner waiting to close). */
  leave(): void {
    Atomics.store(this.words, INSIDE, 0);
    if (Atomics.load(this.words, CLOSED) === 1) Atomics.notify(this.words, INSIDE);
  }

  /** The owner's side: closes the gate (the thread goes into native code no more); see {@link waitOut}. */
  shut(): void {
    Atomics.store(this.words, CLOSED, 1);
  }

  /**
   * The owner's side, after {@link shut}: waits (blocking, at most `timeoutMs`) until the thread is
   * out of native code. True when it is out (or was never in).
   */
  waitOut(timeoutMs: number = NATIVE_EXIT_WAIT_MS): boolean {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      if (Atomics.load(this.words, INSIDE) === 0) return true;
      const left = deadline - performance.now();
      if (left <= 0) return false;
      Atomics.wait(this.words, INSIDE, 1, left);
    }
  }
}

/** This thread's gate (a detector thread installs its owner's), or null: native calls go straight in. */
let current: NativeGate | null = null;

/** Installs the gate this thread's native calls go through (the detector thread, first thing). */
export function useNativeGate(gate: NativeGate | null): void {
  current = gate;
}

/**
 * Before a call into onnxruntime-node's addon on this thread: through the thread's gate (throws
 * when it is closed, see {@link NativeGate.enter}); `what` names the call. Without a gate (the
 * main thread, inline detectors) nothing happens. Always paired with {@link leaveNative} in a
 * `finally`.
 */
export function enterNative(what: string): void {
  current?.enter(what);
}

/** After a call into onnxruntime-node's addon (see {@link enterNative}). */
export function leaveNative(): void {
  current?.leave();
}
