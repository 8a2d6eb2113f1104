/** The README's library quick-start examples (examples/quickstart.ts, examples/quickstart-play.ts) run as tests. */
import { describe, expect, it, vi } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quickstart } from '../../examples/quickstart.js';
import { speakAloud } from '../../examples/quickstart-play.js';

describe('README quick-start examples', () => {
  it('quickstart.ts: words printed as heard, a WAV and WebVTT captions written', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const dir = mkdtempSync(join(tmpdir(), 'vw-quick-'));
    const { words, firstFrameMs } = await quickstart(dir);
    expect(words).toEqual(['Hello', 'from', 'voicewire']);
    expect(firstFrameMs).toBeGreaterThan(0);
    expect(readFileSync(join(dir, 'hello.wav')).toString('latin1', 0, 4)).toBe('RIFF');
    expect(readFileSync(join(dir, 'hello.vtt'), 'utf8')).toMatch(/^WEBVTT\n\n00:00:00\.\d{3} --> /);
    vi.restoreAllMocks();
  });

  it('quickstart-play.ts: captions arrive at the pace of the audio (sound device or real-time pacing)', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const heard = await speakAloud('One two three.');
    expect(heard.map((h) => h.text)).toEqual(['One', 'two', 'three']);
    expect(heard[2]!.heardAtSec - heard[0]!.heardAtSec).toBeGreaterThan(0.2);
    vi.restoreAllMocks();
  });
});
