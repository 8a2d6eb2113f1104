/**
 * The `--html` report in headless Chromium: every chart drew, with axis labels; the waterfall has
 * one row per request with the injected stall on the right one; the page fetches nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { measureLatency, type LatencyRun } from '../../src/latency/index.js';
import { latencyReportHtml } from '../../src/latency/report/html.js';
import { startLocalService, type LocalService } from '../../src/service/index.js';
import { browserSkipReason, launchChromium, type LaunchedBrowser } from './chromium.js';

const skip = browserSkipReason();
if (skip !== null) console.warn(`SKIPPED browser tests (latency report): ${skip}`);

describe.skipIf(skip !== null)('latency report in Chromium', () => {
  let svc: LocalService;
  let chromium: LaunchedBrowser;
  let run: LatencyRun;
  let file: string;

  beforeAll(async () => {
    svc = await startLocalService();
    run = await measureLatency({
      targets: [
        { label: 'plain', baseUrl: svc.baseUrl, apiKey: svc.token },
        { label: 'stalling', baseUrl: svc.baseUrl, apiKey: svc.token, headers: { 'x-voicewire-fault': 'stall-after=1:1200' } },
      ],
      texts: ['Thanks for calling. Please hold the line.'],
      runs: 2,
      warmup: 0,
      format: 'wav',
    });
    file = join(mkdtempSync(join(tmpdir(), 'vw-report-')), 'report.html');
    writeFileSync(file, latencyReportHtml(run));
    chromium = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await chromium?.close();
    await svc?.close();
  });

  it('draws an ECDF per figure (a line per contender, axis labels), and the waterfall row by row; fetches nothing', async () => {
    const page = await chromium.browser.newPage();
    const fetched: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) fetched.push(r.url());
    });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    const charts = await page.$$eval('svg.ecdf', (svgs) =>
      svgs.map((s) => {
        const box = s.getBoundingClientRect();
        return {
          title: s.querySelector('.title')?.textContent ?? '',
          width: box.width,
          height: box.height,
          lines: [...s.querySelectorAll('path.series')].map((p) => (p as unknown as { getTotalLength(): number }).getTotalLength()),
          xLabels: [...s.querySelectorAll('.x-axis text')].map((t) => t.textContent),
          yLabels: [...s.querySelectorAll('.y-axis text')].map((t) => t.textContent),
        };
      }),
    );
    expect(charts.map((c) => c.title)).toEqual([
      'connect (new conn.)',
      'response head',
      'first byte',
      'first audio byte',
      'first PCM frame',
      'first word',
      'last byte',
      'real-time factor',
      'max audio gap',
    ]);
    for (const c of charts.slice(1)) {
      expect(c.width).toBeGreaterThan(100);
      expect(c.lines).toHaveLength(2);
      for (const len of c.lines) expect(len).toBeGreaterThan(10);
      expect(c.xLabels.length).toBeGreaterThanOrEqual(3);
      expect(c.xLabels).toContain('0');
      expect(c.yLabels).toEqual(['0%', '25%', '50%', '75%', '100%']);
    }
    const rows = await page.$$eval('svg.waterfall g.row', (gs) =>
      gs.map((g) => ({
        seq: Number(g.getAttribute('data-seq')),
        contender: g.getAttribute('data-contender'),
        stalls: g.querySelectorAll('rect.stall').length,
        body: (g.querySelector('rect.body') as unknown as { getBBox(): { width: number } } | null)?.getBBox().width ?? 0,
        words: g.querySelectorAll('line.word').length,
      })),
    );
    expect(rows.map((r) => r.seq)).toEqual(run.records.map((r) => r.seq));
    for (const r of rows) {
      expect(r.body).toBeGreaterThan(1);
      expect(r.words).toBeGreaterThan(3);
      expect(r.stalls).toBe(r.contender === 'stalling' ? 1 : 0);
    }
    expect(await page.$eval('svg.waterfall .axis-label', (t) => t.textContent)).toBe('ms since the request was sent');
    expect(await page.$$eval('table.kv td', (tds) => tds.map((t) => t.textContent))).toContain('plain, stalling');
    expect(fetched).toEqual([]);
    await page.close();
  });
});
