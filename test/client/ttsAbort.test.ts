import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startLocalService, type LocalService } from '../../src/service/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let service: LocalService;
beforeAll(async () => {
  service = await startLocalService();
});
afterAll(async () => {
  await service?.close();
});

describe('aborting a speech stream', () => {
  it('stops reading, ends the pipeline, and the aborted process exits on its own while the service still holds the stream', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/cli/abort-client.ts', service.baseUrl, service.token], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const { code, signal, exitedAt } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; exitedAt: number }>(
      (resolve) => {
        // The service holds the stream for 60 s: a child that waited for it would be killed here.
        const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
        child.on('exit', (c, s) => {
          clearTimeout(guard);
          resolve({ code: c, signal: s, exitedAt: Date.now() });
        });
      },
    );
    expect(err).toBe('');
    expect(signal).toBeNull();
    expect(code).toBe(0);
    const report = JSON.parse(out) as {
      error: string;
      frames: number;
      bytesAtAbort: number;
      bytesLater: number;
      destroyed: boolean;
      endedAt: number;
    };
    expect(report.error).toBe('AbortError');
    expect(report.frames).toBeGreaterThan(0);
    expect(report.destroyed).toBe(true);
    expect(report.bytesAtAbort).toBeGreaterThan(0);
    expect(report.bytesLater).toBe(report.bytesAtAbort);
    // it exited right after its last timer (100 ms), not when the stream would have ended
    expect(exitedAt - report.endedAt).toBeLessThan(3000);
  });
});
