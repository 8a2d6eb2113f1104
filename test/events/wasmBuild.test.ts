import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import wabtInit from 'wabt';
import { describe, expect, it } from 'vitest';
import { BASE64_SIMD_WASM } from '../../src/events/wasm/base64simd.js';

const WAT = fileURLToPath(new URL('../../src/events/wasm/base64simd.wat', import.meta.url));

describe('the base64 wasm module', () => {
  it('is the build of base64simd.wat: editing the text without `npm run build:wasm` fails here', async () => {
    const wabt = await wabtInit();
    const mod = wabt.parseWat('base64simd.wat', readFileSync(WAT, 'utf8'), { simd: true });
    try {
      const built = Buffer.from(mod.toBinary({}).buffer);
      expect(built.equals(Buffer.from(BASE64_SIMD_WASM, 'base64'))).toBe(true);
    } finally {
      mod.destroy();
    }
  });
});
