/**
 * Child-process entry of the bench runner: runs one `bench/*.bench.ts` module and writes its
 * results as JSON to a file. Each module gets a fresh process so that one module's heap, RSS,
 * JIT state and leftover timers never colour another's figures (memory growth, allocation per
 * event), and a crash or hang in one module is reported without losing the others.
 *
 *   node --expose-gc --import tsx bench/lib/runModule.ts <module.bench.ts> <out.json> [--quick]
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import type { BenchOptions, BenchResult } from '../types.js';

const [file, out] = process.argv.slice(2);
if (!file || !out) {
  process.stderr.write('usage: runModule.ts <module.bench.ts> <out.json> [--quick]\n');
  process.exit(2);
}
const opts: BenchOptions = { quick: process.argv.includes('--quick') };
let settled = false;
process.on('exit', () => {
  // Exit code 13: the event loop emptied while run() was still pending (a promise nothing settles).
  if (!settled)
    process.stderr.write(
      `bench: ${file}: run() never settled; last stage: ${String((globalThis as { __benchStage?: string }).__benchStage ?? 'unknown')}\n`,
    );
});
const mod = (await import(pathToFileURL(resolve(file)).href)) as { run: (o: BenchOptions) => Promise<BenchResult[]> };
const results = await mod.run(opts);
settled = true;
writeFileSync(out, JSON.stringify(results));
// Leftover handles (a worker, a socket) must not keep the child alive past its results.
process.exit(0);
