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
import { startLocalService } from '../../src/service/index.js';
import { launchChromium } from './chromium.js';

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
process.stdout.write(`wrote ${out}latency-report.png, latency-waterfall.png\n`);
