/**
 * The wasm SIMD block decoder behind {@link StrictBase64Decoder}'s hot loop (see
 * wasm/base64simd.wat). JS table decoding runs at about 1 byte/ns; Node's native base64 needs a
 * string (an 8 KiB heap string per event); this decodes 16 characters per step from bytes, with
 * the same strict alphabet, and allocates nothing but two typed-array views per call.
 * Where WebAssembly SIMD is missing, {@link decodeBlocksSimd} is null and the JS loop does it all.
 */
import { instantiateInlineWasm } from '../internal/wasm.js';
import { BASE64_SIMD_WASM } from './wasm/base64simd.js';

/** Characters per wasm call: input at 0, output (12/16 of it, + 4 bytes of slack) after it. */
const PIECE_CHARS = 32768;
const OUT_OFFSET = PIECE_CHARS;
/** Base64 characters the wasm decodes per SIMD step, and the bytes they decode to. */
export const SIMD_BLOCK_CHARS = 16;
export const SIMD_BLOCK_BYTES = 12;

type DecodeFn = (src: number, len: number, dst: number) => number;

/** The instance's memory (growing it detaches its buffer: `mem` is then replaced). */
interface WasmMemory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}

interface Loaded {
  mem: Uint8Array;
  fn: DecodeFn;
  scan: DecodeFn;
  lineEnd: (src: number, len: number) => number;
  memory: WasmMemory;
}

function load(): Loaded | null {
  const exports = instantiateInlineWasm(BASE64_SIMD_WASM);
  if (exports === null) return null;
  const memory = exports['memory'] as WasmMemory;
  return {
    mem: new Uint8Array(memory.buffer),
    fn: exports['decode'] as DecodeFn,
    scan: exports['scan'] as DecodeFn,
    lineEnd: exports['lineEnd'] as (src: number, len: number) => number,
    memory,
  };
}

const wasm = load();

function decodeBlocks(src: Uint8Array, a: number, b: number, dst: Uint8Array, o: number, maxOut: number): number {
  const { mem, fn } = wasm!;
  let i = a;
  for (;;) {
    let n = Math.min(b - i, PIECE_CHARS, Math.floor(maxOut / SIMD_BLOCK_BYTES) * SIMD_BLOCK_CHARS);
    n -= n % SIMD_BLOCK_CHARS;
    if (n < SIMD_BLOCK_CHARS) break;
    // Plain Uint8Array views: Buffer#subarray (a FastBuffer) costs several times more.
    mem.set(new Uint8Array(src.buffer, src.byteOffset + i, n), 0);
    const c = fn(0, n, OUT_OFFSET);
    const out = (c / SIMD_BLOCK_CHARS) * SIMD_BLOCK_BYTES;
    dst.set(mem.subarray(OUT_OFFSET, OUT_OFFSET + out), o);
    i += c;
    o += out;
    maxOut -= out;
    if (c < n) break;
  }
  return i - a;
}

/**
 * Decodes whole 16-character blocks of strict base64 from src[a..b) into dst at o (at most
 * maxOut bytes, 12 per block); stops before a block holding anything else. Returns the characters
 * consumed; the bytes written are consumed / 16 * 12. Null when wasm SIMD is unavailable.
 */
export const decodeBlocksSimd: typeof decodeBlocks | null = wasm === null ? null : decodeBlocks;

/** Bytes of one wasm page. */
export const WASM_PAGE_BYTES = 65536;

/**
 * The streaming scan (wasm `scan`, see base64simd.wat) for {@link Base64Stage}: memory offsets in,
 * `-(1 + index)` of the first non-alphabet character or the characters decoded out. Null without
 * wasm SIMD.
 */
export const scanBlocksSimd: DecodeFn | null = wasm === null ? null : wasm.scan;

/**
 * wasm `lineEnd` for {@link Base64Stage}'s tail reads: the index of the first LF or CR in the
 * `len` bytes at memory offset `src`, else `len` (reads up to 15 bytes past them). Null without
 * wasm SIMD.
 */
export const lineEndSimd: ((src: number, len: number) => number) | null = wasm === null ? null : wasm.lineEnd;

/** The wasm memory as bytes (a new view after {@link growSimdMemory}). */
export function simdMemory(): Uint8Array {
  return wasm!.mem;
}

/** Grows the wasm memory by `pages` (views taken before are detached); returns the old size in pages. */
export function growSimdMemory(pages: number): number {
  const w = wasm!;
  const old = w.memory.grow(pages);
  w.mem = new Uint8Array(w.memory.buffer);
  return old;
}
