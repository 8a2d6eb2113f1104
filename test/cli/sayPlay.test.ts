import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService, type LocalService } from '../../src/service/index.js';
import { detectAudioOutput } from '../../src/sinks/audioOutput.js';
import { bareEnv, lines, ROOT, runCli, stackLines } from './cliProcess.js';
import { captionLines, readWavInfo, runSay, spokenWords } from './sayHarness.js';

const standIn = join(ROOT, 'test', 'fixtures', 'player', 'realtime-player.mjs');
/** Captions paced in real time cover at least this share of the gap between their words' start times. */
const PACED_SHARE_OF_WORDS_GAP = 0.5;
let service: LocalService;
beforeAll(async () => {
  service = await startLocalService();
});
afterAll(async () => {
  await service?.close();
});

describe('voicewire say --play', () => {
  const hasDevice = detectAudioOutput({ env: bareEnv() }).ok;

  it.skipIf(hasDevice)('with no sound card exits non-zero with a one-line message, not by a signal', async () => {
    const { code, signal, stdout: out, stderr: err } = await runCli(['say', 'Hello there.', '--play']);
    expect(signal).toBeNull();
    expect(code).toBe(3);
    expect(out).toBe('');
    expect(lines(err)).toHaveLength(1);
    expect(lines(err)[0]).toMatch(/^voicewire say: cannot play: no sound device .*--out file\.wav/);
  });

  it('captions follow what a real-time player has consumed, not the bytes written to it', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'vw-play-')), 'player.jsonl');
    const BUFFER_MS = 120;
    const text = 'One two three four five.';
    const r = await runSay(
      [text, '--play', '--format', 'pcm', '--sample-rate', '16000', '--base-url', service.baseUrl, '--api-key', service.token],
      {
        VOICEWIRE_PLAYER: `${process.execPath} ${standIn}`,
        VOICEWIRE_PLAYER_LATENCY_MS: String(BUFFER_MS),
        VOICEWIRE_PLAYER_READY: 'ready',
        FAKE_PLAYER_BUFFER_MS: String(BUFFER_MS),
        FAKE_PLAYER_LOG: log,
      },
    );
    expect(r.stderr).not.toContain('warning');
    expect(r.code).toBe(0);
    const lines = captionLines(r.stdout);
    expect(lines.map((l) => l.text)).toEqual(spokenWords(text));
    const blocks = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { sample: number; heardAt: number });
    const RATE = 16000;
    /** Wall time at which the player played sample `s`. */
    const heardAt = (s: number): number => {
      let b = blocks[0]!;
      for (const x of blocks) if (x.sample <= s) b = x;
      return b.heardAt + ((s - b.sample) / RATE) * 1000;
    };
    const printed = r.stdoutTimes.filter((t) => t.text.trim() !== '');
    expect(printed).toHaveLength(lines.length);
    lines.forEach((line, i) => {
      const shownAt = printed[i]!.at;
      const soundAt = heardAt(Math.round(line.start * RATE));
      // never before the sound (2-decimal rounding and timer jitter aside) …
      expect(shownAt).toBeGreaterThanOrEqual(soundAt - 60);
      // … and close behind it
      expect(shownAt - soundAt).toBeLessThan(150);
    });
    // and the captions took real time: the last word came well after the first
    expect(printed.at(-1)!.at - printed[0]!.at).toBeGreaterThan((lines.at(-1)!.start - lines[0]!.start) * 1000 - 100);
  });
});

describe('voicewire say with neither --out nor --play', () => {
  it('without a sound device paces the captions in real time and hints at --out', async () => {
    const env = { ...bareEnv(), PATH: process.env.PATH };
    if (detectAudioOutput({ env }).ok) return; // this machine has a device: covered by the next test
    const r = await runSay(
      ['One two three.', '--format', 'pcm', '--sample-rate', '16000', '--base-url', service.baseUrl, '--api-key', service.token],
      env,
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/no (sound device|player) .*: showing the captions in real time; use --out file\.wav/);
    const lines = captionLines(r.stdout);
    expect(lines.map((l) => l.text)).toEqual(['One', 'two', 'three']);
    const printed = r.stdoutTimes;
    // real time: the captions are spread over the gap between their words, not printed at once
    // (a dump prints all three within a few ms). The first caption can itself be late by the
    // child's start-up on a loaded machine, which shortens the printed gap, so the bound is half
    // of the words' gap rather than the whole of it (it failed at 334.7 > 340 under a load of 15).
    const wordsGapMs = (lines.at(-1)!.start - lines[0]!.start) * 1000;
    expect(printed.at(-1)!.at - printed[0]!.at).toBeGreaterThan(wordsGapMs * PACED_SHARE_OF_WORDS_GAP);
  });

  it('with a sound device it plays (here: the player named by VOICEWIRE_PLAYER)', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'vw-play-')), 'player.jsonl');
    const r = await runSay(['Play me.', '--format', 'wav', '--base-url', service.baseUrl, '--api-key', service.token], {
      VOICEWIRE_PLAYER: `${process.execPath} ${standIn}`,
      VOICEWIRE_PLAYER_READY: 'ready',
      FAKE_PLAYER_LOG: log,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('showing the captions in real time');
    expect(captionLines(r.stdout).map((l) => l.text)).toEqual(['Play', 'me']);
    expect(readFileSync(log, 'utf8').trim().split('\n').length).toBeGreaterThan(0);
  });
});

describe('voicewire say --play with a player that fails (real child processes)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vw-fails-'));
  /** Bytes the partway player reads before it fails: 0.5 s of 16 kHz mono s16le. */
  const READ_BEFORE_FAILING = 16000;
  const partway = join(dir, 'partway-player.sh');
  writeFileSync(partway, `#!/bin/sh\n# takes a little audio, then fails\nhead -c ${READ_BEFORE_FAILING} > /dev/null\nexit 4\n`, {
    mode: 0o755,
  });
  const missing = join(dir, 'no-such-player');
  const TEXT = 'This sentence is long enough that the player has to take several seconds of audio from it.';
  const cases = [
    {
      what: 'exits at once (/bin/false)',
      player: '/bin/false',
      line: /^voicewire say: the player \/bin\/false exited with code 1$/,
      minBytes: 1,
    },
    {
      what: 'does not exist',
      player: missing,
      line: /^voicewire say: could not start the player \S*no-such-player: .*ENOENT$/,
      minBytes: 1,
    },
    {
      what: 'exits non-zero partway',
      player: partway,
      line: /^voicewire say: the player \S*partway-player\.sh exited with code 4$/,
      minBytes: READ_BEFORE_FAILING,
    },
  ];
  for (const c of cases) {
    it(`a player that ${c.what}: one line naming it and its status, exit 3, no stack, a valid WAV of the audio received`, async () => {
      const out = join(dir, `out-${cases.indexOf(c)}.wav`);
      const r = await runCli(
        [
          'say',
          TEXT,
          '--play',
          '--format',
          'pcm',
          '--sample-rate',
          '16000',
          '--out',
          out,
          '--base-url',
          service.baseUrl,
          '--api-key',
          service.token,
        ],
        {
          env: { VOICEWIRE_PLAYER: c.player },
        },
      );
      expect(r.stderr).not.toContain('Unhandled');
      expect(stackLines(r.stderr)).toEqual([]);
      expect(r.signal).toBeNull();
      expect(r.code).toBe(3);
      const naming = lines(r.stderr).filter((l) => l.includes('player'));
      expect(naming).toHaveLength(1);
      expect(naming[0]).toMatch(c.line);
      // The WAV is whole: its header's sizes agree with the file, and it holds all that arrived.
      const wav = readWavInfo(out);
      expect(wav.riffSizeOk).toBe(true);
      expect(statSync(out).size).toBe(44 + wav.dataBytes);
      expect(wav.dataBytes).toBeGreaterThanOrEqual(c.minBytes);
      const received = Number(/voicewire say: (\d+\.\d\d) s of audio/.exec(r.stderr)?.[1]);
      expect(wav.durationSec).toBeCloseTo(received, 2);
    }, 30_000);
  }
});
