/**
 * Runs every `bench/*.bench.ts`, each in its own child process, prints one table and writes
 * `bench/results.json` (`--quick`: a smoke run written to `bench/out/results.quick.json`, never a
 * timing claim: it fails only when a module crashes, never on a missed target).
 *
 *   npm run bench                 # full suite (long on the 2-core reference machine: telephony.bench
 *                                 #   alone takes ~20 min, concurrency ~15 min; each module's time is in bench/README.md)
 *   npm run bench -- --quick      # about three minutes; what CI runs
 *   npm run bench -- eventStage   # only modules whose file name contains 'eventStage'
 *   npm run bench -- --inline     # run modules in this process (debugging; figures less clean)
 *
 * results.json holds one entry per scenario of issue 6 (figures, ratio to the anchor, target,
 * met) plus the other benches, the machine, its load average and the date.
 */
import { spawn } from 'node:child_process';
import { readdir, writeFile, mkdir, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import type { BenchResult, BenchOptions, IssueScenario } from './types.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const inline = args.includes('--inline');
const filters = args.filter((a) => !a.startsWith('--'));
/** A module that takes longer than this is killed and reported as failed (bounded runs). */
const MODULE_TIMEOUT_MS = quick ? 90_000 : 300_000;
/**
 * Full-run limits of modules that need longer: serviceLoad serves 200 whole requests eight times
 * (two schedulers × four cases), each run until every stream is complete and checked; the
 * concurrency search runs each step on ~41 s real streams (steady-state window inside them), up
 * to 12 steps for the engine, its floor and the pool.
 */
const FULL_TIMEOUT_MS_BY_MODULE: Record<string, number> = {
  'serviceLoad.bench.ts': 1_200_000,
  'concurrency.bench.ts': 25 * 60_000,
  // 25 interleaved rounds of three contenders on 41 s captures: 2 min at load 2, past 5 min at load 8.
  'decodeOverhead.bench.ts': 10 * 60_000,
  // Seven contenders' searches (five providers, callers speaking with barge-in off and on), up to
  // 3 coarse rungs and 4 bisections each, 3 trials a step of 7-9 s: ~20 min on a quiet machine;
  // no trial starts after 23 min (bench/telephony.bench.ts FULL_BUDGET_MS).
  'telephony.bench.ts': 27 * 60_000,
};

export const SCENARIO_TITLES: Record<IssueScenario, string> = {
  1: 'Event stage (SSE + JSON + base64 into the ring) vs the naive pipeline',
  2: 'Decode overhead per format vs the raw codec',
  3: 'Latency: event last byte → PCM frame readable',
  4: 'End to end against the local service over loopback',
  5: 'Concurrency: real-time telephony streams (opus 48 kHz → 8 kHz μ-law)',
  6: 'Memory: one 60-minute stream fed as fast as possible',
};

/**
 * Scenario of a result that does not say, by module. (decode.bench.ts and telephonyPath.bench.ts
 * are the codec layer's own benches: "other"; scenarios 2 and 3 are decodeOverhead and latency.)
 */
function scenarioOf(module: string, r: BenchResult): IssueScenario | undefined {
  if (r.issueScenario !== undefined) return r.issueScenario;
  if (module.startsWith('eventStage')) return 1;
  if (module.startsWith('decodeOverhead')) return 2;
  if (module.startsWith('latency.')) return 3; // not latencyCommand (the CLI's own bench)
  if (module.startsWith('endToEnd')) return 4;
  if (module.startsWith('concurrency')) return 5;
  if (module.startsWith('memory')) return 6;
  return undefined;
}

interface ModuleRun {
  module: string;
  results: BenchResult[];
  error?: string;
  seconds: number;
  /** When it ran, for a run carried over from an earlier results file (else: now). */
  date?: string;
}

export interface ScenarioEntry {
  id: IssueScenario;
  title: string;
  /** Every result of the scenario met its target (undefined: none has a verdict, e.g. quick mode). */
  met?: boolean;
  results: (BenchResult & { module: string })[];
}

export interface Report {
  date: string;
  quick: boolean;
  machine: { node: string; cpu: string; cores: number; memoryGiB: number; loadavg1m: number };
  totalSeconds: number;
  scenarios: ScenarioEntry[];
  other: (BenchResult & { module: string })[];
  /** Each module's run; `date` is when it ran (a partial run keeps the other modules' rows and dates). */
  runs: { module: string; date?: string; seconds: number; results: number; error?: string }[];
}

function runChild(file: string): Promise<BenchResult[]> {
  const out = join(tmpdir(), `voicewire-bench-${process.pid}-${file}.json`);
  const argv = ['--expose-gc', '--import', 'tsx', join(here, 'lib', 'runModule.ts'), join(here, file), out];
  if (quick) argv.push('--quick');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'inherit', 'inherit'], cwd: join(here, '..') });
    const limitMs = quick ? MODULE_TIMEOUT_MS : (FULL_TIMEOUT_MS_BY_MODULE[file] ?? MODULE_TIMEOUT_MS);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out after ${limitMs / 1000} s`));
    }, limitMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new Error(`exited with ${signal ?? `code ${code}`}`));
        return;
      }
      readFile(out, 'utf8')
        .then(async (text) => {
          await rm(out, { force: true });
          resolve(JSON.parse(text) as BenchResult[]);
        })
        .catch(reject);
    });
  });
}

async function runInline(file: string): Promise<BenchResult[]> {
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { run: (o: BenchOptions) => Promise<BenchResult[]> };
  return mod.run({ quick });
}

async function main(): Promise<void> {
  const startedAll = performance.now();
  const files = (await readdir(here)).filter((f) => f.endsWith('.bench.ts')).sort();
  const selected = files.filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
  const runs: ModuleRun[] = [];
  for (const file of selected) {
    const started = performance.now();
    process.stderr.write(`bench: ${file}${quick ? ' (quick)' : ''} …\n`);
    try {
      const results = inline ? await runInline(file) : await runChild(file);
      runs.push({ module: file, results, seconds: (performance.now() - started) / 1000 });
    } catch (err) {
      const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
      process.stderr.write(`bench: ${file} failed: ${message}\n`);
      runs.push({ module: file, results: [], error: message, seconds: (performance.now() - started) / 1000 });
    }
    process.stderr.write(`bench: ${file} took ${runs.at(-1)!.seconds.toFixed(1)} s\n`);
  }
  const outPath = quick ? join(here, 'out', 'results.quick.json') : join(here, 'results.json');
  // A full run of some modules (`npm run bench -- NAME`) replaces only their rows: the others keep
  // the rows (and the dates, in `runs`) of the run that measured them.
  const kept = quick || filters.length === 0 ? [] : await earlierRuns(outPath, new Set(selected));
  const report = buildReport([...kept, ...runs], (performance.now() - startedAll) / 1000);
  await mkdir(dirname(outPath), { recursive: true });
  await writeFile(outPath, JSON.stringify(report, null, 2) + '\n');
  printTable(report);
  process.stderr.write(`bench: ${runs.length} modules in ${report.totalSeconds.toFixed(0)} s; wrote ${outPath}\n`);
  // Only a crash fails the run: a missed target is a finding, reported in the table.
  if (runs.some((r) => r.error)) process.exitCode = 1;
}

/** The module runs of an earlier results file, rebuilt from its rows, less the modules run now. */
async function earlierRuns(path: string, replaced: Set<string>): Promise<ModuleRun[]> {
  let earlier: Report;
  try {
    earlier = JSON.parse(await readFile(path, 'utf8')) as Report;
  } catch {
    return [];
  }
  const rows = [...earlier.scenarios.flatMap((x) => x.results), ...earlier.other] as (BenchResult & { module?: string })[];
  return earlier.runs
    .filter((r) => !replaced.has(r.module))
    .map((r) => ({
      module: r.module,
      seconds: r.seconds,
      date: r.date ?? earlier.date,
      results: rows.filter((x) => x.module === r.module).map(({ module: _module, ...x }) => x),
      ...(r.error === undefined ? {} : { error: r.error }),
    }));
}

export function buildReport(runs: ModuleRun[], totalSeconds: number): Report {
  const byScenario = new Map<IssueScenario, (BenchResult & { module: string })[]>();
  const other: (BenchResult & { module: string })[] = [];
  for (const run of runs) {
    for (const r of run.results) {
      const { met: _met, ...unjudged } = r; // a quick run's figures judge nothing
      const tagged = quick ? { ...unjudged, module: run.module } : { ...r, module: run.module };
      const id = scenarioOf(run.module, r);
      if (id === undefined) other.push(tagged);
      else byScenario.set(id, [...(byScenario.get(id) ?? []), tagged]);
    }
  }
  const scenarios: ScenarioEntry[] = ([1, 2, 3, 4, 5, 6] as IssueScenario[]).map((id) => {
    const results = byScenario.get(id) ?? [];
    const verdicts = results.filter((r) => r.met !== undefined).map((r) => r.met);
    return { id, title: SCENARIO_TITLES[id], ...(verdicts.length > 0 ? { met: verdicts.every(Boolean) } : {}), results };
  });
  const now = new Date().toISOString();
  return {
    date: now,
    quick,
    machine: {
      node: process.version,
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      loadavg1m: Math.round(loadavg()[0]! * 100) / 100,
    },
    totalSeconds: Math.round(totalSeconds),
    scenarios,
    other,
    runs: runs.map((r) => ({
      module: r.module,
      date: r.date ?? now,
      seconds: Math.round(r.seconds * 10) / 10,
      results: r.results.length,
      ...(r.error ? { error: r.error } : {}),
    })),
  };
}

function printTable(report: Report): void {
  const row = (id: string, x: BenchResult): Record<string, string> => ({
    '#': id,
    scenario: x.scenario,
    figures: Object.entries(x.figures)
      .map(([k, v]) => `${typeof v === 'number' ? formatNumber(v) : v} ${k}`)
      .join(', '),
    ratio: x.ratio === undefined ? '' : `${formatNumber(x.ratio)}× ${x.anchor ?? ''}`.trim(),
    target: x.target ?? '',
    met: x.met === undefined ? '' : x.met ? 'yes' : 'NO',
  });
  const rows = [
    ...report.scenarios.flatMap((s) => s.results.map((x) => row(String(s.id), x))),
    ...report.other.map((x) => row('', x)),
    ...report.runs
      .filter((r) => r.error)
      .map((r) => ({ '#': '', scenario: `${r.module}: FAILED`, figures: r.error!.split('\n')[0]!, ratio: '', target: '', met: '' })),
  ];
  console.table(rows);
  for (const s of report.scenarios) {
    process.stderr.write(`scenario ${s.id}: ${verdict(s)} — ${s.title}\n`);
  }
}

/** In words: not measured / reported (no target) / no verdict (quick run) / met / MISSED. */
export function verdict(s: ScenarioEntry): string {
  if (s.results.length === 0) return 'not measured';
  if (s.results.every((r) => r.target === undefined)) return 'reported (the issue sets no target)';
  if (s.met === undefined) return 'no verdict (smoke run)';
  return s.met ? 'target met' : 'TARGET MISSED';
}

export function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const abs = Math.abs(v);
  if (abs >= 100) return v.toFixed(0);
  if (abs >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
