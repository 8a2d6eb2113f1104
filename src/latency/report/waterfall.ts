/**
 * The waterfall: one row per request on one time axis (ms since it was sent): connect, the wait
 * for the response head, the wait for the first audio, the body until its last byte, each word as
 * it became known, and the simulated player's underruns (first jitter buffer) in red.
 */
import type { LatencyRecord } from '../types.js';
import { colorOf, esc, f, linear, niceTicks, tickLabel } from './svg.js';

const W = 960;
const ROW_H = 14;
const BAR_H = 9;
const LABEL_W = 150;
const M = { right: 12, top: 34, bottom: 34 };
const WORD_TICK_H = 12;

function endOf(r: LatencyRecord): number {
  const u = r.players[0]?.underruns ?? [];
  const lastUnderrun = u.length === 0 ? 0 : Math.max(...u.map((x) => x.atMs + x.ms));
  return Math.max(r.lastByteMs ?? 0, r.headMs ?? 0, r.firstFrameMs ?? 0, lastUnderrun, ...r.words.map((w) => w.atMs));
}

export function waterfallSvg(records: readonly LatencyRecord[], contenders: readonly string[]): string {
  const h = M.top + records.length * ROW_H + M.bottom;
  const maxMs = Math.max(1, ...records.map(endOf));
  const ticks = niceTicks(0, maxMs);
  const x = linear(0, ticks[ticks.length - 1]!, LABEL_W, W - M.right);
  const parts: string[] = [];
  parts.push(
    `<svg class="chart waterfall" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}" role="img"` +
      ` aria-label="waterfall of ${records.length} requests">`,
  );
  parts.push(`<text class="title" x="4" y="14">Requests (one row each), ms since sent</text>`);
  parts.push('<g class="axis x-axis">');
  for (const t of ticks) {
    parts.push(`<line class="grid" x1="${f(x(t))}" x2="${f(x(t))}" y1="${M.top - 6}" y2="${h - M.bottom}"/>`);
    parts.push(
      `<text x="${f(x(t))}" y="${M.top - 9}" text-anchor="middle">${tickLabel(t)}</text>` +
        `<text x="${f(x(t))}" y="${h - M.bottom + 13}" text-anchor="middle">${tickLabel(t)}</text>`,
    );
  }
  parts.push(
    `<text class="axis-label" x="${(LABEL_W + W) / 2}" y="${h - 6}" text-anchor="middle">ms since the request was sent</text></g>`,
  );
  records.forEach((r, i) => {
    const top = M.top + i * ROW_H;
    const yBar = top + (ROW_H - BAR_H) / 2;
    const color = colorOf(Math.max(0, contenders.indexOf(r.contender)));
    const seg = (from: number | null, to: number | null, cls: string, fill?: string): string =>
      from === null || to === null || to <= from
        ? ''
        : `<rect class="${cls}" x="${f(x(from))}" y="${f(yBar)}" width="${f(Math.max(0.5, x(to) - x(from)))}"` +
          ` height="${BAR_H}"${fill ? ` fill="${fill}"` : ''}/>`;
    const connect = r.connectMs ?? 0;
    const row: string[] = [`<g class="row${r.ok ? '' : ' failed'}" data-seq="${r.seq}" data-contender="${esc(r.contender)}">`];
    row.push(
      `<title>#${r.seq} ${esc(r.contender)} round ${r.round} text ${r.textIndex}: head ${fmt(r.headMs)}, ` +
        `first audio ${fmt(r.firstAudioByteMs)}, last byte ${fmt(r.lastByteMs)}` +
        `${r.failure ? `, FAILED ${esc(r.failure.kind)}: ${esc(r.failure.message)}` : ''}</title>`,
    );
    row.push(`<text class="row-label" x="${LABEL_W - 6}" y="${top + ROW_H - 3}" text-anchor="end">#${r.seq} ${esc(r.contender)}</text>`);
    row.push(seg(0, r.connectMs, 'connect'));
    row.push(seg(connect, r.headMs, 'wait-head'));
    row.push(seg(r.headMs, r.firstAudioByteMs ?? r.lastByteMs, 'wait-audio'));
    row.push(seg(r.firstAudioByteMs, r.lastByteMs, 'body', color));
    for (const w of r.words)
      row.push(
        `<line class="word" x1="${f(x(w.atMs))}" x2="${f(x(w.atMs))}"` +
          ` y1="${f(top + (ROW_H - WORD_TICK_H) / 2)}" y2="${f(top + (ROW_H + WORD_TICK_H) / 2)}"/>`,
      );
    for (const u of r.players[0]?.underruns ?? []) row.push(seg(u.atMs, u.atMs + u.ms, 'stall'));
    if (!r.ok) {
      const at = x(r.lastByteMs ?? r.headMs ?? 0);
      row.push(`<text class="fail-mark" x="${f(at + 3)}" y="${top + ROW_H - 3}">✕ ${esc(r.failure?.kind ?? 'failed')}</text>`);
    }
    row.push('</g>');
    parts.push(row.join(''));
  });
  parts.push('</svg>');
  return parts.join('');
}

function fmt(ms: number | null): string {
  return ms === null ? '-' : `${ms.toFixed(1)} ms`;
}
