/**
 * The capture viewer in headless Chromium: the waveform and one box per word drew, and during
 * playback the highlighted word follows the audio's currentTime (within one word).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { analyzeCapture } from '../../src/latency/view/captureView.js';
import { captureViewerHtml } from '../../src/latency/view/viewerHtml.js';
import { startLocalService } from '../../src/service/index.js';
import { postTts } from '../service/helpers.js';
import { browserSkipReason, launchChromium, type LaunchedBrowser } from './chromium.js';

/** The page's own global: these callbacks run in the browser (the project compiles without the DOM lib). */
declare const document: any;

const skip = browserSkipReason();
if (skip !== null) console.warn(`SKIPPED browser tests (capture viewer): ${skip}`);

const TEXT = 'One two three four five six seven eight nine ten, and then a few more words to follow.';
const SAMPLES = 12;
const SAMPLE_EVERY_MS = 150;

describe.skipIf(skip !== null)('capture viewer in Chromium', () => {
  let chromium: LaunchedBrowser;
  let file: string;
  let words: Array<{ text: string; start: number }>;

  beforeAll(async () => {
    const svc = await startLocalService();
    try {
      const r = await postTts(svc, { text: TEXT, format: 'opus' });
      const view = await analyzeCapture(new Uint8Array(Buffer.from(r.text)), 'opus');
      words = view.words;
      file = join(mkdtempSync(join(tmpdir(), 'vw-viewer-')), 'view.html');
      writeFileSync(file, captureViewerHtml(view, 'viewer test'));
    } finally {
      await svc.close();
    }
    chromium = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await chromium?.close();
  });

  it('draws the waveform and every word; while playing, the highlighted word is the one at currentTime', async () => {
    const page = await chromium.browser.newPage();
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    const drawn = await page.evaluate(() => ({
      wave: (() => {
        const box = (document.querySelector('path.wave') as unknown as { getBBox(): { width: number; height: number } }).getBBox();
        return { width: box.width, height: box.height };
      })(),
      words: [...document.querySelectorAll('g.word text')].map((t) => t.textContent),
      ticks: [...document.querySelectorAll('text.tick')].map((t) => t.textContent),
    }));
    expect(drawn.wave.width).toBeGreaterThan(500);
    expect(drawn.wave.height).toBeGreaterThan(20);
    expect(drawn.words).toEqual(words.map((w) => w.text));
    expect(drawn.ticks).toContain('0 s');

    await page.evaluate(() => (document.getElementById('audio') as unknown as { play(): Promise<void> }).play());
    const seen: Array<{ t: number; shown: number; highlighted: number }> = [];
    for (let i = 0; i < SAMPLES; i++) {
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_EVERY_MS));
      seen.push(
        await page.evaluate(() => {
          const audio = document.getElementById('audio') as unknown as { currentTime: number };
          const current = [...document.querySelectorAll('g.word.current')];
          return {
            t: audio.currentTime,
            shown: Number(document.body.dataset.currentWord),
            highlighted: current.length === 1 ? Number(current[0]!.getAttribute('data-i')) : -2,
          };
        }),
      );
    }
    // The audio really played (a headless browser still runs the media clock).
    expect(seen[seen.length - 1]!.t - seen[0]!.t).toBeGreaterThan(((SAMPLES - 1) * SAMPLE_EVERY_MS) / 1000 / 2);
    const expected = (t: number): number => words.reduce((at, w, i) => (w.start <= t ? i : at), -1);
    for (const s of seen.filter((x) => x.t > words[0]!.start)) {
      expect(s.highlighted).toBe(s.shown);
      expect(Math.abs(s.shown - expected(s.t))).toBeLessThanOrEqual(1);
    }
    expect(new Set(seen.map((s) => s.shown)).size).toBeGreaterThan(3);
    await page.close();
  });
});
