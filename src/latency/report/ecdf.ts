/**
 * An ECDF chart (one step line per contender): for each latency x, the share of requests that
 * were at most x. Unlike a mean or a histogram it shows every percentile at once, and the tail.
 */
import { colorOf, esc, f, linear, niceTicks, tickLabel } from './svg.js';

export interface EcdfSeries {
  label: string;
  values: number[];
}

const W = 440;
const H = 240;
const M = { left: 48, right: 12, top: 26, bottom: 40 };
const Y_TICKS = [0, 0.25, 0.5, 0.75, 1];

export function ecdfSvg(title: string, unit: string, series: EcdfSeries[]): string {
  const all = series.flatMap((s) => s.values).filter(Number.isFinite);
  const parts: string[] = [];
  parts.push(`<svg class="chart ecdf" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}">`);
  parts.push(`<text class="title" x="${M.left}" y="16">${esc(title)}</text>`);
  if (all.length === 0) {
    parts.push(`<text class="empty" x="${W / 2}" y="${H / 2}" text-anchor="middle">no samples</text></svg>`);
    return parts.join('');
  }
  const ticks = niceTicks(Math.min(...all), Math.max(...all));
  const x = linear(ticks[0]!, ticks[ticks.length - 1]!, M.left, W - M.right);
  const y = linear(0, 1, H - M.bottom, M.top);
  parts.push('<g class="axis x-axis">');
  for (const t of ticks)
    parts.push(
      `<line x1="${f(x(t))}" x2="${f(x(t))}" y1="${M.top}" y2="${H - M.bottom}" class="grid"/>` +
        `<text x="${f(x(t))}" y="${H - M.bottom + 14}" text-anchor="middle">${tickLabel(t)}</text>`,
    );
  parts.push(`<text class="axis-label" x="${(M.left + W - M.right) / 2}" y="${H - 6}" text-anchor="middle">${esc(unit)}</text></g>`);
  parts.push('<g class="axis y-axis">');
  for (const t of Y_TICKS)
    parts.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${f(y(t))}" y2="${f(y(t))}" class="grid"/>` +
        `<text x="${M.left - 4}" y="${f(y(t))}" dy="4" text-anchor="end">${t * 100}%</text>`,
    );
  parts.push('</g>');
  series.forEach((s, i) => {
    const v = s.values.filter(Number.isFinite).sort((a, b) => a - b);
    if (v.length === 0) return;
    let d = `M${f(x(v[0]!))},${f(y(0))}`;
    v.forEach((val, k) => {
      d += `V${f(y((k + 1) / v.length))}`;
      if (k + 1 < v.length) d += `H${f(x(v[k + 1]!))}`;
    });
    parts.push(
      `<path class="series" d="${d}" stroke="${colorOf(i)}" fill="none" stroke-width="1.6">` +
        `<title>${esc(s.label)} (n = ${v.length})</title></path>`,
    );
  });
  series.forEach((s, i) =>
    parts.push(
      `<text class="legend" x="${W - M.right}" y="${M.top + 12 + i * 13}" text-anchor="end" fill="${colorOf(i)}">` +
        `${esc(s.label)} (n=${s.values.filter(Number.isFinite).length})</text>`,
    ),
  );
  parts.push('</svg>');
  return parts.join('');
}
