/**
 * Regenerates the README's performance table from `bench/results.json`, between the markers
 * `<!-- perf:start -->` and `<!-- perf:end -->`.
 *
 *   node --import tsx bench/readmeTable.ts
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { BenchResult } from './types.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const START = '<!-- perf:start -->';
const END = '<!-- perf:end -->';

interface Report {
  date: string;
  machine: { node: string; cpu: string; cores: number; memoryGiB: number };
  runs: { module: string; results: BenchResult[]; error?: string }[];
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function fmt(v: number | string): string {
  if (typeof v === 'string') return v;
  if (!Number.isFinite(v)) return String(v);
  const abs = Math.abs(v);
  if (abs >= 100) return v.toFixed(0);
  if (abs >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

export function renderTable(report: Report): string {
  const lines = [
    `Measured ${report.date.slice(0, 10)} on ${report.machine.cpu} (${report.machine.cores} cores, ` +
      `${report.machine.memoryGiB} GiB), Node ${report.machine.node}. Regenerate with ` +
      '`npm run bench && node --import tsx bench/readmeTable.ts`.',
    '',
    '| scenario | figures | vs anchor | target | met | command |',
    '|---|---|---|---|---|---|',
  ];
  for (const run of report.runs) {
    if (run.error) {
      lines.push(`| ${cell(run.module)} | failed: ${cell(run.error.split('\n')[0] ?? '')} | | | | |`);
      continue;
    }
    for (const r of run.results) {
      const figures = Object.entries(r.figures).map(([k, v]) => `${fmt(v)} ${k}`).join(', ');
      const ratio = r.ratio === undefined ? '' : `${fmt(r.ratio)}× ${r.anchor ?? ''}`.trim();
      const met = r.met === undefined ? '' : r.met ? 'yes' : '**no**';
      lines.push(
        `| ${cell(r.scenario)} | ${cell(figures)}${r.notes ? ` (${cell(r.notes)})` : ''} | ${cell(ratio)} | ` +
          `${cell(r.target ?? '')} | ${met} | \`${cell(r.command)}\` |`,
      );
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const report = JSON.parse(await readFile(join(root, 'bench', 'results.json'), 'utf8')) as Report;
  const readmePath = join(root, 'README.md');
  const readme = await readFile(readmePath, 'utf8');
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error(`README.md lacks the ${START} … ${END} markers`);
  const next = readme.slice(0, a + START.length) + '\n' + renderTable(report) + '\n' + readme.slice(b);
  await writeFile(readmePath, next);
  process.stderr.write('README.md performance table updated\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
