/**
 * Regenerates the performance tables from `bench/results.json`, between the markers
 * `<!-- perf:start -->` and `<!-- perf:end -->` of two files:
 * - `bench/README.md` gets every row: one section per scenario (each figure, its anchor ratio,
 *   the target, met or not, and the command), then the other benches;
 * - `README.md` gets the short table a reader of the front page needs: one row per section, with
 *   the range of its ratios, its targets and how many rows met them, and a link to the full one.
 * Rows keep their input's label ("real:" for captures recorded from the local service, where
 * every target is judged; "synthetic:" for looped fixtures), real rows first.
 *
 *   node --import tsx bench/readmeTable.ts            # rewrite both files
 *   node --import tsx bench/readmeTable.ts --print    # print the full table only
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
  const figures = Object.entries(r.figures)
    .map(([k, v]) => `${fmt(v)} ${k}`)
    .join(', ');
  const ratio = r.ratio === undefined ? '' : `${fmt(r.ratio)}× ${r.anchor ?? ''}`.trim();
  const met = r.met === undefined ? '' : r.met ? 'yes' : '**no**';
  return (
    `| ${cell(r.scenario)} | ${cell(figures)}${r.notes ? ` <br>_${cell(r.notes)}_` : ''}` +
    ` | ${cell(ratio)} | ${cell(r.target ?? '')} | ${met} |`
  );
}

/** Where a row's input came from, by its scenario label's prefix ("real:" / "synthetic:"). */
function inputKind(r: BenchResult): number {
  return r.scenario.startsWith('real:') ? 0 : r.scenario.startsWith('synthetic:') ? 2 : 1;
}

/** Rows measured on real captures first (the verdicts), synthetic ones last; order kept within each. */
function byInput(results: BenchResult[]): BenchResult[] {
  return results
    .map((r, i) => ({ r, i }))
    .sort((a, b) => inputKind(a.r) - inputKind(b.r) || a.i - b.i)
    .map((x) => x.r);
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
  const dates = [...new Set(report.runs.map((r) => (r.date ?? report.date).slice(0, 16)))];
  if (dates.length > 1) {
    lines.push(
      '',
      'Modules measured at different times (a partial run replaces only its modules): ' +
        report.runs
          .map((r) => `${r.module.replace('.bench.ts', '')} ${(r.date ?? report.date).slice(0, 16).replace('T', ' ')}`)
          .join(', ') +
        ' UTC.',
    );
  }
  for (const s of report.scenarios) {
    const v = verdict(s);
    lines.push(
      '',
      `**${s.id}. ${s.title}** — ${v === 'TARGET MISSED' ? '**target missed**' : v}`,
      '',
      ...HEADER,
      ...byInput(s.results).map(row),
    );
    if (s.results.length > 0) lines.push('', ...commands(s.results).map((c) => `\`${c}\``));
  }
  if (report.other.length > 0) {
    lines.push(
      '',
      "**Other benches** (each area's own bench; `decode.bench.ts` measures the codec layer on synthetic 4 KiB events: " +
        'the scenario 2 verdicts, on real captures, are the ones above)',
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

/** One summary row: a section's ratio range, its targets and how many of its rows met them. */
function summaryRow(title: string, verdictText: string, results: BenchResult[]): string {
  const ratios = results.filter((r) => r.ratio !== undefined);
  const range =
    ratios.length === 0
      ? ''
      : rangeText(
          ratios.map((r) => r.ratio!),
          ratios[0]!.anchor ?? '',
        );
  const targets = [...new Set(results.map((r) => r.target).filter((t): t is string => t !== undefined))];
  const judged = results.filter((r) => r.met !== undefined);
  const met = judged.length === 0 ? verdictText : `${judged.filter((r) => r.met).length} of ${judged.length} rows met`;
  return `| ${cell(title)} | ${results.length} | ${cell(range)} | ${cell(targets.join('; '))} | ${cell(met)} |`;
}

function rangeText(values: number[], anchor: string): string {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return `${lo === hi ? fmt(lo) : `${fmt(lo)}–${fmt(hi)}`}× ${anchor}`.trim();
}

/** The other benches, grouped by the command that reproduces them (one module each). */
function otherGroups(results: BenchResult[]): Array<{ title: string; results: BenchResult[] }> {
  const groups = new Map<string, BenchResult[]>();
  for (const r of results) groups.set(r.command, [...(groups.get(r.command) ?? []), r]);
  return [...groups.values()].map((rs) => ({ title: rs[0]!.scenario.split(' / ')[0]!, results: rs }));
}

export function renderSummary(report: Report): string {
  const m = report.machine;
  const oldest = report.runs.map((r) => r.date ?? report.date).sort()[0] ?? report.date;
  const when =
    oldest.slice(0, 16) === report.date.slice(0, 16) ? report.date.slice(0, 16) : `${oldest.slice(0, 16)} to ${report.date.slice(0, 16)}`;
  const lines = [
    `Measured ${when.replace(/T/g, ' ')} UTC on ${m.cores} cores (load average ${m.loadavg1m} at the end of the last run), ` +
      `Node ${m.node}. Every row, figure, date and command: [bench/README.md](bench/README.md#the-full-table).`,
    '',
    '| what | rows | vs anchor | target | met |',
    '|---|---|---|---|---|',
    ...report.scenarios.filter((s) => s.results.length > 0).map((s) => summaryRow(`${s.id}. ${s.title}`, verdict(s), s.results)),
    ...otherGroups(report.other).map((g) => summaryRow(g.title, '', g.results)),
  ];
  return lines.join('\n');
}

async function replaceBetweenMarkers(path: string, text: string): Promise<void> {
  const doc = await readFile(path, 'utf8');
  const a = doc.indexOf(START);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${path} lacks the ${START} … ${END} markers`);
  await writeFile(path, doc.slice(0, a + START.length) + '\n' + text + '\n' + doc.slice(b));
}

async function main(): Promise<void> {
  const report = JSON.parse(await readFile(join(root, 'bench', 'results.json'), 'utf8')) as Report;
  if (process.argv.includes('--print')) {
    process.stdout.write(renderTable(report) + '\n');
    return;
  }
  await replaceBetweenMarkers(join(root, 'bench', 'README.md'), renderTable(report));
  await replaceBetweenMarkers(join(root, 'README.md'), renderSummary(report));
  process.stderr.write('bench/README.md and README.md performance tables updated\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
