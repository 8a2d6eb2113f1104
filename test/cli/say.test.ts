import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDecoder } from '../../src/codec/createDecoder.js';
import { sniffContainer } from '../../src/codec/sniff.js';
import { startLocalService, type LocalService } from '../../src/service/index.js';
import { lines } from './cliProcess.js';
import { captionLines, readWavInfo, runSay, spokenWords, vttCueEnds } from './sayHarness.js';

const TEXT = 'Hello world, this is voicewire speaking.';
const dir = mkdtempSync(join(tmpdir(), 'vw-say-'));
let service: LocalService;

beforeAll(async () => {
  service = await startLocalService();
});
afterAll(async () => {
  await service?.close();
});

describe('voicewire say → local service → engine → WAV', () => {
  for (const format of ['opus', 'mp3', 'wav', 'pcm'] as const) {
    it(`${format}: the WAV lasts until the words end, and the captions list every word once, in order`, async () => {
      const out = join(dir, `${format}.wav`);
      const vtt = join(dir, format === 'wav' ? `${format}.srt` : `${format}.vtt`); // both caption kinds
      const r = await runSay([
        TEXT,
        '--format',
        format,
        '--out',
        out,
        '--captions',
        vtt,
        '--base-url',
        service.baseUrl,
        '--api-key',
        service.token,
      ]);
      expect(r.stderr).not.toContain('warning');
      expect(r.code).toBe(0);
      const lines = captionLines(r.stdout);
      expect(lines.map((l) => l.text)).toEqual(spokenWords(TEXT));
      for (let i = 1; i < lines.length; i++) expect(lines[i]!.start).toBeGreaterThanOrEqual(lines[i - 1]!.start);
      const wav = readWavInfo(out);
      expect(wav.riffSizeOk).toBe(true);
      const doc = readFileSync(vtt, 'utf8');
      expect(doc.startsWith(format === 'wav' ? '1\n00:00:' : 'WEBVTT\n\n')).toBe(true);
      const lastEnd = Math.max(...vttCueEnds(doc));
      expect(wav.durationSec).toBeGreaterThanOrEqual(lastEnd - 0.03);
      expect(wav.durationSec - lastEnd).toBeLessThan(0.6);
      expect(r.stderr).toMatch(/s of audio, first audio \d+ ms after the request .*, 6 words, wrote /);
    });
  }

  for (const [ext, format, container] of [
    ['mp3', 'mp3', 'mp3'],
    ['opus', 'opus', 'ogg'],
    ['ogg', 'opus', 'ogg'],
    ['pcm', 'pcm', null],
    ['raw', 'pcm', null],
  ] as const) {
    it(`--out x.${ext} writes the service's own ${format} (requested as ${format}), as long as what was spoken`, async () => {
      const out = join(dir, `encoded.${ext}`);
      const r = await runSay([TEXT, '--out', out, '--base-url', service.baseUrl, '--api-key', service.token]);
      expect(r.code).toBe(0);
      expect(captionLines(r.stdout).map((l) => l.text)).toEqual(spokenWords(TEXT));
      const seconds = Number(/([\d.]+) s of audio/.exec(r.stderr)![1]);
      const bytes = readFileSync(out);
      if (container !== null) expect(sniffContainer(bytes)).toBe(container);
      expect(r.stderr).toContain(
        `wrote ${out} (${format === 'pcm' ? 'raw s16le pcm, 44100 Hz mono' : format === 'opus' ? 'Ogg Opus' : 'mp3'})`,
      );
      const decoder = format === 'pcm' ? createDecoder('pcm', { sampleRate: 44100 }) : createDecoder(format);
      await decoder.ready;
      const decoded = [decoder.decode(bytes), decoder.flush()];
      expect(decoded.flatMap((d) => d.errors)).toEqual([]);
      const samples = decoded.reduce((n, d) => n + d.pcm.reduce((m, b) => m + b.length, 0), 0);
      expect(samples / decoder.format!.sampleRate).toBeCloseTo(seconds, 1);
    });
  }

  it.skipIf(!existsSync('/dev/full'))(
    'an encoded --out whose writes fail (a full disk) is local I/O: exit 3, one line naming the file, no "wrote"',
    async () => {
      const out = join(dir, 'full.mp3');
      symlinkSync('/dev/full', out);
      const r = await runSay([TEXT, '--out', out, '--base-url', service.baseUrl, '--api-key', service.token]);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain(`voicewire say: cannot write ${out}: ENOSPC`);
      expect(lines(r.stderr).filter((l) => l.includes('cannot write'))).toHaveLength(1);
      expect(r.stderr).not.toContain('wrote');
    },
  );

  it('--out with an unknown extension, or a --format the extension contradicts, is a usage error (exit 2) naming the supported ones; no file is made', async () => {
    const flac = await runSay(['hi', '--out', join(dir, 'x.flac')]);
    expect(flac.code).toBe(2);
    expect(flac.stderr).toMatch(
      /^voicewire say: --out must end in \.wav, \.mp3, \.opus, \.ogg, \.pcm or \.raw \(the extension names the format\), got ".*x\.flac"\n/,
    );
    expect(existsSync(join(dir, 'x.flac'))).toBe(false);
    const clash = await runSay(['hi', '--format', 'mp3', '--out', join(dir, 'clash.opus')]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/holds the service's opus, but --format asks for mp3/);
    expect(existsSync(join(dir, 'clash.opus'))).toBe(false);
  });

  it('--captions (.vtt and .srt) show the words as the text wrote them: punctuation and casing', async () => {
    const text = 'Well, hello there! Is this "voicewire"? Yes: it is.';
    const kinds = ['vtt', 'srt'] as const;
    const runs = await Promise.all(
      kinds.map((kind) =>
        runSay([
          text,
          '--out',
          join(dir, `punct-${kind}.wav`),
          '--captions',
          join(dir, `punct.${kind}`),
          '--base-url',
          service.baseUrl,
          '--api-key',
          service.token,
        ]),
      ),
    );
    for (const [i, kind] of kinds.entries()) {
      expect(runs[i]!.code).toBe(0);
      expect(captionLines(runs[i]!.stdout).map((l) => l.text)).toEqual(spokenWords(text)); // the line renderer stays bare
      expect(cueText(readFileSync(join(dir, `punct.${kind}`), 'utf8')), kind).toBe(text);
    }
  });

  it('the embedded default: no base URL starts the local service in-process (text on stdin, default opus)', async () => {
    const out = join(dir, 'embedded.wav');
    const r = await runSay(['--out', out], {}, 'Embedded default works.');
    expect(r.code).toBe(0);
    expect(captionLines(r.stdout).map((l) => l.text)).toEqual(['Embedded', 'default', 'works']);
    expect(readWavInfo(out).sampleRate).toBe(48000); // opus default
  });

  it('an API key without a base URL still uses the local service, and says how to use a real one', async () => {
    const r = await runSay(['Key only.', '--out', join(dir, 'key.wav')], { VOICEWIRE_API_KEY: 'sk-real' });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('VOICEWIRE_BASE_URL');
  });

  it('a stream that breaks midway leaves a complete, valid WAV of what arrived, and exit code 1', async () => {
    const faulty = await startLocalService({ faults: 'cut-after=2' });
    try {
      const out = join(dir, 'cut.wav');
      const long =
        'This is a longer sentence. It goes on for a while, so that the stream is cut before the end. ' +
        'And then some more words follow here.';
      const r = await runSay([
        long,
        '--format',
        'pcm',
        '--latency',
        'balanced',
        '--out',
        out,
        '--base-url',
        faulty.baseUrl,
        '--api-key',
        faulty.token,
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('StreamInterruptedError');
      expect(r.stderr).toContain('is a complete WAV');
      const wav = readWavInfo(out);
      expect(wav.riffSizeOk).toBe(true);
      expect(wav.durationSec).toBeGreaterThan(0);
    } finally {
      await faulty.close();
    }
  });

  it('a stream that breaks midway leaves the --out x.pcm file with the audio of every complete event (what the engine decoded), exit 1', async () => {
    const faulty = await startLocalService({ faults: 'cut-after=2' });
    try {
      const out = join(dir, 'broken.pcm');
      const long =
        'This is a longer sentence. It goes on for a while, so that the stream is cut before the end. ' +
        'And then some more words follow here.';
      const r = await runSay([long, '--latency', 'balanced', '--out', out, '--base-url', faulty.baseUrl, '--api-key', faulty.token]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('StreamInterruptedError');
      expect(r.stderr).toContain(`${out} holds the audio of every complete event that arrived`);
      const seconds = Number(/([\d.]+) s of audio/.exec(r.stderr)![1]);
      expect(seconds).toBeGreaterThan(0);
      expect(readFileSync(out).length / 2 / 44100).toBeCloseTo(seconds, 2);
    } finally {
      await faulty.close();
    }
  });

  it('in a terminal the caption line is redrawn with the word being heard highlighted, punctuated as written', async () => {
    const r = await runSay(
      ['Bright red apples.', '--out', join(dir, 'tty.wav'), '--base-url', service.baseUrl, '--api-key', service.token],
      {},
      undefined,
      { stdoutIsTTY: true },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('\r\x1b[2K\x1b[7mBright\x1b[27m');
    expect(r.stdout).toContain('\x1b[7mapples.\x1b[27m');
    expect(r.stdout.endsWith('Bright red apples.\n')).toBe(true);
  });

  it('a long input shows progress on stderr while writing the WAV', async () => {
    const long =
      'This is a long input with many words in it, so that the audio lasts longer than a few seconds ' +
      'and progress is shown while it is written.';
    const r = await runSay([
      long,
      '--format',
      'pcm',
      '--out',
      join(dir, 'long.wav'),
      '--base-url',
      service.baseUrl,
      '--api-key',
      service.token,
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/progress (25|50|75)%/);
  });

  it('Ctrl-C stops the stream, keeps a valid WAV and exits 130', async () => {
    const out = join(dir, 'interrupted.wav');
    const long = 'Interrupt me please. '.repeat(30);
    const r = await runSay(
      [
        long,
        '--format',
        'pcm',
        '--latency',
        'balanced',
        '--realtime',
        '--out',
        out,
        '--base-url',
        service.baseUrl,
        '--api-key',
        service.token,
      ],
      {},
      undefined,
      { interruptAfterWrites: 1 },
    );
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('interrupted');
    expect(readWavInfo(out).riffSizeOk).toBe(true);
  });

  it('a bad flag is a usage error (exit 2); --help prints the usage', async () => {
    expect((await runSay(['hi', '--format', 'flac'])).code).toBe(2);
    expect((await runSay(['hi', '--captions', 'x.txt'])).code).toBe(2);
    expect((await runSay(['hi', '--bogus'])).code).toBe(2);
    expect((await runSay([], {}, '   ')).code).toBe(2);
    const help = await runSay(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--format opus|mp3|wav|pcm');
  });

  it('a request the validation module refuses is a usage error naming the field (nothing is sent)', async () => {
    const r = await runSay([
      'hi',
      '--format',
      'opus',
      '--sample-rate',
      '44100',
      '--out',
      join(dir, 'bad.wav'),
      '--base-url',
      'http://127.0.0.1:9',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('sample_rate');
  });

  it('a key the service refuses is its error on stderr with exit code 2 (the request must change, not be retried)', async () => {
    const r = await runSay(['hi', '--out', join(dir, 'auth.wav'), '--base-url', service.baseUrl, '--api-key', 'wrong']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/AuthenticationError|PermissionDeniedError/);
  });

  it('an --out or --captions path that cannot be written fails at once with exit 3: no request is sent, nothing claims "wrote"', async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"status":400,"message":"counted"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const missingDir = join(dir, 'no', 'such', 'dir');
      for (const outputs of [
        ['--out', join(missingDir, 'x.wav')],
        ['--out', join(dir, 'fine.wav'), '--captions', join(missingDir, 'x.vtt')],
        ['--captions', join(missingDir, 'x.srt'), '--out', join(dir, 'fine.wav')],
      ]) {
        const started = performance.now();
        const r = await runSay([
          'Hello there, this would take a while to synthesize.',
          ...outputs,
          '--base-url',
          baseUrl,
          '--api-key',
          'k',
        ]);
        expect(r.code, outputs.join(' ')).toBe(3);
        expect(performance.now() - started).toBeLessThan(1000);
        expect(r.stderr).toMatch(/^voicewire say: cannot write \S*no\/such\/dir\/x\.(wav|vtt|srt): .*ENOENT/);
        expect(lines(r.stderr)).toHaveLength(1);
        expect(r.stdout + r.stderr).not.toContain('wrote');
      }
      expect(requests).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

/** The words of every cue of a WebVTT or SRT document, in order, without inline timestamps. */
function cueText(doc: string): string {
  return doc
    .split('\n')
    .filter((l) => l !== '' && l !== 'WEBVTT' && !l.includes('-->') && !/^\d+$/.test(l))
    .map((l) => l.replace(/<[^>]*>/g, ''))
    .join(' ');
}
