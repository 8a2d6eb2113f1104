/**
 * `voicewire latency` in-process against the real local service: the table, the files, captures
 * that `decode` replays, progress, SIGINT, and one clear line with the right exit code for bad
 * input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run as decode } from '../../src/cli/decode.js';
import { run, type LatencyIo } from '../../src/cli/latency.js';
import { parseLatencyArgs } from '../../src/cli/latencyArgs.js';
import type { LatencyRun } from '../../src/latency/index.js';
import { startLocalService, type LocalService } from '../../src/service/index.js';

const TEXT = 'Hello there, this is a latency test.';
const dir = mkdtempSync(join(tmpdir(), 'vw-latency-'));
let svc: LocalService;
let cutting: LocalService;

beforeAll(async () => {
  [svc, cutting] = await Promise.all([startLocalService(), startLocalService({ faults: 'cut-after=2' })]);
});
afterAll(async () => {
  await Promise.all([svc?.close(), cutting?.close()]);
});

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

async function latency(
  argv: string[],
  opts: { env?: NodeJS.ProcessEnv; stderrIsTTY?: boolean; interruptAfterStderrWrites?: number } = {},
): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  let interrupt: (() => void) | null = null;
  const io: LatencyIo = {
    stdout: { write: (s: string) => out.push(s), isTTY: false },
    stderr: {
      write: (s: string) => {
        err.push(s);
        if (err.length === opts.interruptAfterStderrWrites) interrupt?.();
        return true;
      },
      isTTY: opts.stderrIsTTY ?? false,
    },
    env: { ...opts.env },
    onInterrupt: (fn) => {
      interrupt = fn;
      return () => (interrupt = null);
    },
    now: () => performance.now(),
  };
  const code = await run(argv, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

const local = (): string[] => ['--base-url', svc.baseUrl, '--api-key', svc.token];

async function deadUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('voicewire latency', () => {
  it('measures the embedded local service: table on stdout, JSON, CSV, and captures decode replays', async () => {
    const json = join(dir, 'run.json');
    const csv = join(dir, 'run.csv');
    const rec = join(dir, 'captures');
    const html = join(dir, 'report.html');
    const r = await latency([
      '--text',
      TEXT,
      '--runs',
      '2',
      '--warmup',
      '0',
      '--format',
      'wav',
      '--json',
      json,
      '--csv',
      csv,
      '--record',
      rec,
      '--html',
      html,
    ]);
    expect(r.stderr).not.toMatch(/failed/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^2 requests, wav, concurrency 1/);
    expect(r.stdout).toMatch(/local: 2\/2 ok/);
    expect(r.stdout).toMatch(/first audio byte +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +2\n/);
    expect(r.stdout).toMatch(/100 ms buffer +\d\/2/);
    const parsed = JSON.parse(readFileSync(json, 'utf8')) as LatencyRun;
    expect(parsed.records).toHaveLength(2);
    expect(parsed.settings).toMatchObject({ format: 'wav', runs: 2, local: true, jitterBuffersMs: [0, 100, 200] });
    const page = readFileSync(html, 'utf8');
    expect(page.match(/<svg class="chart ecdf"/g)).toHaveLength(9);
    expect(page.match(/<g class="row"/g)).toHaveLength(2);
    const lines = readFileSync(csv, 'utf8').trim().split('\r\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^seq,contender,round,text,ok,/);
    const captures = readdirSync(rec)
      .filter((f) => f.endsWith('.sse'))
      .sort();
    expect(captures).toEqual(['0000-local-r0-t0.sse', '0001-local-r1-t0.sse']);
    // Each capture has its viewer page beside it.
    expect(
      readdirSync(rec)
        .filter((f) => f.endsWith('.html'))
        .sort(),
    ).toEqual(['0000-local-r0-t0.html', '0001-local-r1-t0.html']);
    expect(readFileSync(join(rec, '0000-local-r0-t0.html'), 'utf8')).toContain('<audio id="audio"');
    expect(parsed.records[0]!.capturePath).toBe(join(rec, captures[0]!));
    const wav = join(dir, 'replay.wav');
    expect(await decode([join(rec, captures[0]!), '--format', 'wav', '--out', wav])).toBe(0);
    const bytes = readFileSync(wav);
    const seconds = (bytes.length - 44) / bytes.readUInt32LE(28);
    expect(seconds).toBeCloseTo(parsed.records[0]!.audioDurationSec!, 2);
  });

  it('compares targets side by side, each with its key from the environment', async () => {
    const r = await latency(
      [
        '--target',
        `one=${svc.baseUrl}`,
        '--target',
        `two=${svc.baseUrl}`,
        '--api-key-env',
        'one=KEY_ONE',
        '--api-key-env',
        'two=KEY_TWO',
        '--text',
        'Hi.',
        '--runs',
        '1',
        '--warmup',
        '0',
        '--format',
        'pcm',
        '--sample-rate',
        '16000',
      ],
      { env: { KEY_ONE: svc.token, KEY_TWO: svc.token } },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/one: 1\/1 ok/);
    expect(r.stdout).toMatch(/two: 1\/1 ok/);
  });

  it('an unreachable URL: one line, exit 1', async () => {
    const url = await deadUrl();
    const r = await latency(['--base-url', url, '--api-key', 'k', '--text', TEXT]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^voicewire latency: cannot reach the service/);
  });

  it('a wrong key: one line naming the status, exit 2', async () => {
    const r = await latency(['--base-url', svc.baseUrl, '--api-key', 'wrong', '--text', TEXT]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/the service refused the request .*: 403 /);
  });

  it('an empty text file is a usage error (2); a missing one an I/O error (3)', async () => {
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '\n  \n');
    const r = await latency([...local(), '--texts', empty]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`voicewire latency: ${empty} holds no text (one text per line)\n`);
    const missing = await latency([...local(), '--texts', join(dir, 'nope.txt')]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/^voicewire latency: cannot read .*nope\.txt/);
  });

  it('a stream cut mid-body is counted by kind in the table, and the run exits 1', async () => {
    const r = await latency(['--base-url', cutting.baseUrl, '--api-key', cutting.token, '--text', TEXT, '--runs', '2', '--warmup', '0']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/0\/2 ok; failed: 2 stream-interrupted/);
    expect(r.stderr).toMatch(/2 requests failed/);
  });

  it('SIGINT prints what was measured so far, writes the JSON, exits 130', async () => {
    const json = join(dir, 'partial.json');
    const r = await latency([...local(), '--text', TEXT, '--runs', '40', '--warmup', '0', '--json', json], {
      interruptAfterStderrWrites: 1,
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/interrupted after \d+ measured requests/);
    const parsed = JSON.parse(readFileSync(json, 'utf8')) as LatencyRun;
    expect(parsed.interrupted).toBe(true);
    expect(parsed.records.length).toBeGreaterThan(0);
    expect(parsed.records.length).toBeLessThan(40);
    expect(r.stdout).toMatch(new RegExp(`^${parsed.records.length} requests`));
  });

  it('progress: a bar redrawn in place on a terminal, plain lines otherwise', async () => {
    const tty = await latency([...local(), '--text', 'Hi.', '--runs', '3', '--warmup', '0'], { stderrIsTTY: true });
    const ESC = String.fromCharCode(27);
    expect(tty.stderr).toMatch(new RegExp(`\\r${ESC}\\[2K\\[#+\\.*\\] \\d\\/3 {2}first audio p50`));
    const plain = await latency([...local(), '--text', 'Hi.', '--runs', '3', '--warmup', '0']);
    expect(plain.stderr).toMatch(/^progress 1\/3 {2}first audio p50 \d+ ms\n/);
    expect(plain.stderr).not.toContain('\r');
  });

  it('--help prints the usage; bad options are usage errors (2) naming the flag', async () => {
    expect((await latency(['--help'])).code).toBe(0);
    for (const [argv, pattern] of [
      [['--text', TEXT, '--runs', '0'], /--runs must be an integer/],
      [['--text', TEXT, '--format', 'flac'], /--format must be one of/],
      [['--text', TEXT, '--target', 'nolabel'], /--target needs LABEL=VALUE/],
      [['--text', TEXT, '--target', `a=${svc.baseUrl}`, '--api-key-env', 'b=X'], /no --target named "b"/],
      [['--runs', '2'], /no text/],
    ] as const) {
      const r = await latency([...argv]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(pattern);
    }
  });
});

describe('parseLatencyArgs', () => {
  it('repeats --model, --text and --jitter-buffer-ms; reads the environment defaults', () => {
    const o = parseLatencyArgs(
      ['--model', 's1', '--model', 's2-pro', '--text', 'a', '--text', 'b', '--jitter-buffer-ms', '0', '--jitter-buffer-ms', '60'],
      { VOICEWIRE_BASE_URL: 'https://x.example', VOICEWIRE_API_KEY: 'k' },
    );
    expect(o).toMatchObject({
      models: ['s1', 's2-pro'],
      texts: ['a', 'b'],
      jitterBuffersMs: [0, 60],
      baseUrl: 'https://x.example',
      apiKey: 'k',
      runs: 10,
      warmup: 1,
      concurrency: 1,
    });
  });
});
