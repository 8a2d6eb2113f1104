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
 */
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type { OnnxRuntimeModules, OrtBindingSession, OrtTensor } from './types.js';

const MODEL_URL = new URL('../../../models/silero_vad_v5.onnx', import.meta.url);
const STATE_SIZE = 2 * 128;
const STATE_DIMS = [2, 1, 128] as const;
/** Window and context lengths per rate, as the model was trained. */
export const SILERO_WINDOW_SAMPLES = { 8000: 256, 16000: 512 } as const;
const WINDOW = SILERO_WINDOW_SAMPLES;
const CONTEXT = { 8000: 32, 16000: 64 } as const;
const S16_SCALE = 32768;
/** One thread: many calls share the machine, and a window is well under a millisecond. */
const SESSION_OPTIONS = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' };

export async function defaultLoadOnnxRuntime(): Promise<OnnxRuntimeModules> {
  const require = createRequire(import.meta.url);
  return {
    ort: require('onnxruntime-node') as OnnxRuntimeModules['ort'],
    binding: require('onnxruntime-node/dist/binding.js') as OnnxRuntimeModules['binding'],
  };
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
    modules.binding.initOrt();
    const session = new modules.binding.binding.InferenceSession();
    session.loadModel(fileURLToPath(MODEL_URL), SESSION_OPTIONS);
    return { modules, session };
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

export class SileroVad {
  readonly windowSamples: number;
  private readonly context: number;
  private readonly session: OrtBindingSession;
  private readonly input: OrtTensor;
  private readonly inputData: Float32Array;
  private state: OrtTensor;
  private readonly sr: OrtTensor;
  private readonly Tensor: OnnxRuntimeModules['ort']['Tensor'];

  constructor({ modules, session }: Shared, sampleRate: 8000 | 16000) {
    this.windowSamples = WINDOW[sampleRate];
    this.context = CONTEXT[sampleRate];
    this.session = session;
    this.Tensor = modules.ort.Tensor;
    this.inputData = new Float32Array(this.context + this.windowSamples);
    this.input = new this.Tensor('float32', this.inputData, [1, this.inputData.length]);
    this.state = this.zeroState();
    this.sr = new this.Tensor('int64', BigInt64Array.from([BigInt(sampleRate)]), []);
  }

  /** Speech probability of one window of exactly {@link windowSamples} samples. */
  process(window: Int16Array): number {
    const data = this.inputData;
    const ctx = this.context;
    data.copyWithin(0, data.length - ctx);
    for (let i = 0; i < window.length; i++) data[ctx + i] = window[i]! / S16_SCALE;
    const out = this.session.run({ input: this.input, state: this.state, sr: this.sr }, { output: null, stateN: null }, {});
    this.state = out['stateN']!;
    return (out['output']!.data as Float32Array)[0]!;
  }

  /** Forgets the state and the context (a new stream, or the gate reopening). */
  reset(): void {
    this.state = this.zeroState();
    this.inputData.fill(0);
  }

  private zeroState(): OrtTensor {
    return new this.Tensor('float32', new Float32Array(STATE_SIZE), STATE_DIMS);
  }
}
