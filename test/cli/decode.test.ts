/** Runs the real CLI (`voicewire decode`) in a child process through tsx. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../../src/cli/decode.js';
import { TTS_STREAM_WITH_TIMESTAMP_PATH } from '../../src/protocol/paths.js';
import { WavDecoder } from '../../src/codec/WavDecoder.js';
import { startLocalService, type LocalService } from '../../src/service/index.js';
import { capture, events, expected, sse } from '../engine/helpers.js';
import { ROOT, runCli, type CliResult } from './cliProcess.js';

const dir = mkdtempSync(join(tmpdir(), 'voicewire-decode-'));

function cli(args: string[], stdin?: Buffer): Promise<CliResult> {
  return runCli(['decode', ...args], stdin === undefined ? {} : { stdin });
}

function readWav(path: string): { samples: number; rate: number | undefined; dataSize: number; errors: string[] } {
  const bytes = readFileSync(path);
  const d = new WavDecoder();
  const r = d.decode(bytes);
  const f = d.flush();
  return {
    samples: r.pcm.reduce((n, b) => n + b.length, 0),
    rate: d.format?.sampleRate,
    dataSize: bytes.readUInt32LE(40),
    errors: [...r.errors, ...f.errors].map((e) => e.code),
  };
}

describe('voicewire decode', () => {
  it('decodes a wav capture: a 16-bit WAV at the native rate, the final words, a one-line summary, exit 0', async () => {
    const out = join(dir, 'ok.wav');
    const words = join(dir, 'ok.json');
    const r = await cli([join(ROOT, 'examples/hello.wav.sse'), '--format', 'wav', '--out', out, '--words', words]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toMatch(/decoded 2\.55 s of wav \(22050 Hz mono\) from 43 events: 7 words/);
    expect(readWav(out)).toEqual({ samples: expected.samples, rate: 22050, dataSize: expected.samples * 2, errors: [] });
    expect(JSON.parse(readFileSync(words, 'utf8'))).toEqual(expected.words);
  });

  it("reads pcm from stdin ('-') with --sample-rate", async () => {
    const out = join(dir, 'pcm.wav');
    const r = await cli(['-', '--format', 'pcm', '--sample-rate', '22050', '--out', out], capture('speech.pcm.sse'));
    expect(r.code).toBe(0);
    expect(readWav(out)).toMatchObject({ samples: expected.samples, rate: 22050 });
  });

  it('bad input: exit 1, the typed error on stderr, and the outputs hold what came before the fault', async () => {
    const evs = events('speech.pcm.sse');
    const input = join(dir, 'bad.sse');
    writeFileSync(input, sse([...evs.slice(0, 20), 'data: {"audio_base64": 12}\n\n', ...evs.slice(20)]));
    const out = join(dir, 'bad.wav');
    const words = join(dir, 'bad.json');
    const r = await cli([input, '--format', 'pcm', '--sample-rate', '22050', '--out', out, '--words', words]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/EVENT_WRONG_TYPE.*event 20.*audio_base64/);
    expect(r.stdout).toMatch(/^partially decoded/);
    const before = evs.slice(0, 20).reduce((n, e) => n + Buffer.from(e.audio_base64, 'base64').length, 0);
    expect(readWav(out)).toMatchObject({ samples: Math.floor(before / 2), rate: 22050, errors: [] });
    const saved = JSON.parse(readFileSync(words, 'utf8')) as Array<{ text: string }>;
    expect(saved.map((w) => w.text)).toEqual(expect.arrayContaining(['Hello', 'from', 'voicewire']));
  });

  it('usage errors exit 2: missing --out (real CLI), and in-process: pcm without --sample-rate, an unknown option, a bad format, no input', async () => {
    const input = join(ROOT, 'examples/hello.wav.sse');
    const r = await cli([input, '--format', 'wav']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--out is required\nusage: voicewire decode/);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      for (const args of [
        [input, '--format', 'pcm', '--out', join(dir, 'x.wav')],
        [input, '--format', 'wav', '--out', join(dir, 'x.wav'), '--bogus'],
        [input, '--format', 'flac', '--out', join(dir, 'x.wav')],
        ['--format', 'wav', '--out', join(dir, 'x.wav')],
        [input, '--format', 'pcm', '--sample-rate', '16k', '--out', join(dir, 'x.wav')],
      ]) {
        stderr.mockClear();
        expect(await run(args), args.join(' ')).toBe(2);
        expect(String(stderr.mock.calls[0]?.[0])).toMatch(/usage: voicewire decode/);
      }
    } finally {
      stderr.mockRestore();
    }
  });

  it('a wav capture declared as mp3 or opus: the typed FORMAT_MISMATCH at byte 0, exit 1, an empty but valid WAV', async () => {
    const input = join(ROOT, 'examples/hello.wav.sse');
    const out = join(dir, 'mismatch.wav');
    const r = await cli([input, '--format', 'mp3', '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /bad input: FORMAT_MISMATCH: Declared format "mp3" but the audio starts with a WAV file \("RIFF"\) \(bytes 52 49 46 46\) \(byte 0, field format\)/,
    );
    expect(r.stdout).toMatch(/^partially decoded 0\.00 s of mp3 \(no audio\)/);
    expect(readWav(out)).toMatchObject({ samples: 0, dataSize: 0, errors: [] });
    // opus in-process: the same check, so the WAV never reaches the Ogg reader
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await run([input, '--format', 'opus', '--out', out])).toBe(1);
      expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toMatch(
        /bad input: FORMAT_MISMATCH: Declared format "opus" but the audio starts with a WAV file/,
      );
    } finally {
      stderr.mockRestore();
      stdout.mockRestore();
    }
    expect(readWav(out)).toMatchObject({ samples: 0, dataSize: 0, errors: [] });
  });

  it('I/O errors exit 3: a missing input, an unwritable output', async () => {
    const missing = await cli([join(dir, 'nope.sse'), '--format', 'wav', '--out', join(dir, 'y.wav')]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/cannot read/);
    const unwritable = await cli([join(ROOT, 'examples/hello.wav.sse'), '--format', 'wav', '--out', join(dir, 'no/such/dir.wav')]);
    expect(unwritable.code).toBe(3);
    expect(unwritable.stderr).toMatch(/cannot write/);
  });

  it("for wav a disagreeing --sample-rate is a warning and the stream's rate wins", async () => {
    const out = join(dir, 'rate.wav');
    const r = await cli([join(ROOT, 'examples/hello.wav.sse'), '--format', 'wav', '--sample-rate', '44100', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: FORMAT_MISMATCH.*44100.*22050/);
    expect(readWav(out).rate).toBe(22050);
  });
});

const HELLO = join(ROOT, 'examples/hello.wav.sse');
const HELLO_TEXT = join(ROOT, 'examples/hello.txt');

describe('voicewire decode without --format: the container is told from the audio', () => {
  let service: LocalService;
  const captures: Record<'opus' | 'mp3', string> = { opus: join(dir, 'said.opus.sse'), mp3: join(dir, 'said.mp3.sse') };
  beforeAll(async () => {
    service = await startLocalService();
    for (const format of ['opus', 'mp3'] as const) {
      const res = await fetch(`${service.baseUrl}${TTS_STREAM_WITH_TIMESTAMP_PATH}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'Told from the bytes.', format }),
      });
      expect(res.status).toBe(200);
      writeFileSync(captures[format], Buffer.from(await res.arrayBuffer()));
    }
  });
  afterAll(async () => {
    await service?.close();
  });

  for (const format of ['wav', 'opus', 'mp3'] as const) {
    it(`${format}: a capture decodes without --format as with --format ${format}: the same WAV, the same words`, async () => {
      const input = format === 'wav' ? HELLO : captures[format];
      const [told, declared] = [join(dir, `told-${format}.wav`), join(dir, `declared-${format}.wav`)];
      const [a, b] = await Promise.all([cli([input, '--out', told]), cli([input, '--format', format, '--out', declared])]);
      expect(a.stderr).toBe('');
      expect(a.code).toBe(0);
      expect(b.code).toBe(0);
      expect(a.stdout).toMatch(new RegExp(`^decoded \\d+\\.\\d\\d s of ${format} \\(`));
      expect(a.stdout.replace(told, '')).toBe(b.stdout.replace(declared, ''));
      expect(readFileSync(told).equals(readFileSync(declared))).toBe(true);
      expect(readWav(told).samples).toBeGreaterThan(0);
    });
  }

  it('raw pcm (no signature): a usage error asking for --format pcm (exit 2); --sample-rate alone decodes it as pcm', async () => {
    const pcm = capture('speech.pcm.sse');
    const bare = await cli(['-', '--out', join(dir, 'bare.wav')], pcm);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe('');
    expect(bare.stderr).toBe(
      'voicewire decode: cannot tell the format: the audio starts with no known signature (raw pcm has none); ' +
        'give --format pcm --sample-rate <hz>, or --format\n',
    );
    const rated = await cli(['-', '--sample-rate', '22050', '--out', join(dir, 'rated.wav')], pcm);
    expect(rated.code).toBe(0);
    expect(rated.stdout).toMatch(/^decoded 2\.55 s of pcm \(22050 Hz mono\)/);
    expect(readWav(join(dir, 'rated.wav'))).toMatchObject({ samples: expected.samples, rate: 22050 });
  });

  it('a bad first event: exit 1 with its typed error, as with --format', async () => {
    const input = join(dir, 'bad-first.sse');
    writeFileSync(input, 'data: {not json\n\n');
    const r = await cli([input, '--out', join(dir, 'bad-first.wav')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^voicewire decode: bad input: EVENT_INVALID_JSON/);
  });
});

describe('voicewire decode --captions [--text-file]', () => {
  it('examples/hello.txt is the text examples/hello.wav.sse was spoken from', () => {
    expect(readFileSync(HELLO_TEXT, 'utf8').trim()).toBe(expected.chunks.map((c: { text: string }) => c.text).join(' '));
  });

  it('--captions x.srt: the final words as SRT cues; with --text-file, punctuated as the text was written', async () => {
    const [bare, punctuated] = [join(dir, 'bare.srt'), join(dir, 'punctuated.srt')];
    const [a, b] = await Promise.all([
      cli([HELLO, '--out', join(dir, 'cap-a.wav'), '--captions', bare]),
      cli([HELLO, '--out', join(dir, 'cap-b.wav'), '--captions', punctuated, '--text-file', HELLO_TEXT]),
    ]);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    expect(b.stdout).toContain(`7 words → ${join(dir, 'cap-b.wav')}, ${punctuated}`);
    expect(readFileSync(bare, 'utf8')).toBe(
      '1\n00:00:00,000 --> 00:00:01,158\nHello from voicewire\n\n2\n00:00:01,166 --> 00:00:02,544\nWords follow the playhead\n',
    );
    expect(readFileSync(punctuated, 'utf8')).toBe(
      '1\n00:00:00,000 --> 00:00:01,158\nHello from voicewire.\n\n2\n00:00:01,166 --> 00:00:02,544\nWords follow the playhead.\n',
    );
  });

  it('--captions x.vtt with --text-file: WebVTT with word timestamps and the punctuation', async () => {
    const vtt = join(dir, 'hello.vtt');
    const r = await cli([HELLO, '--format', 'wav', '--out', join(dir, 'cap-c.wav'), '--captions', vtt, '--text-file', HELLO_TEXT]);
    expect(r.code).toBe(0);
    const doc = readFileSync(vtt, 'utf8');
    expect(doc).toMatch(/^WEBVTT\n\n00:00:00\.000 --> 00:00:01\.158\nHello <00:00:00\.288>from <00:00:00\.549>voicewire\.\n/);
    expect(doc).toContain('playhead.\n');
  });

  it('flag faults: --text-file without --captions or --captions x.txt is usage (2); a --text-file that cannot be read is I/O (3)', async () => {
    const noCaptions = await cli([HELLO, '--out', join(dir, 'f.wav'), '--text-file', HELLO_TEXT]);
    expect(noCaptions.code).toBe(2);
    expect(noCaptions.stderr).toMatch(
      /^voicewire decode: --text-file is the text of the captions: give --captions too\nusage: voicewire decode/,
    );
    const txt = await cli([HELLO, '--out', join(dir, 'f.wav'), '--captions', join(dir, 'x.txt')]);
    expect(txt.code).toBe(2);
    expect(txt.stderr).toMatch(/--captions needs a \.vtt or \.srt file name/);
    const missing = await cli([HELLO, '--out', join(dir, 'f.wav'), '--captions', join(dir, 'f.vtt'), '--text-file', join(dir, 'nope.txt')]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/^voicewire decode: INPUT_IO: cannot read \S*nope\.txt: ENOENT/);
  });
});
