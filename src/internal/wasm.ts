/**
 * Instantiates one of our small inline wasm modules (SIMD base64, float → s16) synchronously.
 *
 * Returns the instance's exports, or null where WebAssembly or its SIMD instructions are missing
 * (the module fails to compile): each caller then keeps its plain JS path.
 */

/** The bits of the WebAssembly global we use (the project's lib settings do not declare it). */
interface WasmGlobal {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

export function instantiateInlineWasm(base64: string): Record<string, unknown> | null {
  try {
    const wa = (globalThis as unknown as { WebAssembly?: WasmGlobal }).WebAssembly;
    if (wa === undefined) return null;
    return new wa.Instance(new wa.Module(Buffer.from(base64, 'base64')), {}).exports;
  } catch {
    return null;
  }
}
