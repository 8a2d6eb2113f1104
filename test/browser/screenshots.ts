/**
 * Regenerates the README's screenshots of the latency report (and the capture viewer) from a
 * real run against the local service, in headless Chromium:
 *
 *   node --import tsx test/browser/screenshots.ts      → docs/images/*.png
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { measureLatency } from '../../src/latency/index.js';
import { latencyReportHtml } from '../../src/latency/report/html.js';
import { analyzeCapture } from '../../src/latency/view/captureView.js';
import { captureViewerHtml } from '../../src/latency/view/viewerHtml.js';
import { startLocalService } from '../../src/service/index.js';
import { launchChromium } from './chromium.js';

/** The page's own global: these callbacks run in the browser (the project compiles without the DOM lib). */
declare const document: any;

const out = fileURLToPath(new URL('../../docs/images/', import.meta.url));
mkdirSync(out, { recursive: true });
const tmp = mkdtempSync(join(tmpdir(), 'vw-shots-'));
const svc = await startLocalService({ pace: 'realtime' });
const chromium = await launchChromium();
try {
  const run = await measureLatency({
    targets: [
      { label: 'steady', baseUrl: svc.baseUrl, apiKey: svc.token },
      { label: 'stalls', baseUrl: svc.baseUrl, apiKey: svc.token, headers: { 'x-voicewire-fault': 'stall-after=8:700' } },
    ],
    texts: ['Thanks for calling voicewire. Your call is important to us, please hold the line.'],
    runs: 6,
    warmup: 1,
    concurrency: 4,
    format: 'opus',
  });
  let capture: Uint8Array | null = null;
  const run2 = await measureLatency({
    targets: [{ label: 'view', baseUrl: svc.baseUrl, apiKey: svc.token }],
    texts: ['Thanks for calling voicewire. Your call is important to us.'],
    runs: 1,
    warmup: 0,
    format: 'opus',
    onBody: (_rec, body) => {
      capture = body;
    },
  });
  void run2;
  const viewer = join(tmp, 'viewer.html');
  writeFileSync(viewer, captureViewerHtml(await analyzeCapture(capture!, 'opus'), 'hello.opus.sse'));
  const vpage = await chromium.browser.newPage();
  await vpage.setViewport({ width: 1060, height: 400, deviceScaleFactor: 1 });
  await vpage.goto(pathToFileURL(viewer).href, { waitUntil: 'load' });
  await vpage.evaluate(() => {
    const audio = document.getElementById('audio') as unknown as { currentTime: number; dispatchEvent(e: Event): boolean };
    audio.currentTime = 1.2;
    audio.dispatchEvent(new Event('timeupdate'));
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await vpage.screenshot({ path: join(out, 'capture-viewer.png') });
  await vpage.close();
  const report = join(tmp, 'report.html');
  writeFileSync(report, latencyReportHtml(run));
  const page = await chromium.browser.newPage();
  await page.setViewport({ width: 1000, height: 820, deviceScaleFactor: 1 });
  await page.goto(pathToFileURL(report).href, { waitUntil: 'load' });
  await page.screenshot({ path: join(out, 'latency-report.png') });
  const waterfall = await page.$('svg.waterfall');
  await waterfall!.screenshot({ path: join(out, 'latency-waterfall.png') });
  await page.close();
} finally {
  await chromium.close();
  await svc.close();
}
process.stdout.write(`wrote ${out}latency-report.png, latency-waterfall.png, capture-viewer.png\n`);
