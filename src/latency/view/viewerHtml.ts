/**
 * The capture viewer page (`voicewire view`, `say --html`, `latency --record`): one
 * self-contained file with the waveform, the word timeline above it (chunk boundaries dashed,
 * late words orange, revised words outlined), and an audio player (the WAV inline as a data URL)
 * whose current word is highlighted as it plays. The script is inline; nothing is fetched.
 */
import { wavHeader } from '../../sinks/WavWriter.js';
import { esc, f, linear, niceTicks, tickLabel } from '../report/svg.js';
import type { CaptureView } from './captureView.js';

const W = 1000;
const WORDS_H = 64;
const WAVE_H = 140;
const AXIS_H = 26;
const LEFT = 8;
const RIGHT = 8;
const WORD_ROWS = 2;
const ROW_H = 26;
const INT16_FULL_SCALE = 32768;

/** Min/max per pixel column: the waveform as one closed path (linear in the samples). */
function waveformPath(samples: Int16Array, x: (sec: number) => number, rate: number, top: number, height: number): string {
  const columns = W - LEFT - RIGHT;
  const per = Math.max(1, Math.ceil(samples.length / columns));
  const mid = top + height / 2;
  const upper: string[] = [];
  const lower: string[] = [];
  for (let c = 0; c * per < samples.length; c++) {
    let lo = 0;
    let hi = 0;
    const end = Math.min(samples.length, (c + 1) * per);
    for (let i = c * per; i < end; i++) {
      const v = samples[i]!;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    const px = f(x((c * per) / rate));
    upper.push(`${px},${f(mid - (hi / INT16_FULL_SCALE) * (height / 2))}`);
    lower.push(`${px},${f(mid - (lo / INT16_FULL_SCALE) * (height / 2))}`);
  }
  if (upper.length === 0) return '';
  return `M${upper.join('L')}L${lower.reverse().join('L')}Z`;
}

function wavDataUrl(view: CaptureView): string {
  const pcm = Buffer.from(view.samples.buffer, view.samples.byteOffset, view.samples.byteLength);
  const header = wavHeader({ sampleRate: Math.max(1, view.sampleRate), channels: 1 }, pcm.byteLength);
  return `data:audio/wav;base64,${Buffer.concat([header, pcm]).toString('base64')}`;
}

const VIEWER_CSS = `
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}
h1{font-size:18px;margin:0 0 4px}.muted{color:#666}
svg text{font:11px system-ui,sans-serif;fill:#222}
.word rect{fill:#e8f0fe;stroke:#9ab}.word.late rect{fill:#ffe2b8}.word.revised rect{stroke:#c00;stroke-dasharray:3 2;stroke-width:1.5}
.word.current rect{fill:#1f77b4}.word.current text{fill:#fff;font-weight:600}
.chunk{stroke:#777;stroke-dasharray:4 3}.wave{fill:#4a7fb5}.grid{stroke:#eee}.playhead{stroke:#d00;stroke-width:1.5}
audio{width:${W}px;margin:8px 0}
#now{font-size:20px;min-height:28px}
`;

/**
 * The page's script: the word under `currentTime` gets the class `current`; a red line follows. (Two template
 * pieces only to keep the source under 140 columns: `wordAt` stays one line in the page.)
 */
const VIEWER_SCRIPT =
  `
(() => {
  const audio = document.getElementById('audio');
  const words = JSON.parse(document.getElementById('words').textContent);
  const nodes = [...document.querySelectorAll('g.word')];
  const head = document.getElementById('playhead');
  const now = document.getElementById('now');
  const x0 = Number(head.dataset.x0), x1 = Number(head.dataset.x1), dur = Number(head.dataset.duration) || 1;
  let current = -1;
  const wordAt = (t) => { let lo = 0, hi = words.length - 1, at = -1; ` +
  `while (lo <= hi) { const m = (lo + hi) >> 1; if (words[m].start <= t) { at = m; lo = m + 1; } else hi = m - 1; } return at; };
  const update = () => {
    const t = audio.currentTime;
    const x = x0 + (x1 - x0) * Math.min(1, t / dur);
    head.setAttribute('x1', x); head.setAttribute('x2', x);
    const i = wordAt(t);
    if (i !== current) {
      if (current >= 0) nodes[current].classList.remove('current');
      if (i >= 0) nodes[i].classList.add('current');
      current = i;
      document.body.dataset.currentWord = String(i);
      now.textContent = i >= 0 ? words[i].text : '';
    }
  };
  const loop = () => { update(); if (!audio.paused) requestAnimationFrame(loop); };
  audio.addEventListener('play', () => requestAnimationFrame(loop));
  audio.addEventListener('seeked', update);
  audio.addEventListener('timeupdate', update);
  nodes.forEach((n, i) => n.addEventListener('click', () => { audio.currentTime = words[i].start; update(); }));
  update();
})();
`;

export function captureViewerHtml(view: CaptureView, title: string): string {
  const duration = Math.max(view.durationSec, ...view.words.map((w) => w.end), 0.001);
  const ticks = niceTicks(0, duration);
  const x = linear(0, ticks[ticks.length - 1]!, LEFT, W - RIGHT);
  const h = WORDS_H + WAVE_H + AXIS_H;
  const parts: string[] = [];
  parts.push(`<svg class="viewer" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}" role="img" aria-label="waveform and words">`);
  for (const t of ticks)
    parts.push(
      `<line class="grid" x1="${f(x(t))}" x2="${f(x(t))}" y1="0" y2="${WORDS_H + WAVE_H}"/>` +
        `<text class="tick" x="${f(x(t))}" y="${h - 8}" text-anchor="middle">${tickLabel(t)} s</text>`,
    );
  parts.push(`<path class="wave" d="${waveformPath(view.samples, x, Math.max(1, view.sampleRate), WORDS_H, WAVE_H)}"/>`);
  view.words.forEach((w, i) => {
    const y = 4 + (i % WORD_ROWS) * ROW_H;
    const cls = `word${w.late ? ' late' : ''}${w.revised ? ' revised' : ''}`;
    const width = Math.max(2, x(w.end) - x(w.start));
    const tooltip =
      `${esc(w.text)} ${w.start.toFixed(2)}–${w.end.toFixed(2)} s, chunk ${w.chunkSeq}` +
      `${w.late ? ', late' : ''}${w.revised ? ', revised' : ''}`;
    parts.push(
      `<g class="${cls}" data-i="${i}"><title>${tooltip}</title>` +
        `<rect x="${f(x(w.start))}" y="${y}" width="${f(width)}" height="${ROW_H - 4}" rx="3"/>` +
        `<text x="${f(x(w.start) + 3)}" y="${y + 15}">${esc(w.text)}</text></g>`,
    );
  });
  for (const c of view.chunkStarts)
    parts.push(
      `<line class="chunk" x1="${f(x(c))}" x2="${f(x(c))}" y1="0" y2="${WORDS_H + WAVE_H}">` +
        `<title>chunk starts at ${c.toFixed(2)} s</title></line>`,
    );
  parts.push(
    `<line id="playhead" class="playhead" x1="${LEFT}" x2="${LEFT}" y1="0" y2="${WORDS_H + WAVE_H}"` +
      ` data-x0="${f(x(0))}" data-x1="${f(x(duration))}" data-duration="${duration}"/>`,
  );
  parts.push('</svg>');
  const chunks = view.chunkStarts.length + (view.words.length > 0 ? 1 : 0);
  const late = view.words.filter((w) => w.late).length;
  const revised = view.words.filter((w) => w.revised).length;
  const summary =
    `${esc(view.format)}, ${view.durationSec.toFixed(2)} s, ${view.words.length} words (${late} late, ${revised} revised), ` +
    `${chunks} chunk${chunks === 1 ? '' : 's'}. Click a word to play from it.`;
  const wordsJson = JSON.stringify(view.words.map((w) => ({ text: w.text, start: w.start, end: w.end }))).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>${VIEWER_CSS}</style></head>
<body>
<h1>${esc(title)}</h1>
<p class="muted">${summary}</p>
<div id="now" aria-live="polite"></div>
${parts.join('')}
<div><audio id="audio" controls preload="auto" src="${wavDataUrl(view)}"></audio></div>
<script type="application/json" id="words">${wordsJson}</script>
<script>${VIEWER_SCRIPT}</script>
</body></html>
`;
}
