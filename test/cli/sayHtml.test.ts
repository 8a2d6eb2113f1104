/** `voicewire say --html`: the viewer page of what was spoken. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService, type LocalService } from '../../src/service/index.js';
import { readWavInfo, runSay } from './sayHarness.js';

const TEXT = 'Hello world, this is voicewire speaking.';
const dir = mkdtempSync(join(tmpdir(), 'vw-say-html-'));
let service: LocalService;

beforeAll(async () => {
  service = await startLocalService();
});
afterAll(async () => {
  await service?.close();
});

describe('voicewire say --html', () => {
  it('writes the viewer page of what it spoke: every word, the waveform, the audio as long as the WAV', async () => {
    const out = join(dir, 'say.wav');
    const html = join(dir, 'say.html');
    const r = await runSay([TEXT, '--out', out, '--html', html, '--base-url', service.baseUrl, '--api-key', service.token]);
    expect(r.code).toBe(0);
    const page = readFileSync(html, 'utf8');
    const words = [...page.matchAll(/<g class="word[^"]*" data-i="\d+"><title>[^<]*<\/title><rect[^>]*\/><text[^>]*>([^<]*)<\/text>/g)].map(
      (m) => m[1],
    );
    expect(words).toEqual(['Hello', 'world', 'this', 'is', 'voicewire', 'speaking']);
    expect(page).toMatch(/<path class="wave" d="M/);
    const seconds = Number(/opus, ([\d.]+) s, 6 words/.exec(page)?.[1]);
    expect(seconds).toBeCloseTo(readWavInfo(out).durationSec, 1);
    expect(page).toContain(`<title>${TEXT}</title>`);
  });

  it('a page that cannot be written is an I/O error (3), the WAV still complete', async () => {
    const out = join(dir, 'still.wav');
    const r = await runSay([
      TEXT,
      '--out',
      out,
      '--html',
      join(dir, 'missing-dir', 'x.html'),
      '--base-url',
      service.baseUrl,
      '--api-key',
      service.token,
    ]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/cannot write .*x\.html/);
    expect(readWavInfo(out).riffSizeOk).toBe(true);
  });
});
