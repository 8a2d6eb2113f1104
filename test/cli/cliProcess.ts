/**
 * Runs the real CLI (`voicewire <command> …`) in a child process from the TypeScript sources, so
 * that exit codes, stderr lines and crashes are seen as a shell sees them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = 'test/fixtures/cli/voicewire.ts';

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit, ms. */
  ms: number;
}

export interface CliOptions {
  /** Added to {@link bareEnv}. */
  env?: NodeJS.ProcessEnv;
  /** Options for node itself, before the entry (e.g. `--jitless`). */
  nodeArgs?: string[];
  /** Written to stdin, which is then ended; with `'keep-open'` the caller writes it. */
  stdin?: Buffer | string | 'keep-open';
}

export interface RunningCli {
  child: ChildProcess;
  /** What it printed so far. */
  stdout(): string;
  stderr(): string;
  done: Promise<CliResult>;
}

/** This machine's environment without anything that points voicewire elsewhere. */
export function bareEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of [
    'VOICEWIRE_PLAYER',
    'VOICEWIRE_PLAYER_LATENCY_MS',
    'VOICEWIRE_PLAYER_READY',
    'PULSE_SERVER',
    'VOICEWIRE_BASE_URL',
    'VOICEWIRE_API_KEY',
  ])
    delete env[k];
  return env;
}

export function startCli(args: string[], options: CliOptions = {}): RunningCli {
  const started = performance.now();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', 'tsx', ENTRY, ...args], {
    cwd: ROOT,
    env: { ...bareEnv(), ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  if (options.stdin !== 'keep-open') child.stdin!.end(options.stdin ?? '');
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout: out, stderr: err, ms: performance.now() - started })),
  );
  return { child, stdout: () => out, stderr: () => err, done };
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).done;
}

/** stderr split in lines, without the empty last one. */
export function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}

/** Lines of a JavaScript stack trace (`    at fn (file:line)`). */
export function stackLines(text: string): string[] {
  return lines(text).filter((l) => /^\s+at /.test(l));
}
