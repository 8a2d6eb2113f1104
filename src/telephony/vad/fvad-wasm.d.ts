/** @echogarden/fvad-wasm ships no types: an Emscripten factory (see webrtc.ts for what is used). */
declare module '@echogarden/fvad-wasm' {
  const factory: () => Promise<unknown>;
  export default factory;
}
