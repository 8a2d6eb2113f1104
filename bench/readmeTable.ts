/**
 * Regenerates the README's performance table from `bench/results.json`, between the markers
 * `<!-- perf:start -->` and `<!-- perf:end -->`: one section per scenario of issue 6 (each
 * figure, its anchor ratio, the target, met or not, and the command), then the other benches.
 * Rows keep their input's label ("real:" for captures recorded from the local service, where
 * every target is judged; "synthetic:" for looped fixtures), real rows first.
 *
 *   node --import tsx bench/readmeTable.ts            # rewrite README.md
 *   node --import tsx bench/readmeTable.ts --print    # print the table only
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { BenchResult } from './types.js';
import type { Report, ScenarioEntry } from './run.js';

/** Same words as bench/run.ts (kept here so that importing this file never runs the suite). */
function verdict(s: ScenarioEntry): string {
  if (s.results.length === 0) return 'not measured';
  if (s.results.every((r) => r.target === undefined)) return 'reported (the issue sets no target)';
  if (s.met === undefined) return 'no verdict (smoke run)';
  return s.met ? 'target met' : 'TARGET MISSED';
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const START = '<!-- perf:start -->';
const END = '<!-- perf:end -->';

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

const HEADER = ['| scenario | figures | vs anchor | target | met |', '|---|---|---|---|---|'];

function row(r: BenchResult): string {
  const figures = Object.entries(r.figures).map(([k, v]) => `${fmt(v)} ${k}`).join(', ');
  const ratio = r.ratio === undefined ? '' : `${fmt(r.ratio)}× ${r.anchor ?? ''}`.trim();
  const met = r.met === undefined ? '' : r.met ? 'yes' : '**no**';
  return `| ${cell(r.scenario)} | ${cell(figures)}${r.notes ? ` <br>_${cell(r.notes)}_` : ''} | ${cell(ratio)} | ${cell(r.target ?? '')} | ${met} |`;
}

/** Where a row's input came from, by its scenario label's prefix ("real:" / "synthetic:"). */
function inputKind(r: BenchResult): number {
  return r.scenario.startsWith('real:') ? 0 : r.scenario.startsWith('synthetic:') ? 2 : 1;
}

/** Rows measured on real captures first (the verdicts), synthetic ones last; order kept within each. */
function byInput(results: BenchResult[]): BenchResult[] {
  return results.map((r, i) => ({ r, i })).sort((a, b) => inputKind(a.r) - inputKind(b.r) || a.i - b.i).map((x) => x.r);
}

/** Commands, once each, in order of first use. */
function commands(results: BenchResult[]): string[] {
  return [...new Set(results.map((r) => r.command))];
}

export function renderTable(report: Report): string {
  const m = report.machine;
  const lines = [
    `Measured ${report.date.slice(0, 16).replace('T', ' ')} UTC on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB, ` +
      `load average ${m.loadavg1m} at the end), Node ${m.node}; the whole suite took ${report.totalSeconds} s. ` +
      'Regenerate with `npm run bench && node --import tsx bench/readmeTable.ts`.',
  ];
  for (const s of report.scenarios) {
    const v = verdict(s);
    lines.push('', `**${s.id}. ${s.title}** — ${v === 'TARGET MISSED' ? '**target missed**' : v}`, '', ...HEADER, ...byInput(s.results).map(row));
    if (s.results.length > 0) lines.push('', ...commands(s.results).map((c) => `\`${c}\``));
  }
  if (report.other.length > 0) {
    lines.push(
      '',
      '**Other benches** (each area\'s own bench; `decode.bench.ts` measures the codec layer on synthetic 4 KiB events: the scenario 2 verdicts, on real captures, are the ones above)',
      '',
      ...HEADER,
      ...byInput(report.other).map(row),
      '',
      ...commands(report.other).map((c) => `\`${c}\``),
    );
  }
  const failed = report.runs.filter((r) => r.error);
  if (failed.length > 0) lines.push('', ...failed.map((r) => `- ${r.module} failed: ${cell(r.error!.split('\n')[0] ?? '')}`));
  return lines.join('\n');
}

async function main(): Promise<void> {
  const report = JSON.parse(await readFile(join(root, 'bench', 'results.json'), 'utf8')) as Report;
  if (process.argv.includes('--print')) {
    process.stdout.write(renderTable(report) + '\n');
    return;
  }
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
