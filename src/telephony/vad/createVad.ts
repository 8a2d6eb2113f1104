/**
 * `createVad()`: a voice activity detector for one call's inbound audio (μ-law 8 kHz bytes, or
 * L16 at 8 / 16 kHz). Pure core: `push()` returns the events its samples completed, nothing is
 * timed by a clock, and any split of the same samples into pushes gives the same events.
 * Silero needs onnxruntime-node (optional); when it cannot load, the detector falls back to the
 * WebRTC VAD with one notice instead of failing. See native-notes/vad.md for the measurements.
 */
import { InvalidOptionError } from '../../errors.js';
import { mulawDecode } from '../../dsp/mulaw.js';
import { S16_SCALE } from '../../internal/s16.js';
import { Hysteresis, type HysteresisConfig } from './hysteresis.js';
import { FramedScorer, GatedScorer, type Scorer } from './scorers.js';
import { SileroVad, loadSilero } from './silero.js';
import { WebrtcVad } from './webrtc.js';
import {
  DEFAULT_MIN_LEVEL_DBFS,
  DEFAULT_MIN_SILENCE_MS,
  DEFAULT_MIN_SPEECH_MS,
  DEFAULT_SILERO_START_THRESHOLD,
  DEFAULT_SILERO_STOP_THRESHOLD,
  DEFAULT_VAD_BACKEND,
  DEFAULT_VAD_SAMPLE_RATE,
  DEFAULT_WEBRTC_MIN_SPEECH_MS,
  DEFAULT_WEBRTC_MODE,
  DEFAULT_WEBRTC_THRESHOLD,
  type VadBackend,
  type VadEvent,
  type VadOptions,
} from './types.js';

/** μ-law bytes are decoded through a fixed buffer this long (bounded memory for any push). */
const DECODE_CHUNK = 4096;
const MULAW_RATE = 8000;
const MS_PER_SECOND = 1000;
const WEBRTC_MODES = [0, 1, 2, 3];

export interface Vad {
  /** The backend in use: `'webrtc'` after a fallback from `'silero'` or `'gated'`. */
  readonly backend: VadBackend;
  readonly sampleRate: number;
  /** Int16Array: L16 at `sampleRate`; Uint8Array: μ-law at 8 kHz. Returns the events completed. */
  push(samples: Int16Array | Uint8Array): VadEvent[];
  /** End of input: closes an open speech run (a trailing partial window is not scored). */
  flush(): VadEvent[];
  /** A new stream: state, times and windows start again from zero. */
  reset(): void;
  /** Frees the wasm instance; later pushes return no events. */
  close(): void;
  /** Windows scored and how many ran the Silero network (the gate's saving). */
  readonly stats: { readonly windows: number; readonly modelWindows: number };
}

export async function createVad(options: VadOptions = {}): Promise<Vad> {
  const sampleRate = options.sampleRate ?? DEFAULT_VAD_SAMPLE_RATE;
  if (sampleRate !== 8000 && sampleRate !== 16000) {
    throw new InvalidOptionError('sampleRate', `VAD sampleRate must be 8000 or 16000, got ${String(sampleRate)}`);
  }
  let backend = options.backend ?? DEFAULT_VAD_BACKEND;
  if (!['silero', 'webrtc', 'gated'].includes(backend)) {
    throw new InvalidOptionError('backend', `VAD backend must be 'silero', 'webrtc' or 'gated', got ${String(backend)}`);
  }
  const mode = options.webrtcMode;
  if (mode !== undefined && !WEBRTC_MODES.includes(mode)) {
    throw new InvalidOptionError('webrtcMode', `webrtcMode must be 0, 1, 2 or 3, got ${String(mode)}`);
  }
  const levelDb = options.minLevelDbfs ?? DEFAULT_MIN_LEVEL_DBFS;
  if (Number.isNaN(levelDb) || levelDb > 0) {
    throw new InvalidOptionError('minLevelDbfs', `minLevelDbfs must be ≤ 0 dBFS, got ${levelDb}`);
  }
  // Mean square in s16 units: full scale (0 dBFS) is a square wave at 32768.
  const floor = S16_SCALE ** 2 * 10 ** (levelDb / 10);
  let scorer: Scorer;
  if (backend === 'webrtc') {
    scorer = FramedScorer.webrtc(await WebrtcVad.create(sampleRate, mode ?? DEFAULT_WEBRTC_MODE), floor);
  } else {
    let silero: SileroVad | null = null;
    try {
      silero = new SileroVad(await loadSilero(options.loadOnnxRuntime), sampleRate);
    } catch (error) {
      const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
      const notice = options.onNotice ?? ((m: string) => console.warn(m));
      notice(`voicewire: Silero VAD unavailable (${reason}); using the WebRTC VAD (wasm)`);
    }
    if (silero === null) {
      backend = 'webrtc';
      scorer = FramedScorer.webrtc(await WebrtcVad.create(sampleRate, mode ?? DEFAULT_WEBRTC_MODE), floor);
    } else if (backend === 'gated') {
      scorer = new GatedScorer(
        await WebrtcVad.create(sampleRate, mode ?? DEFAULT_WEBRTC_MODE),
        silero,
        sampleRate,
        floor,
        options.modelWake ?? null,
        options.modelBatch ?? null,
      );
    } else {
      scorer = FramedScorer.silero(silero, floor);
    }
  }
  let config: HysteresisConfig;
  try {
    config = hysteresisConfig(options, backend, sampleRate);
  } catch (error) {
    scorer.close(); // the wasm instance is not left behind by a bad option
    throw error;
  }
  return new Detector(backend, sampleRate, scorer, config, options.probabilities === true);
}

function hysteresisConfig(options: VadOptions, backend: VadBackend, sampleRate: number): HysteresisConfig {
  const webrtc = backend === 'webrtc';
  const start = options.startThreshold ?? (webrtc ? DEFAULT_WEBRTC_THRESHOLD : DEFAULT_SILERO_START_THRESHOLD);
  const stop = options.stopThreshold ?? (webrtc ? DEFAULT_WEBRTC_THRESHOLD : Math.min(start, DEFAULT_SILERO_STOP_THRESHOLD));
  const minSpeechMs = options.minSpeechMs ?? (webrtc ? DEFAULT_WEBRTC_MIN_SPEECH_MS : DEFAULT_MIN_SPEECH_MS);
  const minSilenceMs = options.minSilenceMs ?? DEFAULT_MIN_SILENCE_MS;
  for (const [field, v] of [
    ['startThreshold', start],
    ['stopThreshold', stop],
  ] as const) {
    if (!(v >= 0 && v <= 1)) throw new InvalidOptionError(field, `${field} must be within 0..1, got ${v}`);
  }
  if (stop > start) throw new InvalidOptionError('stopThreshold', `stopThreshold (${stop}) must not exceed startThreshold (${start})`);
  for (const [field, v] of [
    ['minSpeechMs', minSpeechMs],
    ['minSilenceMs', minSilenceMs],
  ] as const) {
    if (!(v >= 0 && Number.isFinite(v))) throw new InvalidOptionError(field, `${field} must be a finite number ≥ 0, got ${v}`);
  }
  const toSamples = (ms: number): number => Math.round((ms * sampleRate) / MS_PER_SECOND);
  return {
    startThreshold: start,
    stopThreshold: stop,
    minSpeechSamples: toSamples(minSpeechMs),
    minSilenceSamples: toSamples(minSilenceMs),
  };
}

class Detector implements Vad {
  private readonly hysteresis: Hysteresis;
  private readonly decoded = new Int16Array(DECODE_CHUNK);
  private position = 0;
  private closed = false;

  constructor(
    readonly backend: VadBackend,
    readonly sampleRate: number,
    private readonly scorer: Scorer,
    config: HysteresisConfig,
    private readonly probabilities: boolean,
  ) {
    this.hysteresis = new Hysteresis(config);
  }

  get stats(): { windows: number; modelWindows: number } {
    return { ...this.scorer.stats };
  }

  push(samples: Int16Array | Uint8Array): VadEvent[] {
    const out: VadEvent[] = [];
    if (this.closed) return out;
    if (samples instanceof Int16Array) {
      this.feed(samples, out);
      return out;
    }
    if (this.sampleRate !== MULAW_RATE) {
      throw new InvalidOptionError('samples', `μ-law input is 8 kHz; this detector was created for ${this.sampleRate} Hz L16`);
    }
    for (let i = 0; i < samples.length; i += DECODE_CHUNK) {
      const chunk = samples.subarray(i, Math.min(samples.length, i + DECODE_CHUNK));
      this.feed(mulawDecode(chunk, this.decoded.subarray(0, chunk.length)), out);
    }
    return out;
  }

  /** The events of the push under way (a field, so {@link onWindow} is made once and not per push). */
  private out: VadEvent[] = [];
  private readonly onWindow = (sample: number, samples: number, probability: number): void => {
    if (this.probabilities) this.out.push({ type: 'probability', sample, samples, probability });
    this.hysteresis.window(sample, samples, probability, this.out);
  };

  private feed(pcm: Int16Array, out: VadEvent[]): void {
    this.position += pcm.length;
    this.out = out;
    this.scorer.feed(pcm, this.onWindow);
  }

  flush(): VadEvent[] {
    const out: VadEvent[] = [];
    if (!this.closed) this.hysteresis.flush(out, this.position);
    return out;
  }

  reset(): void {
    this.scorer.reset();
    this.hysteresis.reset();
    this.position = 0;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.scorer.close();
  }
}
