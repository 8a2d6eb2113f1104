import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

describe('LocalService.close()', () => {
  it("settles and lets the process exit, also when no request was served (idle, unref'd workers)", async () => {
    // In a child process: a close() that never settles would leave the loop empty and exit 13.
    const script = 'test/fixtures/service/startClose.ts';
    const { stdout } = await run(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, timeout: 20_000 });
    expect(stdout.trim()).toBe('closed 3 times');
  });
});
