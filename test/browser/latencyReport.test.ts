/**
 * The `--html` report in headless Chromium: every chart drew, with axis labels; the waterfall has
 * one row per request with the injected stall on the right one; the page fetches nothing.
 *
 * The run is real (the local service over HTTP, the client, the engine) on an injected clock:
 * time moves by {@link TICK_MS} at each reading the measurement takes, and by the whole stall when
 * the service sleeps for it. On the wall clock the simulated player (0 ms jitter buffer) judged a
 * busy machine: under a load of 10+, the test process was sometimes descheduled between two
 * frames of a plain request for longer than the audio it held, and that request got an underrun
 * (a stall drawn on a row that must have none). Now each verdict follows from the bytes alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { measureLatency, type LatencyRun } from '../../src/latency/index.js';
import { latencyReportHtml } from '../../src/latency/report/html.js';
import { startLocalService, type LocalService, type ServiceClock } from '../../src/service/index.js';
import { browserSkipReason, launchChromium, type LaunchedBrowser } from './chromium.js';

/**
 * What each clock reading moves the run's time by: a request's few hundred readings span tens of
 * ms (its waterfall row has a width), while each 20 ms frame of audio costs a few readings, so a
 * player never waits on a request that does not stall.
 */
const TICK_MS = 0.2;
/** The stall the service injects after the first event of the stalling contender's requests. */
const STALL_MS = 1200;

const skip = browserSkipReason();
if (skip !== null) console.warn(`SKIPPED browser tests (latency report): ${skip}`);

describe.skipIf(skip !== null)('latency report in Chromium', () => {
  let svc: LocalService;
  let chromium: LaunchedBrowser;
  let run: LatencyRun;
  let file: string;

  beforeAll(async () => {
    let t = 0;
    const clock: ServiceClock = {
      now: () => t,
      sleep: (ms) => {
        t += ms; // the service's stall: the whole of it passes at once
        return new Promise((resolve) => setImmediate(resolve));
      },
    };
    svc = await startLocalService({ clock });
    run = await measureLatency({
      now: () => (t += TICK_MS),
      targets: [
        { label: 'plain', baseUrl: svc.baseUrl, apiKey: svc.token },
        { label: 'stalling', baseUrl: svc.baseUrl, apiKey: svc.token, headers: { 'x-voicewire-fault': `stall-after=1:${STALL_MS}` } },
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
    // The stall the run measured is the one the service injected: after the first event, about STALL_MS long.
    for (const rec of run.records.filter((r) => r.contender === 'stalling')) {
      const [u, ...more] = rec.players[0]!.underruns;
      expect(more).toEqual([]);
      expect(u!.ms).toBeGreaterThan(STALL_MS - u!.positionSec * 1000 - 50);
      expect(u!.ms).toBeLessThanOrEqual(STALL_MS);
    }
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
