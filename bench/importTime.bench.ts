/**
 * What importing each entry of the package costs: `voicewire` (the root), `voicewire/client`,
 * `/webhooks`, `/service` and `/telephony`, against the engine module alone
 * (`dist/engine/SpeechPipeline.js`), the least a user of the engine can load.
 *
 * Each import runs in a fresh `node` process (nothing cached, as a user's program meets it) and
 * is timed inside that process around the `await import()` alone, so Node's own start-up, the
 * same for every entry, does not water the ratios down. The judged figure is the process CPU time
 * of the import (`process.cpuUsage()`, every thread: V8 compiles on background threads, and that
 * work is the import's too); the wall time is printed beside it, but on this shared machine it
 * also measures the neighbours. The entries take turns round by round, so a change of load falls
 * on all of them alike; each figure is the median of the rounds.
 *
 * It measures the built package (`dist/`, as `npm install` builds it): run `npm run build` first
 * after changing src/.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { median, round } from './lib/stats.js';
import type { BenchOptions, BenchResult } from './types.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const ANCHOR = 'engine/SpeechPipeline.js';
/** The package's entries (its exports map) and the module of each, under dist/. */
const ENTRIES: ReadonlyArray<readonly [name: string, module: string]> = [
  ['engine module alone', ANCHOR],
  ['voicewire', 'index.js'],
  ['voicewire/client', 'client/index.js'],
  ['voicewire/webhooks', 'webhooks/index.js'],
  ['voicewire/service', 'service/index.js'],
  ['voicewire/telephony', 'telephony/index.js'],
];
const ROUNDS = 9;
const QUICK_ROUNDS = 2;
/** The root entry may cost this much more than the engine module alone. */
const ROOT_TARGET_RATIO = 1.3;
const CHILD_TIMEOUT_MS = 30_000;

/** Run in the fresh process: time one dynamic import, print `{ cpuMs, wallMs }`. */
const PROBE = `
const url = process.argv[1];
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await import(url);
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
process.stdout.write(JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, wallMs }));
`;

interface Sample {
  cpuMs: number;
  wallMs: number;
}

function importOnce(file: string): Sample {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE, pathToFileURL(file).href], {
    cwd: root,
    encoding: 'utf8',
    timeout: CHILD_TIMEOUT_MS,
  });
  if (r.status !== 0) throw new Error(`importing ${file} failed (${r.status ?? r.signal}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Sample;
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const dist = join(root, 'dist');
  for (const [, module] of ENTRIES) {
    if (!existsSync(join(dist, module))) throw new Error(`dist/${module} is missing: run \`npm run build\` first`);
  }
  const rounds = opts.quick ? QUICK_ROUNDS : ROUNDS;
  const samples = new Map<string, Sample[]>(ENTRIES.map(([name]) => [name, []]));
  for (let i = 0; i < rounds; i++) {
    for (const [name, module] of ENTRIES) samples.get(name)!.push(importOnce(join(dist, module)));
  }
  const cpuOf = (name: string): number => median(samples.get(name)!.map((s) => s.cpuMs));
  const anchorCpu = cpuOf(ENTRIES[0]![0]);
  return ENTRIES.map(([name, module]): BenchResult => {
    const cpu = cpuOf(name);
    const ratio = round(cpu / anchorCpu, 2);
    const isRoot = name === 'voicewire';
    return {
      scenario: `import time / ${name} (dist/${module}) / fresh process`,
      figures: {
        'import CPU ms (median)': round(cpu, 1),
        'import wall ms (median)': round(median(samples.get(name)!.map((s) => s.wallMs)), 1),
        runs: rounds,
      },
      ...(module === ANCHOR ? {} : { anchor: 'the engine module alone', ratio }),
      ...(isRoot
        ? { target: `≤ ${ROOT_TARGET_RATIO}× the engine module alone`, ...(opts.quick ? {} : { met: ratio <= ROOT_TARGET_RATIO }) }
        : {}),
      command: `npm run build && npm run bench -- importTime`,
    };
  });
}
