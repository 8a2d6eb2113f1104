/** The few exports of @echogarden/speex-resampler-wasm (an Emscripten module, untyped) we use. */
declare module '@echogarden/speex-resampler-wasm' {
  export interface SpeexResamplerModule {
    HEAPF32: Float32Array;
    HEAP32: Int32Array;
    HEAPU32: Uint32Array;
    _malloc(bytes: number): number;
    _free(ptr: number): void;
    /** (channels, inRate, outRate, quality 0..10, errPtr) → state pointer */
    _speex_resampler_init(channels: number, inRate: number, outRate: number, quality: number, errPtr: number): number;
    _speex_resampler_destroy(state: number): void;
    _speex_resampler_skip_zeros(state: number): number;
    _speex_resampler_reset_mem(state: number): number;
    _speex_resampler_get_input_latency(state: number): number;
    _speex_resampler_get_output_latency(state: number): number;
    /** Lengths are frames per channel, passed by pointer and updated to what was used/produced. */
    _speex_resampler_process_interleaved_float(state: number, inPtr: number, inLenPtr: number, outPtr: number, outLenPtr: number): number;
  }
  const createModule: (moduleArg?: object) => Promise<SpeexResamplerModule>;
  export default createModule;
}

declare module '@echogarden/speex-resampler-wasm/simd' {
  import type { SpeexResamplerModule } from '@echogarden/speex-resampler-wasm';
  const createModule: (moduleArg?: object) => Promise<SpeexResamplerModule>;
  export default createModule;
}
