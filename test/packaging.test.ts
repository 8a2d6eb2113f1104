/**
 * Packaging (slow but bounded: ≤ 4 min, mostly `tsc` and `npm install`): the tarball `npm pack`
 * makes installs into a fresh project, `npx voicewire --help` runs, and every subpath
 * export imports.
 *
 * Cache first: the dependencies come from the npm cache where they are there (`--prefer-offline`).
 * Not `--offline`: an `npm install` from a lockfile caches tarballs but not the registry's package
 * documents that resolving the tarball's own ranges needs, so on a fresh machine an offline install
 * fails with ENOTCACHED. Optional native addons are left out (`--omit=optional --ignore-scripts`),
 * so this also shows the package works on the wasm fallbacks alone.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const STEP_TIMEOUT_MS = 150_000;

describe('packaging (slow, bounded)', () => {
  it('npm pack → install into a temp project → npx voicewire --help runs and every subpath export imports', { timeout: 240_000 }, () => {
    const tmp = mkdtempSync(join(tmpdir(), 'vw-pack-'));
    try {
      // Pack a copy of the package, so its build never rewrites the dist/ other tests may be
      // reading. `npm pack` runs `prepare` (the build) first: a tree that does not build fails here.
      const pkg = join(tmp, 'package');
      mkdirSync(pkg);
      for (const entry of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'bin', 'src', 'native-notes']) {
        if (existsSync(join(root, entry))) cpSync(join(root, entry), join(pkg, entry), { recursive: true });
      }
      symlinkSync(join(root, 'node_modules'), join(pkg, 'node_modules'), 'dir');
      const pack = spawnSync(NPM, ['pack', '--pack-destination', tmp, '--json'], { cwd: pkg, encoding: 'utf8', timeout: STEP_TIMEOUT_MS });
      expect(pack.status, `npm pack failed:\n${pack.stderr}\n${pack.stdout}`).toBe(0);
      const [packed] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
      const files = packed!.files.map((f) => f.path);
      expect(files).toContain('bin/voicewire.js');
      expect(files).toContain('dist/cli/main.js');
      expect(files.some((f) => f.startsWith('test/'))).toBe(false);

      const project = join(tmp, 'project');
      mkdirSync(project);
      writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'vw-pack-check', version: '1.0.0', private: true, type: 'module' }));
      const install = spawnSync(NPM, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--omit=optional', join(tmp, packed!.filename)], {
        cwd: project,
        encoding: 'utf8',
        timeout: STEP_TIMEOUT_MS,
      });
      expect(install.status, `npm install failed:\n${install.stderr}`).toBe(0);

      const help = execFileSync('npx', ['--no-install', 'voicewire', '--help'], { cwd: project, encoding: 'utf8', timeout: 30_000 });
      expect(help).toContain('usage: voicewire <command>');
      expect(help).toContain('say');
      const sayHelp = execFileSync('npx', ['--no-install', 'voicewire', 'say', '--help'], { cwd: project, encoding: 'utf8', timeout: 30_000 });
      expect(sayHelp).toContain('--format opus|mp3|wav|pcm');

      const manifest = JSON.parse(readFileSync(join(project, 'node_modules', 'voicewire', 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
      const specifiers = Object.keys(manifest.exports).map((k) => (k === '.' ? 'voicewire' : `voicewire/${k.slice(2)}`));
      expect(specifiers).toContain('voicewire/client');
      const script = specifiers
        .map((s) => (s.endsWith('.json') ? `await import(${JSON.stringify(s)}, { with: { type: 'json' } });` : `await import(${JSON.stringify(s)});`))
        .join('\n');
      const imports = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8', timeout: 60_000 });
      expect(imports.status, `a subpath export failed to import:\n${imports.stderr}`).toBe(0);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
