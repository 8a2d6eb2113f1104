/**
 * `voicewire say` and the speech client: how long until the first audio.
 *
 * - say, embedded default (starts the local service in-process), from the command to the first
 *   audio frame: a cold process (`node bin/voicewire.js say …`, figure = the frame's time since
 *   the process started, as `say` reports it) and warmed (a second `run()` in one process: code
 *   loaded, a fresh service each time).
 * - client time to first audio against a running, warmed local service, per format: response
 *   head, first audio byte, first PCM frame.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run as runSay, type SayIo } from '../src/cli/say.js';
import { createClient } from '../src/client/createClient.js';
import type { AudioFormat } from '../src/codec/types.js';
import { startLocalService } from '../src/service/index.js';
import type { BenchOptions, BenchResult } from './types.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const TEXT = 'Hello there, this is voicewire.';
const FIRST_AUDIO = /first audio (\d+) ms after the request \((\d+) ms after start\)/;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function quietIo(stderr: string[]): SayIo {
  return {
    stdout: { write: () => true, isTTY: false },
    stderr: { write: (s: string) => stderr.push(s), isTTY: false },
    stdin: process.stdin,
    env: { PATH: process.env.PATH },
    onInterrupt: () => () => undefined,
    now: () => performance.now(),
  };
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'vw-say-bench-'));
  try {
    // 1. cold process
    const built = existsSync(join(root, 'dist', 'cli', 'main.js'));
    const cmd = built ? [join(root, 'bin', 'voicewire.js')] : ['--import', 'tsx', join(root, 'test', 'fixtures', 'cli', 'voicewire.ts')];
    const coldRuns = opts.quick ? 1 : 3;
    const cold: number[] = [];
    const coldWall: number[] = [];
    for (let i = 0; i < coldRuns; i++) {
      const t = performance.now();
      const r = spawnSync(process.execPath, [...cmd, 'say', TEXT, '--out', join(dir, `cold${i}.wav`)], {
        cwd: root,
        encoding: 'utf8',
        env: { PATH: process.env.PATH },
        timeout: 60_000,
      });
      coldWall.push(performance.now() - t);
      const m = FIRST_AUDIO.exec(r.stderr);
      if (r.status !== 0 || !m) throw new Error(`say failed (${r.status}): ${r.stderr}`);
      cold.push(Number(m[2]));
    }
    results.push({
      scenario: `say, embedded default / cold process${built ? '' : ' (tsx, no dist)'} / one sentence, opus`,
      figures: {
        'first audio frame ms (from process start)': Math.round(median(cold)),
        'command total ms': Math.round(median(coldWall)),
        runs: coldRuns,
      },
      command: `node bin/voicewire.js say "${TEXT}" --out /tmp/x.wav   # stderr reports "first audio … (N ms after start)"`,
    });

    // 2. warmed: run() again in this process (code loaded; each run starts its own service)
    const warmRuns = opts.quick ? 1 : 3;
    const warm: number[] = [];
    const warmRequest: number[] = [];
    await runSay([TEXT, '--out', join(dir, 'warmup.wav')], quietIo([]));
    for (let i = 0; i < warmRuns; i++) {
      const stderr: string[] = [];
      const t = performance.now();
      const code = await runSay([TEXT, '--out', join(dir, `warm${i}.wav`)], quietIo(stderr));
      const m = FIRST_AUDIO.exec(stderr.join(''));
      if (code !== 0 || !m) throw new Error(`say failed (${code}): ${stderr.join('')}`);
      warm.push(Number(m[2]) - t);
      warmRequest.push(Number(m[1]));
    }
    results.push({
      scenario: 'say, embedded default / warmed in-process run() / one sentence, opus',
      figures: {
        'first audio frame ms (from the command)': Math.round(median(warm)),
        'of which after the request ms': Math.round(median(warmRequest)),
        runs: warmRuns,
      },
      command: 'npm run bench -- say',
      notes: 'includes starting the local service (espeak-ng worker) on every run',
    });

    // 3. the client against a running, warmed local service
    const service = await startLocalService();
    try {
      const client = createClient({ baseUrl: service.baseUrl, apiKey: service.token });
      const iterations = opts.quick ? 2 : 20;
      const formats: AudioFormat[] = opts.quick ? ['opus', 'pcm'] : ['opus', 'pcm', 'mp3', 'wav'];
      for (const format of formats) {
        const head: number[] = [];
        const audio: number[] = [];
        const frame: number[] = [];
        for (let i = -1; i < iterations; i++) {
          const { stream, metrics } = await client.tts.streamWithTimestamps({ text: 'Hello there.', format });
          for await (const _ of stream) void _;
          if (i < 0) continue; // warm-up
          head.push(metrics.headMs);
          audio.push(metrics.firstAudioByteMs ?? NaN);
          frame.push(metrics.firstFrameMs ?? NaN);
        }
        const ttfa = median(frame);
        results.push({
          scenario: `client → running local service / "Hello there." / ${format}`,
          figures: {
            'head ms': Number(median(head).toFixed(1)),
            'first audio byte ms': Number(median(audio).toFixed(1)),
            'first PCM frame ms': Number(ttfa.toFixed(1)),
            iterations,
          },
          target: '≤ 150 ms to first audio (issue 4, warmed service)',
          met: ttfa <= 150,
          command: 'npm run bench -- say',
        });
      }
    } finally {
      await service.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
