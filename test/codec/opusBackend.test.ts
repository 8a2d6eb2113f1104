import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createOpusPacketDecoder, defaultOpusBackend } from '../../src/codec/opus/backend.js';
import { OggPageReader } from '../../src/codec/ogg/OggPageReader.js';
import { OggOpusDecoder } from '../../src/codec/OpusDecoder.js';
import { fixture } from './audioFixtures.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function digest(pcm: Int16Array[]): { n: number; sum: number } {
  let n = 0;
  let sum = 0;
  for (const p of pcm) {
    n += p.length;
    for (const v of p) sum = (sum * 31 + v) | 0;
  }
  return { n, sum };
}

describe('Opus backend selection', () => {
  it('uses the native addon when it loads (it is built on this machine)', () => {
    expect(defaultOpusBackend()).toBe('native');
  });

  it('without the native addon it falls back to opusscript with a one-line notice, same samples', () => {
    // A child process in which require('@discordjs/opus') fails, as where it cannot be built.
    const dir = mkdtempSync(join(tmpdir(), 'voicewire-opus-'));
    const block = join(dir, 'block.cjs');
    writeFileSync(
      block,
      `const M = require('module'); const load = M._load;
M._load = function (req, ...rest) {
  if (req === '@discordjs/opus') throw new Error('Cannot find module @discordjs/opus');
  return load.call(this, req, ...rest);
};`,
    );
    const script = join(dir, 'fallback.mts');
    writeFileSync(
      script,
      `import { readFileSync } from 'node:fs';
import { OggOpusDecoder } from '${join(root, 'src/codec/OpusDecoder.ts')}';
import { defaultOpusBackend } from '${join(root, 'src/codec/opus/backend.ts')}';
const r = new OggOpusDecoder().decode(readFileSync('test/fixtures/opus/20ms-pages.opus'));
let n = 0, sum = 0; for (const p of r.pcm) { n += p.length; for (const v of p) sum = (sum * 31 + v) | 0; }
console.log(JSON.stringify({ backend: defaultOpusBackend(), n, sum }));
`,
    );
    let child;
    try {
      child = spawnSync(process.execPath, ['-r', block, '--import', 'tsx', script], { cwd: root, encoding: 'utf8' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(child.status, child.stderr).toBe(0);
    const result = JSON.parse(child.stdout.trim().split('\n').at(-1)!);
    const native = digest(new OggOpusDecoder({ backend: 'native' }).decode(fixture('opus/20ms-pages.opus')).pcm);
    expect(result).toEqual({ backend: 'wasm', ...native });
    const notices = child.stderr.split('\n').filter((l) => l.includes('using opusscript'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/native @discordjs\/opus unavailable .*; using opusscript \(wasm\)/);
  });

  for (const backend of ['native', 'wasm'] as const) {
    it(`${backend}: a packet handed as a plain Uint8Array view inside a larger buffer decodes as the same packet in a Buffer`, () => {
      const packets: Buffer[] = [];
      const reader = new OggPageReader({ onPacketBytes: (bytes, start, end) => packets.push(Buffer.from(bytes.subarray(start, end))) });
      reader.push(fixture('opus/20ms-pages.opus'));
      const audio = packets.slice(2, 40); // after OpusHead and OpusTags
      expect(audio.length).toBe(38);
      const asBuffers = createOpusPacketDecoder(8000, 1, backend);
      const asViews = createOpusPacketDecoder(8000, 1, backend);
      try {
        for (const packet of audio) {
          const arena = new Uint8Array(packet.length + 13).fill(0xa5);
          arena.set(packet, 7);
          const view = new Uint8Array(arena.buffer, 7, packet.length);
          expect(Buffer.isBuffer(view)).toBe(false);
          expect(Array.from(asViews.decode(view))).toEqual(Array.from(asBuffers.decode(packet)));
        }
      } finally {
        asBuffers.free();
        asViews.free();
      }
    });
  }
});
