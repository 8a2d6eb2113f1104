/**
 * `voicewire serve`: flags, printed lines, a real request against it, clean stop on SIGINT and
 * SIGTERM; from source (tsx) and, when built, from dist/ with plain node (the speech worker must
 * start in both).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run, SERVE_USAGE } from '../../src/cli/serve.js';
import { EXIT_IO, EXIT_OK, EXIT_USAGE } from '../../src/cli/exitCodes.js';
import { TTS_PATH } from '../../src/service/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function io(stop: Promise<unknown>) {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), stopSignal: stop } };
}

async function speakPcm(baseUrl: string, token: string): Promise<number> {
  const res = await fetch(`${baseUrl}${TTS_PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: JSON.stringify({ text: 'Served.', format: 'pcm', sample_rate: 8000 }),
  });
  expect(res.status).toBe(200);
  return (await res.text()).split('\n\n').filter((b) => b !== '').length;
}

describe('voicewire serve (in process)', () => {
  it('prints the address and the given token, serves, and stops when told', async () => {
    let stop!: () => void;
    const t = io(
      new Promise<void>((r) => {
        stop = r;
      }),
    );
    const done = run(['--port', '0', '--token', 'secret-1'], t.io);
    await expect.poll(() => t.out.join(''), { timeout: 10_000 }).toContain('token: secret-1');
    const url = /voicewire local service: (http:\/\/127\.0\.0\.1:\d+)/.exec(t.out.join(''))![1]!;
    expect(await speakPcm(url, 'secret-1')).toBeGreaterThan(0);
    stop();
    expect(await done).toBe(EXIT_OK);
  });

  it('--json prints one line {"baseUrl","token"} with a random token', async () => {
    let stop!: () => void;
    const t = io(
      new Promise<void>((r) => {
        stop = r;
      }),
    );
    const done = run(['--port', '0', '--json', '--pace', 'realtime'], t.io);
    await expect.poll(() => t.out.length, { timeout: 10_000 }).toBe(1);
    const info = JSON.parse(t.out[0]!) as { baseUrl: string; token: string };
    expect(info.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.token).toMatch(/^[0-9a-f]{32}$/);
    stop();
    expect(await done).toBe(EXIT_OK);
  });

  it('bad flags are a usage error', async () => {
    for (const argv of [['--port', 'x'], ['--pace', 'slow'], ['--nope']]) {
      const t = io(Promise.resolve());
      expect(await run(argv, t.io)).toBe(EXIT_USAGE);
      expect(t.err.join('')).toMatch(/voicewire serve/);
    }
    const h = io(Promise.resolve());
    expect(await run(['--help'], h.io)).toBe(EXIT_OK);
    expect(h.out.join('')).toBe(SERVE_USAGE);
  });
});

/** Starts a serve process, reads its --json line. */
function startChild(args: string[]): Promise<{ child: ChildProcess; baseUrl: string; token: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve({ child, ...(JSON.parse(line) as { baseUrl: string; token: string }) });
    });
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
    });
    child.on('exit', (code) => reject(new Error(`serve exited early (${code}): ${err}`)));
  });
}

function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('voicewire serve (child process)', () => {
  it('from source: serves speech and exits 0 on SIGTERM', async () => {
    const entry = "import('./src/cli/main.ts').then(async (m) => { process.exitCode = await m.main(process.argv.slice(1)); })";
    const { child, baseUrl, token } = await startChild(['--import', 'tsx', '-e', entry, 'serve', '--port', '0', '--json']);
    const exited = exitCode(child);
    try {
      expect(await speakPcm(baseUrl, token)).toBeGreaterThan(0);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  const BUILT = existsSync(`${ROOT}dist/cli/serve.js`) && existsSync(`${ROOT}dist/service/speech/espeakWorkerSource.js`);
  if (!BUILT) console.warn('serveCli.test.ts: dist/ has no built service (run `npm run build`), skipping the bin test');
  it.skipIf(!BUILT)('built: `node bin/voicewire.js serve` (plain node, no tsx) serves speech and exits 130 on SIGINT', async () => {
    const { child, baseUrl, token } = await startChild(['bin/voicewire.js', 'serve', '--port', '0', '--json']);
    const exited = exitCode(child);
    try {
      expect(await speakPcm(baseUrl, token)).toBeGreaterThan(0);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(130);
  });
});

describe('voicewire serve: a port in use', () => {
  it('reports it and exits with EXIT_IO', async () => {
    const { startLocalService } = await import('../../src/service/index.js');
    const busy = await startLocalService();
    try {
      const t = io(Promise.resolve());
      expect(await run(['--port', String(busy.port)], t.io)).toBe(EXIT_IO);
      expect(t.err.join('')).toMatch(/cannot start: .*EADDRINUSE/);
    } finally {
      await busy.close();
    }
  });
});
