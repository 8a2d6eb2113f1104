/**
 * The dispatcher as a shell sees it (the real CLI in a child process): the version, and where the
 * usage text goes — stdout when asked for (--help, exit 0), stderr on a usage error (exit 2), so a
 * script that captures stdout never takes the usage for output.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from './cliProcess.js';

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('voicewire (the dispatcher)', () => {
  it.each([['--version'], ['-v']])('%s prints the package.json version on stdout, exit 0', async (flag) => {
    const r = await runCli([flag]);
    expect(r).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it('with no command the usage goes to stderr with exit 2, nothing on stdout', async () => {
    const r = await runCli([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^usage: voicewire <command>/);
    expect(r.stderr).toContain("'voicewire --version'");
  });

  it('an unknown command: its name and the usage on stderr, exit 2', async () => {
    const r = await runCli(['sing']);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/^voicewire: unknown command 'sing'\nusage: voicewire <command>/);
  });
});

describe('every command: --help on stdout (exit 0), a usage error on stderr (exit 2)', () => {
  const commands: Array<{ command: string; usage: RegExp; bad: string[]; reason: RegExp }> = [
    { command: '', usage: /^usage: voicewire <command>/, bad: ['--bogus'], reason: /unknown command '--bogus'/ },
    { command: 'say', usage: /^usage: voicewire say /, bad: ['hi', '--bogus'], reason: /^voicewire say: Unknown option '--bogus'/ },
    { command: 'decode', usage: /^usage: voicewire decode /, bad: ['--bogus'], reason: /^voicewire decode: Unknown option '--bogus'/ },
    { command: 'serve', usage: /^usage: voicewire serve /, bad: ['--bogus'], reason: /^voicewire serve: Unknown option '--bogus'/ },
  ];
  for (const { command, usage, bad, reason } of commands) {
    const argv = (rest: string[]): string[] => (command === '' ? rest : [command, ...rest]);
    it(`voicewire ${command || '(top level)'}`, async () => {
      const [help, wrong] = await Promise.all([runCli(argv(['--help'])), runCli(argv(bad))]);
      expect(help).toMatchObject({ code: 0, stderr: '' });
      expect(help.stdout).toMatch(usage);
      expect(wrong).toMatchObject({ code: 2, stdout: '' });
      expect(wrong.stderr).toMatch(reason);
      expect(wrong.stderr).toMatch(new RegExp(usage.source.slice(1), 'm'));
    });
  }
});
