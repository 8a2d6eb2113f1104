import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSayOutputs } from '../../src/cli/sayOutputs.js';
import { SinkError } from '../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'vw-say-outputs-'));
const WORDS = [
  { text: 'Hello', start: 0.1, end: 0.4 },
  { text: 'there', start: 0.45, end: 0.8 },
];

describe('openSayOutputs', () => {
  it('creates both files before anything is written, and the captions get the final timeline', async () => {
    const out = join(dir, 'a.wav');
    const vtt = join(dir, 'a.vtt');
    const outputs = await openSayOutputs({ out: { path: out, encoded: false }, captions: { path: vtt, kind: 'vtt' } });
    expect(statSync(out).size).toBe(0);
    expect(statSync(vtt).size).toBe(0);
    await outputs.captions!.write(WORDS);
    expect(readFileSync(vtt, 'utf8')).toMatch(/^WEBVTT\n\n00:00:00\.100 --> /);
    outputs.wav!.destroy();
    await new Promise((resolve) => outputs.wav!.once('close', resolve));
  });

  it('an --out that cannot be written is SINK_IO naming it, and the captions file opened first is closed again', async () => {
    const srt = join(dir, 'b.srt');
    const err = await openSayOutputs({
      out: { path: join(dir, 'missing', 'b.wav'), encoded: false },
      captions: { path: srt, kind: 'srt' },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SinkError);
    expect((err as SinkError).code).toBe('SINK_IO');
    expect((err as SinkError).message).toMatch(/^cannot write \S*missing\/b\.wav: ENOENT/);
    expect(existsSync(srt)).toBe(true);
  });

  it('a --captions that cannot be written is SINK_IO, and no WAV is created', async () => {
    const out = join(dir, 'c.wav');
    const err = await openSayOutputs({
      out: { path: out, encoded: false },
      captions: { path: join(dir, 'missing', 'c.vtt'), kind: 'vtt' },
    }).catch((e: unknown) => e);
    expect((err as SinkError).code).toBe('SINK_IO');
    expect((err as SinkError).message).toMatch(/^cannot write \S*missing\/c\.vtt: ENOENT/);
    expect(existsSync(out)).toBe(false);
  });

  it('with neither option it opens nothing', async () => {
    expect(await openSayOutputs({ out: undefined, captions: undefined })).toEqual({ wav: null, encoded: null, captions: null });
  });
});
