import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/exitCodes.js';
import { parseSayArgs } from '../../src/cli/sayArgs.js';

describe('say arguments', () => {
  it('defaults: opus, text from the words given, no base URL means the embedded service', () => {
    const o = parseSayArgs(['Hello', 'there'], {});
    expect(o).toMatchObject({ text: 'Hello there', format: 'opus', baseUrl: undefined, apiKey: undefined, play: false, realtime: false });
  });

  it('no text, or "-", reads stdin', () => {
    expect(parseSayArgs([], {}).text).toBeNull();
    expect(parseSayArgs(['-'], {}).text).toBeNull();
  });

  it('every flag is taken', () => {
    const o = parseSayArgs(
      [
        'hi',
        '--format',
        'mp3',
        '--sample-rate',
        '24000',
        '--voice',
        'v1',
        '--model',
        's1',
        '--latency',
        'low',
        '--out',
        'a.wav',
        '--captions',
        'a.SRT',
        '--play',
        '--realtime',
        '--base-url',
        'http://x',
        '--api-key',
        'k',
      ],
      {},
    );
    expect(o).toMatchObject({
      format: 'mp3',
      sampleRate: 24000,
      voice: 'v1',
      model: 's1',
      latency: 'low',
      out: { path: 'a.wav', encoded: false },
      captions: { path: 'a.SRT', kind: 'srt' },
      play: true,
      realtime: true,
      baseUrl: 'http://x',
      apiKey: 'k',
    });
  });

  it('flags win over VOICEWIRE_BASE_URL / VOICEWIRE_API_KEY; empty values count as unset', () => {
    expect(parseSayArgs(['hi'], { VOICEWIRE_BASE_URL: 'http://env', VOICEWIRE_API_KEY: 'ek' })).toMatchObject({
      baseUrl: 'http://env',
      apiKey: 'ek',
    });
    expect(parseSayArgs(['hi', '--base-url', 'http://flag'], { VOICEWIRE_BASE_URL: 'http://env' }).baseUrl).toBe('http://flag');
    expect(parseSayArgs(['hi'], { VOICEWIRE_BASE_URL: '' }).baseUrl).toBeUndefined();
  });

  it("--out's extension names the wire format: .mp3/.opus/.ogg/.pcm/.raw (any case) are written as sent, .wav is decoded", () => {
    const cases = [
      ['x.mp3', 'mp3', true],
      ['x.OPUS', 'opus', true],
      ['x.ogg', 'opus', true],
      ['x.pcm', 'pcm', true],
      ['x.raw', 'pcm', true],
      ['x.wav', 'opus', false],
    ] as const;
    for (const [path, format, encoded] of cases) {
      expect(parseSayArgs(['hi', '--out', path], {}), path).toMatchObject({ format, out: { path, encoded } });
    }
    expect(parseSayArgs(['hi', '--out', 'x.wav', '--format', 'mp3'], {})).toMatchObject({ format: 'mp3', out: { encoded: false } });
    expect(parseSayArgs(['hi', '--out', 'x.mp3', '--format', 'mp3'], {})).toMatchObject({ format: 'mp3', out: { encoded: true } });
  });

  it('bad values are usage errors naming the flag', () => {
    for (const [argv, flag] of [
      [['--format', 'flac'], '--format'],
      [['--sample-rate', '44.1'], '--sample-rate'],
      [['--latency', 'fastest'], '--latency'],
      [['--captions', 'x.txt'], '--captions'],
      [['--unknown'], 'unknown'],
      [['--out', 'x.flac'], '--out'],
      [['--out', 'x'], '--out'],
      [['--format', 'mp3', '--out', 'x.ogg'], '--format'],
    ] as const) {
      expect(() => parseSayArgs(['hi', ...argv], {})).toThrow(UsageError);
      expect(() => parseSayArgs(['hi', ...argv], {})).toThrow(new RegExp(flag.replace('-', '\\-')));
    }
  });
});
