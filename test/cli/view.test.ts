/**
 * `voicewire view`: a real capture of the local service becomes a page; bad input gets one line
 * and the exit code of the table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/view.js';
import { detectCaptureFormat } from '../../src/latency/view/captureView.js';
import { startLocalService, type LocalService } from '../../src/service/index.js';
import { postTts } from '../service/helpers.js';

const TEXT = 'Hello there, this page shows every word.';
const dir = mkdtempSync(join(tmpdir(), 'vw-view-'));
let svc: LocalService;
const captures: Record<string, string> = {};

beforeAll(async () => {
  svc = await startLocalService();
  for (const format of ['opus', 'wav', 'mp3'] as const) {
    const r = await postTts(svc, { text: TEXT, format });
    captures[format] = join(dir, `${format}.sse`);
    writeFileSync(captures[format]!, r.text);
  }
});
afterAll(async () => {
  await svc?.close();
});

async function view(argv: string[]): Promise<{ code: number; stderr: string }> {
  const err: string[] = [];
  const code = await run(argv, { stdout: { write: () => true }, stderr: { write: (s: string) => err.push(s) } });
  return { code, stderr: err.join('') };
}

describe('voicewire view', () => {
  for (const format of ['opus', 'wav', 'mp3'] as const) {
    it(`${format}: the format is recognized from the audio, and the page holds the words, the waveform and the audio`, async () => {
      expect(detectCaptureFormat(readFileSync(captures[format]!))).toBe(format);
      const html = join(dir, `${format}.html`);
      const r = await view([captures[format]!, '--html', html]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const page = readFileSync(html, 'utf8');
      const words = [
        ...page.matchAll(/<g class="word[^"]*" data-i="\d+"><title>[^<]*<\/title><rect[^>]*\/><text[^>]*>([^<]*)<\/text>/g),
      ].map((m) => m[1]);
      expect(words).toEqual(['Hello', 'there', 'this', 'page', 'shows', 'every', 'word']);
      expect(page).toMatch(/<path class="wave" d="M[\d.]+,[\d.]+L/);
      expect(page).toMatch(/<audio id="audio" controls preload="auto" src="data:audio\/wav;base64,UklGR/);
      expect(page).not.toMatch(/(src|href)="https?:/);
    });
  }

  it('a capture of the wrong format: one line, exit 1', async () => {
    const r = await view([captures.wav!, '--format', 'opus', '--html', join(dir, 'wrong.html')]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^voicewire view: .*wav\.sse is not a valid opus speech stream: /);
    expect(existsSync(join(dir, 'wrong.html'))).toBe(false);
  });

  it('a missing capture is I/O (3); no --html, or a format it cannot tell, is usage (2)', async () => {
    expect((await view([join(dir, 'none.sse'), '--html', join(dir, 'x.html')])).code).toBe(3);
    expect((await view([captures.opus!])).code).toBe(2);
    const notAudio = join(dir, 'empty.sse');
    writeFileSync(notAudio, 'data: {"audio_base64":"","content":"","alignment":null,"chunk_seq":0,"chunk_audio_offset_sec":0}\n\n');
    const r = await view([notAudio, '--html', join(dir, 'y.html')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot tell the format .*give --format/);
  });
});
