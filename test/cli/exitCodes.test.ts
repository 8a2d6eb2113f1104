/**
 * The exit-code table of the README, command by command: for each command and each code, one
 * real scenario (the CLI in a child process, against the local service, a loopback server or the
 * file system) that must end with that code, one reason on stderr and no stack trace.
 */
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_FAILED, EXIT_INTERRUPTED, EXIT_IO, EXIT_OK, EXIT_USAGE, exitCodeFor, UsageError } from '../../src/cli/exitCodes.js';
import {
  AbortError,
  ApiConnectionError,
  ApiError,
  CodecError,
  InvalidOptionError,
  RequestValidationError,
  SinkError,
  SpeechEventError,
  StreamInterruptedError,
  VoicewireError,
} from '../../src/errors.js';
import { startLocalService, type LocalService } from '../../src/service/index.js';
import { capture } from '../engine/helpers.js';
import { lines, ROOT, runCli, stackLines, startCli, type CliResult, type RunningCli } from './cliProcess.js';
import { readWavInfo } from './sayHarness.js';

const TABLE = [EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_IO, EXIT_INTERRUPTED];

describe('exitCodeFor: one mapping from an error to a code', () => {
  const cases: Array<[string, unknown, number]> = [
    ['a usage error', new UsageError('--bogus'), EXIT_USAGE],
    ['an invalid option (e.g. a base URL that is not one)', new InvalidOptionError('baseUrl', 'not a URL'), EXIT_USAGE],
    ['a request the client refuses before sending', new RequestValidationError('sample_rate', 'rate', 'bad'), EXIT_USAGE],
    ...[400, 401, 403, 404, 413, 422].map((s): [string, unknown, number] => [`HTTP ${s}`, ApiError.fromStatus(s, 'refused'), EXIT_USAGE]),
    ...[408, 429, 500, 502, 503].map((s): [string, unknown, number] => [
      `HTTP ${s} (try again later)`,
      ApiError.fromStatus(s, 'failed'),
      EXIT_FAILED,
    ]),
    ['an unreachable service', new ApiConnectionError('Could not reach'), EXIT_FAILED],
    ['a stream cut mid-way', new StreamInterruptedError('cut'), EXIT_FAILED],
    ['bad stream input', new SpeechEventError('EVENT_INVALID_JSON', 'bad json'), EXIT_FAILED],
    ['a codec fault', new CodecError('OPUS_DECODE_FAILED', 'bad packet'), EXIT_FAILED],
    ['a file that cannot be written', new SinkError('SINK_IO', 'cannot write'), EXIT_IO],
    ['a file that cannot be read', new VoicewireError('INPUT_IO', 'cannot read'), EXIT_IO],
    ['no sound device', new SinkError('NO_AUDIO_DEVICE', 'none'), EXIT_IO],
    ['a player that failed', new SinkError('PLAYER_FAILED', 'exited with code 1'), EXIT_IO],
    [
      'an OS call that failed (EADDRINUSE)',
      Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', syscall: 'listen' }),
      EXIT_IO,
    ],
    ['an abort', new AbortError(), EXIT_INTERRUPTED],
    ['anything else (a bug)', new TypeError('x is undefined'), EXIT_FAILED],
  ];
  it.each(cases)('%s', (_what, err, code) => {
    expect(exitCodeFor(err)).toBe(code);
  });
});

const dir = mkdtempSync(join(tmpdir(), 'vw-exit-'));
const CAPTURE_WAV = join(ROOT, 'examples', 'hello.wav.sse');
const LONG =
  'This is a longer sentence. It goes on for a while, so that the stream is cut before the end. And then some more words follow here.';

let service: LocalService;
let cutting: LocalService;
let failing: LocalService;
/** A loopback server that takes a speech request and holds it open without answering. */
let holding: { server: Server; url: string; requested: Promise<void> };
/** A port on 127.0.0.1 that nothing listens on. */
let closedPort: number;

beforeAll(async () => {
  [service, cutting, failing] = await Promise.all([
    startLocalService(),
    startLocalService({ faults: 'cut-after=2' }),
    startLocalService({ faults: 'fail=503:10, retry-after=0' }),
  ]);
  let markRequested!: () => void;
  const requested = new Promise<void>((resolve) => (markRequested = resolve));
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    markRequested();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  holding = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requested };
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
});

afterAll(async () => {
  holding?.server.closeAllConnections();
  await Promise.all([
    service?.close(),
    cutting?.close(),
    failing?.close(),
    new Promise((resolve) => (holding ? holding.server.close(resolve) : resolve(undefined))),
  ]);
});

const to = (s: LocalService): string[] => ['--base-url', s.baseUrl, '--api-key', s.token];
const wav = (name: string): string => join(dir, `${name}.wav`);

/** Waits until `ready` holds, then sends SIGINT and returns how the process ended. */
async function interrupt(cli: RunningCli, ready: () => boolean | Promise<unknown>): Promise<CliResult> {
  await expect.poll(ready, { timeout: 20_000, interval: 20 }).toBeTruthy();
  cli.child.kill('SIGINT');
  return cli.done;
}

/** A `serve` child on a free port, once it has printed where it listens. */
function startServe(args: string[] = [], nodeArgs: string[] = []): RunningCli {
  return startCli(['serve', '--port', '0', '--json', ...args], { nodeArgs });
}

interface Scenario {
  command: 'say' | 'decode' | 'serve';
  code: number;
  when: string;
  run(): Promise<CliResult>;
  /** The one line on stderr that says why (for codes other than 0). */
  reason?: RegExp;
  check?(r: CliResult): void;
}

const scenarios: Scenario[] = [
  // say
  {
    command: 'say',
    code: EXIT_OK,
    when: 'the text is spoken into a WAV',
    run: () => runCli(['say', 'Hi there.', '--format', 'pcm', '--sample-rate', '16000', '--out', wav('say-ok'), ...to(service)]),
    check: () => expect(readWavInfo(wav('say-ok')).dataBytes).toBeGreaterThan(0),
  },
  {
    command: 'say',
    code: EXIT_FAILED,
    when: 'the service answers 5xx (every retry)',
    run: () => runCli(['say', 'Hi.', '--out', wav('say-5xx'), ...to(failing)]),
    reason: /InternalServerError: .*HTTP 503/,
  },
  {
    command: 'say',
    code: EXIT_FAILED,
    when: 'the stream is cut mid-way',
    run: () => runCli(['say', LONG, '--format', 'pcm', '--latency', 'balanced', '--out', wav('say-cut'), ...to(cutting)]),
    reason: /StreamInterruptedError/,
  },
  {
    command: 'say',
    code: EXIT_FAILED,
    when: 'the service is unreachable',
    run: () => runCli(['say', 'Hi.', '--out', wav('say-unreachable'), '--base-url', `http://127.0.0.1:${closedPort}`, '--api-key', 'k']),
    reason: /ApiConnectionError: Could not reach/,
  },
  {
    command: 'say',
    code: EXIT_USAGE,
    when: 'a flag is unknown',
    run: () => runCli(['say', 'Hi.', '--bogus']),
    reason: /Unknown option '--bogus'/,
  },
  {
    command: 'say',
    code: EXIT_USAGE,
    when: '--base-url is not a URL (and no file is created)',
    run: () => runCli(['say', 'Hi.', '--out', wav('say-not-a-url'), '--base-url', 'not-a-url']),
    reason: /baseUrl must be an absolute URL, got "not-a-url"/,
    check: () => expect(existsSync(wav('say-not-a-url'))).toBe(false),
  },
  {
    command: 'say',
    code: EXIT_USAGE,
    when: 'the service refuses the request as invalid (422, unknown voice)',
    run: () => runCli(['say', 'Hi.', '--voice', 'nobody', '--out', wav('say-422'), ...to(service)]),
    reason: /UnprocessableEntityError: reference_id: unknown voice "nobody"/,
  },
  {
    command: 'say',
    code: EXIT_USAGE,
    when: 'the service refuses an unauthorised request (401, no key)',
    run: () => runCli(['say', 'Hi.', '--out', wav('say-401'), '--base-url', service.baseUrl]),
    reason: /AuthenticationError: .*HTTP 401/,
  },
  {
    command: 'say',
    code: EXIT_USAGE,
    when: 'the service refuses a wrong key (403)',
    run: () => runCli(['say', 'Hi.', '--out', wav('say-403'), '--base-url', service.baseUrl, '--api-key', 'wrong']),
    reason: /PermissionDeniedError: .*HTTP 403/,
  },
  {
    command: 'say',
    code: EXIT_IO,
    when: '--out is in a directory that does not exist',
    run: () => runCli(['say', 'Hi.', '--out', join(dir, 'missing', 'x.wav'), ...to(service)]),
    reason: /cannot write .*missing\/x\.wav: ENOENT/,
  },
  {
    command: 'say',
    code: EXIT_IO,
    when: 'the player fails',
    run: () =>
      runCli(['say', 'Hi there.', '--play', '--out', wav('say-player'), ...to(service)], { env: { VOICEWIRE_PLAYER: '/bin/false' } }),
    reason: /the player \/bin\/false exited with code 1/,
  },
  {
    command: 'say',
    code: EXIT_INTERRUPTED,
    when: 'SIGINT arrives while the service holds the request',
    run: () =>
      interrupt(startCli(['say', 'Hi.', '--out', wav('say-int'), '--base-url', holding.url, '--api-key', 'k']), () =>
        holding.requested.then(() => true),
      ),
    reason: /^voicewire say: interrupted$/,
    check: () => expect(readWavInfo(wav('say-int')).riffSizeOk).toBe(true),
  },
  // decode
  {
    command: 'decode',
    code: EXIT_OK,
    when: 'a capture decodes',
    run: () => runCli(['decode', CAPTURE_WAV, '--format', 'wav', '--out', wav('decode-ok')]),
  },
  {
    command: 'decode',
    code: EXIT_FAILED,
    when: 'the input is bad',
    run: () => {
      const bad = join(dir, 'bad.sse');
      writeFileSync(bad, 'data: {not json\n\n');
      return runCli(['decode', bad, '--format', 'pcm', '--sample-rate', '16000', '--out', wav('decode-bad')]);
    },
    reason: /bad input: EVENT_INVALID_JSON/,
  },
  {
    command: 'decode',
    code: EXIT_USAGE,
    when: '--out is missing',
    run: () => runCli(['decode', CAPTURE_WAV, '--format', 'wav']),
    reason: /--out is required/,
  },
  {
    command: 'decode',
    code: EXIT_IO,
    when: 'the input file does not exist',
    run: () => runCli(['decode', join(dir, 'nope.sse'), '--format', 'wav', '--out', wav('decode-io')]),
    reason: /cannot read .*nope\.sse/,
  },
  {
    command: 'decode',
    code: EXIT_INTERRUPTED,
    when: 'SIGINT arrives while it reads stdin (and the WAV is still valid)',
    run: () => {
      const out = wav('decode-int');
      const cli = startCli(['decode', '-', '--format', 'pcm', '--sample-rate', '22050', '--out', out], { stdin: 'keep-open' });
      const body = capture('speech.pcm.sse');
      cli.child.stdin!.write(body.subarray(0, body.length >> 1));
      // The header is written at the first decoded frame: by then decoding (and its SIGINT handler) runs.
      return interrupt(cli, () => existsSync(out) && statSync(out).size >= 44);
    },
    reason: /^voicewire decode: interrupted$/,
    check: () => {
      const info = readWavInfo(wav('decode-int'));
      expect(info.riffSizeOk).toBe(true);
      expect(info.dataBytes).toBeGreaterThan(0);
    },
  },
  // serve
  {
    command: 'serve',
    code: EXIT_OK,
    when: 'it is stopped with SIGTERM',
    run: async () => {
      const cli = startServe();
      await expect.poll(() => cli.stdout().includes('\n'), { timeout: 20_000 }).toBe(true);
      cli.child.kill('SIGTERM');
      return cli.done;
    },
  },
  {
    command: 'serve',
    code: EXIT_FAILED,
    when: 'the service cannot start its speech engine (no WebAssembly)',
    run: () => startServe([], ['--jitless']).done,
    reason: /cannot start: WebAssembly is not defined/,
  },
  {
    command: 'serve',
    code: EXIT_USAGE,
    when: '--port is not a number',
    run: () => runCli(['serve', '--port', 'x']),
    reason: /--port must be an integer/,
  },
  {
    command: 'serve',
    code: EXIT_IO,
    when: 'the port is in use',
    run: async () => {
      const busy = createNetServer();
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      try {
        return await runCli(['serve', '--port', String((busy.address() as AddressInfo).port)]);
      } finally {
        await new Promise((resolve) => busy.close(resolve));
      }
    },
    reason: /cannot start: .*EADDRINUSE/,
  },
  {
    command: 'serve',
    code: EXIT_INTERRUPTED,
    when: 'SIGINT arrives',
    run: () => {
      const cli = startServe();
      return interrupt(cli, () => cli.stdout().includes('\n'));
    },
  },
];

describe('every command follows the one exit-code table', () => {
  it('each command has a scenario for every code of the table', () => {
    for (const command of ['say', 'decode', 'serve']) {
      expect(new Set(scenarios.filter((s) => s.command === command).map((s) => s.code)), command).toEqual(new Set(TABLE));
    }
  });

  for (const s of scenarios) {
    it(`${s.command} exits ${s.code} when ${s.when}`, async () => {
      const r = await s.run();
      expect(stackLines(r.stderr)).toEqual([]);
      expect(r.signal).toBeNull();
      expect(r.code, r.stderr).toBe(s.code);
      if (s.reason)
        expect(
          lines(r.stderr).filter((l) => s.reason!.test(l)),
          r.stderr,
        ).toHaveLength(1);
      s.check?.(r);
    }, 30_000);
  }
});
