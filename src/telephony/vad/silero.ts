/**
 * Silero VAD v5 (MIT, models/silero_vad_v5.onnx) on onnxruntime-node, an optional dependency.
 * The network takes one window (256 samples at 8 kHz, 512 at 16 kHz: 32 ms) after the previous
 * window's last 32 / 64 samples of context, plus a [2, 1, 128] recurrent state that it returns
 * updated. The state is an input, so one session per process serves every call; each detector
 * keeps its own state and context. 8 kHz input goes to the model at 8 kHz (it supports both
 * rates), so no resampling and the timeline stays sample-exact.
 *
 * The session is driven through onnxruntime-node's synchronous binding (the public `run()` only
 * wraps that same call in a promise and a `setImmediate`), so `push()` can answer at once.
 *
 * Rows of one run are independent streams (state `[2, B, 128]`), so windows of different calls
 * can share a run ({@link SileroBatch}): a run's cost is mostly fixed (native-notes/vad.md,
 * "Silero batched across calls"). Windows of one call cannot (window n + 1 needs the state
 * window n returned); they go in successive runs, in order.
 */
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { enterNative, leaveNative } from './nativeGate.js';
import type { OnnxRuntimeModules, OrtBindingSession, OrtTensor } from './types.js';

const MODEL_URL = new URL('../../../models/silero_vad_v5.onnx', import.meta.url);
/** The recurrent state of one stream: two layers of 128 (`[2, B, 128]` for B streams). */
const STATE_LAYERS = 2;
const STATE_WIDTH = 128;
const STATE_SIZE = STATE_LAYERS * STATE_WIDTH;
/**
 * The most rows in one run: per-window cost stops falling near 16 rows (0.16 ms single, 0.045 ms
 * per window at 16 and 32 rows, native-notes/vad.md), and the run's buffers stay small. More
 * streams waiting go in further runs.
 */
export const SILERO_MAX_BATCH = 32;
/** Window and context lengths per rate, as the model was trained. */
export const SILERO_WINDOW_SAMPLES = { 8000: 256, 16000: 512 } as const;
const WINDOW = SILERO_WINDOW_SAMPLES;
const CONTEXT = { 8000: 32, 16000: 64 } as const;
const S16_SCALE = 32768;
/** One thread: many calls share the machine, and a window is well under a millisecond. */
const SESSION_OPTIONS = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' };

export async function defaultLoadOnnxRuntime(): Promise<OnnxRuntimeModules> {
  const require = createRequire(import.meta.url);
  // Loading the addon runs its native registration: through this thread's gate (./nativeGate.ts).
  enterNative('loading onnxruntime-node');
  try {
    return {
      ort: require('onnxruntime-node') as OnnxRuntimeModules['ort'],
      binding: require('onnxruntime-node/dist/binding.js') as OnnxRuntimeModules['binding'],
    };
  } finally {
    leaveNative();
  }
}

let held = false;

/**
 * Loads onnxruntime-node's native addon in this thread and keeps it (nothing else: no session).
 * Once every thread that loaded the addon has ended, no later thread of the process can load it
 * ("Module did not self-register": the library stays mapped, so its registration does not run
 * again; measured with onnxruntime-node 1.24.3, native-notes/vad.md), and that thread's detectors
 * would fall back to the WebRTC VAD. The detector-thread pool calls this on the thread that
 * starts detector threads, which outlives them. Never throws: without the runtime, each thread
 * falls back on its own, with its notice.
 */
export function holdOnnxRuntime(): void {
  if (held) return;
  held = true;
  try {
    createRequire(import.meta.url)('onnxruntime-node/dist/binding.js');
  } catch {
    // Optional dependency missing or not loadable: the detector threads report it themselves.
  }
}

interface Shared {
  modules: OnnxRuntimeModules;
  session: OrtBindingSession;
}

let shared: Promise<Shared> | null = null;
let sharedLoader: (() => Promise<OnnxRuntimeModules>) | null = null;

/** Loads the runtime and the model once per loader; rejects when either is missing. */
export function loadSilero(loader: () => Promise<OnnxRuntimeModules> = defaultLoadOnnxRuntime): Promise<Shared> {
  if (shared && sharedLoader === loader) return shared;
  const attempt = loader().then((modules) => {
    enterNative('loading the Silero model');
    try {
      modules.binding.initOrt();
      const session = new modules.binding.binding.InferenceSession();
      session.loadModel(fileURLToPath(MODEL_URL), SESSION_OPTIONS);
      return { modules, session };
    } finally {
      leaveNative();
    }
  });
  // A failed load is not cached, so a later call may try again (e.g. after an install).
  if (loader === defaultLoadOnnxRuntime) {
    shared = attempt;
    sharedLoader = loader;
    attempt.catch(() => {
      if (shared === attempt) shared = null;
    });
  }
  return attempt;
}

/** The tensors of a run of B rows, made once per B and reused (inputs filled in place, outputs bound). */
interface RunBuffers {
  input: Float32Array;
  state: Float32Array;
  stateN: Float32Array;
  output: Float32Array;
  feeds: Record<string, OrtTensor>;
  fetches: Record<string, OrtTensor>;
}

/** Called with a window's probability once its run is done. */
export type WindowDone = (probability: number) => void;

/**
 * Runs queued windows of one or more streams on one session: one run of `[B, context + window]`
 * per step, each row its stream's own context and state. Reuses its tensors (bound outputs: the
 * binding writes the probabilities and the new states into our arrays), so a run allocates
 * nothing on our side.
 */
export class SileroRunner {
  private readonly runs = new Map<number, RunBuffers>();
  private readonly options = {};
  private readonly sr: OrtTensor;
  private readonly Tensor: OnnxRuntimeModules['ort']['Tensor'];
  readonly rowLength: number;

  constructor(
    { modules }: Shared,
    private readonly session: OrtBindingSession,
    readonly sampleRate: 8000 | 16000,
  ) {
    this.Tensor = modules.ort.Tensor;
    this.sr = new this.Tensor('int64', BigInt64Array.from([BigInt(sampleRate)]), []);
    this.rowLength = CONTEXT[sampleRate] + WINDOW[sampleRate];
  }

  private buffers(rows: number): RunBuffers {
    let b = this.runs.get(rows);
    if (b !== undefined) return b;
    const input = new Float32Array(rows * this.rowLength);
    const state = new Float32Array(rows * STATE_SIZE);
    const stateN = new Float32Array(rows * STATE_SIZE);
    const output = new Float32Array(rows);
    const stateDims = [STATE_LAYERS, rows, STATE_WIDTH];
    b = {
      input,
      state,
      stateN,
      output,
      feeds: {
        input: new this.Tensor('float32', input, [rows, this.rowLength]),
        state: new this.Tensor('float32', state, stateDims),
        sr: this.sr,
      },
      fetches: { output: new this.Tensor('float32', output, [rows, 1]), stateN: new this.Tensor('float32', stateN, stateDims) },
    };
    this.runs.set(rows, b);
    return b;
  }

  /** One run: the head window of each stream in `rows` (at most {@link SILERO_MAX_BATCH}); each stream's state and context move on. */
  run(rows: readonly SileroVad[], count: number): void {
    const b = this.buffers(count);
    const len = this.rowLength;
    for (let r = 0; r < count; r++) rows[r]!.load(b.input, r * len, b.state, r, count);
    // Through this thread's gate (./nativeGate.ts): a thread stopped inside a run aborts the process.
    enterNative('a Silero run');
    try {
      this.session.run(b.feeds, b.fetches, this.options);
    } finally {
      leaveNative();
    }
    for (let r = 0; r < count; r++) rows[r]!.store(b.output[r]!, b.stateN, r, count);
  }
}

const runners = new WeakMap<OrtBindingSession, Map<number, SileroRunner>>();

function runnerFor(s: Shared, sampleRate: 8000 | 16000): SileroRunner {
  let bySr = runners.get(s.session);
  if (bySr === undefined) runners.set(s.session, (bySr = new Map()));
  let r = bySr.get(sampleRate);
  if (r === undefined) bySr.set(sampleRate, (r = new SileroRunner(s, s.session, sampleRate)));
  return r;
}

/**
 * One stream's Silero state: its recurrent state, the context (the last samples of its previous
 * window) and the windows queued for the network. {@link process} runs at once (one row);
 * {@link enqueue} leaves the window for a {@link SileroBatch} to run with other streams' windows.
 */
export class SileroVad {
  readonly windowSamples: number;
  private readonly contextSamples: number;
  readonly runner: SileroRunner;
  /** `[2, 128]`: the stream's row of the `[2, B, 128]` state. */
  private readonly state = new Float32Array(STATE_SIZE);
  private readonly context: Float32Array;
  /** Queued windows (scaled to ±1), oldest first, and what to call with each one's probability. */
  private readonly queued: Float32Array[] = [];
  private readonly queuedDone: (WindowDone | null)[] = [];
  /** Whether the stream starts afresh (zero state and context) at that window. */
  private readonly queuedFresh: boolean[] = [];
  private head = 0;
  private count = 0;
  private last = 0;

  constructor(s: Shared, sampleRate: 8000 | 16000) {
    this.windowSamples = WINDOW[sampleRate];
    this.contextSamples = CONTEXT[sampleRate];
    this.context = new Float32Array(this.contextSamples);
    this.runner = runnerFor(s, sampleRate);
  }

  /** Windows waiting for a run. */
  get pending(): number {
    return this.count;
  }

  /** Speech probability of one window of exactly {@link windowSamples} samples (runs what was queued before it first). */
  process(window: Int16Array): number {
    this.enqueue(window, null, false);
    while (this.count > 0) this.runner.run([this], 1);
    return this.last;
  }

  /**
   * Queues a window (copied) for a later run; `done` is called with its probability when it has
   * run. `fresh`: the stream starts again from a zero state and context at this window (what
   * {@link reset} does at once).
   */
  enqueue(window: Int16Array, done: WindowDone | null, fresh: boolean): void {
    if (this.count === this.queued.length) {
      // Grow the ring (rare: a gate opening queues its warm windows), keeping the order.
      const order = Array.from({ length: this.count }, (_, k) => (this.head + k) % this.count);
      const bufs = order.map((k) => this.queued[k]!);
      const dones = order.map((k) => this.queuedDone[k]!);
      const fresh = order.map((k) => this.queuedFresh[k]!);
      this.queued.length = 0;
      this.queuedDone.length = 0;
      this.queuedFresh.length = 0;
      this.queued.push(...bufs, new Float32Array(this.windowSamples));
      this.queuedDone.push(...dones, null);
      this.queuedFresh.push(...fresh, false);
      this.head = 0;
    }
    const slot = (this.head + this.count) % this.queued.length;
    const buf = this.queued[slot]!;
    for (let i = 0; i < window.length; i++) buf[i] = window[i]! / S16_SCALE;
    this.queuedDone[slot] = done;
    this.queuedFresh[slot] = fresh;
    this.count++;
  }

  /** Writes the head window (after its context) and the state into row `row` of a run of `rows`. */
  load(input: Float32Array, offset: number, state: Float32Array, row: number, rows: number): void {
    if (this.queuedFresh[this.head] === true) {
      this.state.fill(0);
      this.context.fill(0);
    }
    input.set(this.context, offset);
    input.set(this.queued[this.head]!, offset + this.contextSamples);
    // Element by element, not `set(subarray(…))`: a view per layer per window is garbage on the detector thread.
    const own = this.state;
    for (let l = 0; l < STATE_LAYERS; l++) {
      const from = l * STATE_WIDTH;
      const to = (l * rows + row) * STATE_WIDTH;
      for (let i = 0; i < STATE_WIDTH; i++) state[to + i] = own[from + i]!;
    }
  }

  /** Takes row `row`'s results: the new state, the context for the next window, the probability. */
  store(probability: number, stateN: Float32Array, row: number, rows: number): void {
    const own = this.state;
    for (let l = 0; l < STATE_LAYERS; l++) {
      const from = (l * rows + row) * STATE_WIDTH;
      const to = l * STATE_WIDTH;
      for (let i = 0; i < STATE_WIDTH; i++) own[to + i] = stateN[from + i]!;
    }
    const window = this.queued[this.head]!;
    const context = this.context;
    const tail = window.length - this.contextSamples;
    for (let i = 0; i < this.contextSamples; i++) context[i] = window[tail + i]!;
    const done = this.queuedDone[this.head];
    this.queuedDone[this.head] = null;
    this.head = (this.head + 1) % this.queued.length;
    this.count--;
    this.last = probability;
    done?.(probability);
  }

  /** The probability of the last window the network scored (0 before one). */
  get lastProbability(): number {
    return this.last;
  }

  /**
   * The stream skips `window` without running the network (the caller judged that its score cannot
   * change a decision): the recurrent state stays, the context becomes the window's last samples,
   * as if the window had run. Only with nothing queued, since the context must follow the queued
   * windows: with windows queued it does nothing and returns false (the caller then queues or
   * runs the window instead); true when the window was skipped.
   */
  hold(window: Int16Array): boolean {
    if (this.count > 0) return false;
    const tail = window.length - this.contextSamples;
    for (let i = 0; i < this.contextSamples; i++) this.context[i] = window[tail + i]! / S16_SCALE;
    return true;
  }

  /** Forgets the state and the context (a new stream, or the gate reopening). Only between runs: queued windows are dropped. */
  reset(): void {
    this.state.fill(0);
    this.context.fill(0);
    this.head = 0;
    this.count = 0;
    this.queuedDone.fill(null);
  }
}

/**
 * Windows of many streams (calls on one detector thread) waiting for the network, run together:
 * each step takes the oldest queued window of every waiting stream into one run (one row each,
 * at most {@link SILERO_MAX_BATCH} per run), until none is left. A stream's windows stay in
 * order, one per step, so its recurrent state sees them as if run one at a time.
 */
export class SileroBatch {
  /** Streams with queued windows, each once. */
  private waiting: SileroVad[] = [];
  /** How many windows were deferred so far (a detector checks it to learn that its window waits). */
  deferrals = 0;
  /** Runs made, and rows in them (mean batch = rows / runs). */
  readonly stats = { runs: 0, rows: 0 };

  /** Queues `window` on `vad` for the next {@link run}; `done` gets its probability; `fresh` as in {@link SileroVad.enqueue}. */
  defer(vad: SileroVad, window: Int16Array, done: WindowDone | null, fresh = false): void {
    if (vad.pending === 0) this.waiting.push(vad);
    vad.enqueue(window, done, fresh);
    if (done !== null) this.deferrals++;
  }

  get pending(): boolean {
    return this.waiting.length > 0;
  }

  /** Scratch lists of {@link run} (reused: a run allocates no array). */
  private rest: SileroVad[] = [];
  private others: SileroVad[] = [];
  private readonly rows: SileroVad[] = [];

  /** Runs every queued window (each stream's in order) and calls their `done`s. */
  run(): void {
    const rows = this.rows;
    while (this.waiting.length > 0) {
      // The waiting streams become the rest to run (swapped, not copied); new waiters go to an empty list.
      let rest = this.waiting;
      this.waiting = this.rest;
      this.waiting.length = 0;
      let n = 0;
      for (const v of rest) if (v.pending > 0) rest[n++] = v;
      rest.length = n;
      while (rest.length > 0) {
        // One run per runner (session and rate: all the same in practice), at most SILERO_MAX_BATCH rows.
        const runner = rest[0]!.runner;
        const others = this.others;
        rows.length = 0;
        others.length = 0;
        for (const v of rest) (v.runner === runner && rows.length < SILERO_MAX_BATCH ? rows : others).push(v);
        runner.run(rows, rows.length);
        this.stats.runs++;
        this.stats.rows += rows.length;
        for (const v of rows) if (v.pending > 0) this.waiting.push(v);
        // The list just run becomes the next scratch for the others.
        this.others = rest;
        rest = others;
      }
      this.rest = rest;
    }
  }
}
