/**
 * `voicewire latency --html`: one self-contained page (inline CSS and SVG, no script, nothing
 * fetched) with an ECDF per latency figure, the waterfall of every request, the statistics, and
 * the run's settings and machine.
 */
import { percentiles } from '../percentiles.js';
import { FIGURES, type Figure, type LatencyRun } from '../types.js';
import { ecdfSvg } from './ecdf.js';
import { esc } from './svg.js';
import { FIGURE_LABELS } from './text.js';
import { waterfallSvg } from './waterfall.js';

/** Figures charted as ECDFs (seconds of audio is a property of the text, not a latency). */
const CHARTED: Figure[] = FIGURES.filter((f) => f !== 'audioDurationSec');

export const REPORT_CSS = `
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}
table{border-collapse:collapse;margin:4px 0 12px}td,th{border:1px solid #ddd;padding:2px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}
.charts{display:flex;flex-wrap:wrap;gap:12px}
svg text{font:11px system-ui,sans-serif;fill:#333}svg .title{font-weight:600;font-size:12px}
svg .grid{stroke:#eee}svg .axis-label{fill:#666}
.waterfall .connect{fill:#555}.waterfall .wait-head{fill:#ccc}.waterfall .wait-audio{fill:#f2c94c}
.waterfall .stall{fill:#e00;opacity:.85}.waterfall .word{stroke:#000;stroke-width:1}
.waterfall .fail-mark{fill:#c00;font-weight:600}.waterfall .row-label{font-size:10px}
.legend-box span{display:inline-block;width:12px;height:9px;margin:0 4px 0 12px;vertical-align:middle}
.muted{color:#666}
`;

function unitOf(f: Figure): string {
  return f === 'realTimeFactor' ? 'body seconds per audio second' : 'ms since the request was sent';
}

function statsTable(run: LatencyRun): string {
  const rows: string[] = [
    '<table class="stats"><tr><th>contender / figure</th><th>p50</th><th>p90</th><th>p95</th><th>p99</th><th>max</th><th>n</th></tr>',
  ];
  const num = (v: number | null): string => (v === null ? '-' : v.toFixed(v >= 100 ? 0 : 2));
  for (const s of run.summaries) {
    const failures = Object.entries(s.failures)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ');
    rows.push(`<tr><th colspan="7">${esc(s.contender)}: ${s.ok}/${s.requests} ok${failures ? `; failed: ${esc(failures)}` : ''}</th></tr>`);
    for (const f of FIGURES) {
      const p = s.figures[f];
      const cells = [p.p50, p.p90, p.p95, p.p99, p.max].map((v) => `<td>${num(v)}</td>`).join('');
      rows.push(`<tr><td>${esc(FIGURE_LABELS[f])}</td>${cells}<td>${p.n}</td></tr>`);
    }
    for (const p of s.players) {
      const u = p.underrunMs;
      const cells = [u.p50, u.p90, u.p95, u.p99, u.max].map((v) => `<td>${num(v)}</td>`).join('');
      rows.push(`<tr><td>player ${p.jitterBufferMs} ms: underrun ms (${p.stalledRequests} stalled)</td>${cells}<td>${u.n}</td></tr>`);
    }
  }
  rows.push('</table>');
  return rows.join('');
}

function keyValues(entries: Array<[string, string | number | boolean | null]>): string {
  return `<table class="kv">${entries.map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(String(v ?? '-'))}</td></tr>`).join('')}</table>`;
}

export function latencyReportHtml(run: LatencyRun): string {
  const { settings, machine } = run;
  const charts = CHARTED.map((fig) => {
    const series = settings.contenders.map((c) => ({
      label: c,
      values: run.records
        .filter((r) => r.contender === c)
        .map((r) => r[fig])
        .filter((v): v is number => v !== null),
    }));
    return ecdfSvg(FIGURE_LABELS[fig], unitOf(fig), series);
  });
  const overall = percentiles(run.records.map((r) => r.firstAudioByteMs));
  const firstAudioP50 = overall.p50 === null ? '-' : `${overall.p50.toFixed(1)} ms`;
  const summary =
    `${run.records.length} requests to ${settings.contenders.map(esc).join(', ')}, ${esc(settings.format)}; ` +
    `first audio p50 ${firstAudioP50} (n = ${overall.n})${run.interrupted ? '; <strong>interrupted</strong>' : ''}`;
  const legend =
    '<span style="background:#555"></span>connect<span style="background:#ccc"></span>wait for head' +
    '<span style="background:#f2c94c"></span>wait for first audio<span style="background:#1f77b4"></span>body (contender colour)' +
    '<span style="background:#000;width:2px"></span>word known' +
    `<span style="background:#e00"></span>player underrun (${settings.jitterBuffersMs[0] ?? 0} ms buffer)`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>voicewire latency report</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><style>${REPORT_CSS}</style></head>
<body>
<h1>voicewire latency report</h1>
<p class="muted">${summary}</p>
<h2>Distributions (ECDF: share of requests at or below each time)</h2>
<div class="charts">${charts.join('\n')}</div>
<h2>Waterfall</h2>
<p class="legend-box">${legend}</p>
${waterfallSvg(run.records, settings.contenders)}
<h2>Statistics (ms)</h2>
${statsTable(run)}
<h2>Settings</h2>
${keyValues([
  ['contenders', settings.contenders.join(', ')],
  ['texts', settings.texts],
  ['rounds', settings.runs],
  ['warm-up rounds', settings.warmup],
  ['concurrency', settings.concurrency],
  ['format', settings.format],
  ['latency mode', settings.latency],
  ['jitter buffers (ms)', settings.jitterBuffersMs.join(', ')],
  ['embedded local service', settings.local],
  ['wall time (s)', (run.elapsedMs / 1000).toFixed(2)],
  ['CPU of the measuring process (ms)', run.cpuMs.toFixed(0)],
])}
<h2>Machine</h2>
${keyValues([
  ['node', machine.node],
  ['platform', `${machine.platform} ${machine.arch}`],
  ['CPU', `${machine.cpuCount} × ${machine.cpus}`],
  ['started', machine.startedAt],
])}
</body></html>
`;
}
