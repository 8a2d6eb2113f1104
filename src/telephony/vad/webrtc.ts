/**
 * The WebRTC VAD (libfvad compiled to wasm, @echogarden/fvad-wasm): a Gaussian-mixture model on
 * six band energies, 10 ms frames, answers 0 or 1. The wasm module is loaded once per process and
 * holds one small instance per detector.
 */
import { CodecError } from '../../errors.js';

/** libfvad accepts 10, 20 or 30 ms frames; 10 ms gives the finest onset. */
export const WEBRTC_FRAME_MS = 10;
const MS_PER_SECOND = 1000;
const S16_BYTES = 2;

interface FvadModule {
  _fvad_new(): number;
  _fvad_free(inst: number): void;
  _fvad_reset(inst: number): void;
  _fvad_set_mode(inst: number, mode: number): number;
  _fvad_set_sample_rate(inst: number, rate: number): number;
  _fvad_process(inst: number, frame: number, length: number): number;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  HEAP16: Int16Array;
}

let loading: Promise<FvadModule> | null = null;

function loadFvad(): Promise<FvadModule> {
  loading ??= import('@echogarden/fvad-wasm').then((m) => (m.default as () => Promise<FvadModule>)());
  return loading;
}

export class WebrtcVad {
  /** Frame length in input samples. */
  readonly frameSamples: number;
  private inst: number;
  private readonly ptr: number;

  private constructor(
    private readonly m: FvadModule,
    private readonly sampleRate: number,
    private readonly mode: number,
  ) {
    this.frameSamples = (sampleRate * WEBRTC_FRAME_MS) / MS_PER_SECOND;
    this.inst = m._fvad_new();
    this.configure();
    this.ptr = m._malloc(this.frameSamples * S16_BYTES);
  }

  private configure(): void {
    const m = this.m;
    if (this.inst === 0 || m._fvad_set_mode(this.inst, this.mode) !== 0 || m._fvad_set_sample_rate(this.inst, this.sampleRate) !== 0) {
      throw new CodecError('CODEC_UNAVAILABLE', `WebRTC VAD rejected mode ${this.mode} at ${this.sampleRate} Hz`);
    }
  }

  static async create(sampleRate: number, mode: number): Promise<WebrtcVad> {
    return new WebrtcVad(await loadFvad(), sampleRate, mode);
  }

  /** 1 for voice, 0 for none; `frame` holds exactly {@link frameSamples} samples. */
  process(frame: Int16Array): number {
    const m = this.m;
    m.HEAP16.set(frame, this.ptr / S16_BYTES);
    return m._fvad_process(this.inst, this.ptr, this.frameSamples) === 1 ? 1 : 0;
  }

  /** libfvad's reset also restores the default mode and rate, so both are set again. */
  reset(): void {
    if (this.inst === 0) return;
    this.m._fvad_reset(this.inst);
    this.configure();
  }

  close(): void {
    if (this.inst === 0) return;
    this.m._fvad_free(this.inst);
    this.m._free(this.ptr);
    this.inst = 0;
  }
}
