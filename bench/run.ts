/**
 * Runs every `bench/*.bench.ts`, prints one table and writes `bench/results.json`
 * (`--quick`: a smoke run written to `bench/out/results.quick.json`, never a timing claim).
 *
 *   npm run bench                 # full suite (< 10 min on the 2-core reference machine)
 *   npm run bench -- --quick      # about a minute; what CI runs
 *   npm run bench -- eventStage   # only modules whose name contains 'eventStage'
 */
import { readdir, writeFile, mkdir } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import type { BenchResult, BenchOptions } from './types.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const filters = args.filter((a) => !a.startsWith('--'));

interface ModuleRun {
  module: string;
  results: BenchResult[];
  error?: string;
  seconds: number;
}

async function main(): Promise<void> {
  const files = (await readdir(here)).filter((f) => f.endsWith('.bench.ts')).sort();
  const selected = files.filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
  const runs: ModuleRun[] = [];
  const opts: BenchOptions = { quick };
  for (const file of selected) {
    const started = performance.now();
    process.stderr.write(`bench: ${file}${quick ? ' (quick)' : ''} …\n`);
    try {
      const mod = (await import(pathToFileURL(join(here, file)).href)) as {
        run: (o: BenchOptions) => Promise<BenchResult[]>;
      };
      const results = await mod.run(opts);
      runs.push({ module: file, results, seconds: (performance.now() - started) / 1000 });
    } catch (err) {
      const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
      process.stderr.write(`bench: ${file} failed: ${message}\n`);
      runs.push({ module: file, results: [], error: message, seconds: (performance.now() - started) / 1000 });
    }
  }
  const machine = {
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
  };
  const report = { date: new Date().toISOString(), quick, machine, runs };
  const outPath = quick ? join(here, 'out', 'results.quick.json') : join(here, 'results.json');
  await mkdir(dirname(outPath), { recursive: true });
  await writeFile(outPath, JSON.stringify(report, null, 2) + '\n');
  printTable(runs);
  process.stderr.write(`bench: wrote ${outPath}\n`);
  if (runs.some((r) => r.error)) process.exitCode = 1;
}

function printTable(runs: ModuleRun[]): void {
  const rows = runs.flatMap((r) =>
    r.error
      ? [{ scenario: `${r.module}: FAILED`, figures: '', ratio: '', target: '', met: '' }]
      : r.results.map((x) => ({
          scenario: x.scenario,
          figures: Object.entries(x.figures)
            .map(([k, v]) => `${typeof v === 'number' ? formatNumber(v) : v} ${k}`)
            .join(', '),
          ratio: x.ratio === undefined ? '' : `${formatNumber(x.ratio)}× ${x.anchor ?? ''}`.trim(),
          target: x.target ?? '',
          met: x.met === undefined ? '' : x.met ? 'yes' : 'NO',
        })),
  );
  console.table(rows);
}

export function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const abs = Math.abs(v);
  if (abs >= 100) return v.toFixed(0);
  if (abs >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

await main();
