/**
 * `voicewire serve`: runs the local voice service until SIGTERM (exit 0) or SIGINT (exit 130, as
 * for every command interrupted from the terminal).
 *
 *   voicewire serve [--host H] [--port N] [--token T] [--pace fast|realtime] [--json]
 *                   [--max-connections N] [--headers-timeout MS] [--request-timeout MS] [--write-idle-timeout MS]
 *
 * Pronunciation dictionaries referenced by `{id, version}` are read from
 * `$VOICEWIRE_DICTIONARY_DIR/<id>/<version>.json` when that variable is set.
 */
import { parseArgs } from 'node:util';
import { EXIT_CODES_HELP, EXIT_INTERRUPTED, EXIT_OK, exitCodeFor, UsageError } from './exitCodes.js';

export const SERVE_USAGE = `usage: voicewire serve [--host H] [--port N] [--token T] [--pace fast|realtime] [--json]
                       [--max-connections N] [--headers-timeout MS] [--request-timeout MS] [--write-idle-timeout MS]

  --host H       interface to listen on (default 127.0.0.1)
  --port N       port (default 8787; 0 picks a free one)
  --token T      bearer token clients must send (default: a random one, printed)
  --pace P       fast (default): events as soon as audio is ready;
                 realtime: no faster than real time plus a small lead
  --json         print one line {"baseUrl":…,"token":…} instead of two text lines
  --max-connections N       connections served at once; more get 503 (default 1024)
  --headers-timeout MS      time to send a request's headers (default 10000)
  --request-timeout MS      time to send a whole request (default 30000)
  --write-idle-timeout MS   a stream whose client reads nothing this long is closed (default 30000)

environment: VOICEWIRE_DICTIONARY_DIR  directory of <id>/<version>.json pronunciation dictionaries

Runs until SIGTERM (exit 0) or SIGINT (exit 130). It cannot start: 3 when the port cannot be
bound, 1 when the speech engine fails.

${EXIT_CODES_HELP}`;

export const DEFAULT_SERVE_PORT = 8787;

export interface ServeIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Resolves when the service should stop, with 'SIGINT' when interrupted (default: SIGINT or SIGTERM). */
  stopSignal?: Promise<unknown>;
}

function signalPromise(): { promise: Promise<string>; dispose: () => void } {
  let dispose = (): void => undefined;
  const promise = new Promise<string>((resolve) => {
    const on = (sig: string): void => resolve(sig);
    process.once('SIGINT', on);
    process.once('SIGTERM', on);
    dispose = () => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
    };
  });
  return { promise, dispose };
}

export async function run(
  argv: string[],
  io: ServeIo = {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
  },
): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        token: { type: 'string' },
        pace: { type: 'string' },
        json: { type: 'boolean' },
        'max-connections': { type: 'string' },
        'headers-timeout': { type: 'string' },
        'request-timeout': { type: 'string' },
        'write-idle-timeout': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    return usage(io, new UsageError((err as Error).message), true);
  }
  if (values.help) {
    io.stdout(SERVE_USAGE);
    return EXIT_OK;
  }
  const port = values.port === undefined ? DEFAULT_SERVE_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    return usage(io, new UsageError(`--port must be an integer 0–65535, got ${JSON.stringify(values.port)}`));
  }
  const pace = values.pace ?? 'fast';
  if (pace !== 'fast' && pace !== 'realtime') {
    return usage(io, new UsageError(`--pace is fast or realtime, got ${JSON.stringify(pace)}`));
  }
  if (values.token !== undefined && !/^\S+$/.test(values.token)) {
    return usage(io, new UsageError('--token must be non-empty and without spaces'));
  }

  const limits: Record<string, number> = {};
  const limitFlags = [
    ['max-connections', 'maxConnections'],
    ['headers-timeout', 'headersTimeoutMs'],
    ['request-timeout', 'requestTimeoutMs'],
    ['write-idle-timeout', 'writeIdleTimeoutMs'],
  ] as const;
  for (const [flag, option] of limitFlags) {
    const text = values[flag];
    if (text === undefined) continue;
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n < 1) {
      return usage(io, new UsageError(`--${flag} must be a positive integer, got ${JSON.stringify(text)}`));
    }
    limits[option] = n;
  }

  const signals = io.stopSignal ? null : signalPromise();
  const { startLocalService } = await import('../service/index.js');
  let service;
  try {
    service = await startLocalService({
      host: values.host ?? '127.0.0.1',
      port,
      pace,
      ...limits,
      ...(values.token !== undefined ? { token: values.token } : {}),
      ...(process.env.VOICEWIRE_DICTIONARY_DIR ? { dictionaryDir: process.env.VOICEWIRE_DICTIONARY_DIR } : {}),
    });
  } catch (err) {
    signals?.dispose();
    io.stderr(`voicewire serve: cannot start: ${(err as Error).message}\n`);
    return exitCodeFor(err);
  }
  if (values.json) {
    io.stdout(`${JSON.stringify({ baseUrl: service.baseUrl, token: service.token })}\n`);
  } else {
    io.stdout(`voicewire local service: ${service.baseUrl}\ntoken: ${service.token}\n`);
  }
  const stoppedBy = await (io.stopSignal ?? signals!.promise);
  signals?.dispose();
  await service.close();
  return stoppedBy === 'SIGINT' ? EXIT_INTERRUPTED : EXIT_OK;
}

function usage(io: ServeIo, err: UsageError, withUsage = false): number {
  io.stderr(`voicewire serve: ${err.message}\n${withUsage ? SERVE_USAGE : ''}`);
  return exitCodeFor(err);
}
