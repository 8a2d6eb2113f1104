/**
 * Counts V8's optimisations and de-optimisations inside a run's measuring window, from a
 * `node --trace-opt --trace-deopt` log whose window is marked by `@@window-start` and
 * `@@window-end` lines (bench/lib/churnStreams.ts; bench/lib/streamsProcess.ts with
 * STREAMS_TRACE_MARKS=1). Prints one row per function and event: TurboFan compilations (with
 * their summed background compile time), eager/lazy/soft bailouts by reason, and optimized code
 * thrown away ("marking dependent code … reason: weak objects / code dependencies"); per 100
 * stream starts when the end marker gives `inWindow=<starts>`. Not a bench module.
 *
 *   node --import tsx bench/lib/deoptCount.ts trace.txt
 */
import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (file === undefined) throw new Error('usage: deoptCount.ts <trace file>');
const lines = readFileSync(file, 'utf8').split('\n');
interface Row {
  count: number;
  ms: number;
}
const rows = new Map<string, Row>();
const add = (key: string, ms: number): void => {
  const r = rows.get(key) ?? { count: 0, ms: 0 };
  r.count++;
  r.ms += ms;
  rows.set(key, r);
};
/** Per `@@hundred` bucket (every 100 stream starts, whether in the window or not): events that are not compilations, and compilations. */
const buckets: { label: string; deopts: string[]; compiled: string[]; compiles: number; ms: number }[] = [
  { label: 'before the first 100 starts', deopts: [], compiled: [], compiles: 0, ms: 0 },
];
let inside = false;
let starts = NaN;
let windows = 0;
for (const line of lines) {
  if (line.startsWith('@@window-start')) {
    inside = true;
    windows++;
    continue;
  }
  if (line.startsWith('@@window-end')) {
    inside = false;
    const m = /inWindow=(\d+)/.exec(line);
    if (m) starts = (Number.isNaN(starts) ? 0 : starts) + Number(m[1]);
    continue;
  }
  if (line.startsWith('@@hundred')) {
    buckets.push({ label: `after ${line.split(' ')[1]} starts`, deopts: [], compiled: [], compiles: 0, ms: 0 });
    continue;
  }
  const bucket = buckets.at(-1)!;
  const c = /^\[completed compiling .* - took ([\d.]+), ([\d.]+), ([\d.]+) ms\]/.exec(line);
  if (c) {
    bucket.compiles++;
    bucket.compiled.push(/<JSFunction ([^ >(]*)/.exec(line)?.[1] || '(anonymous)');
    bucket.ms += Number(c[1]) + Number(c[2]) + Number(c[3]);
  } else if (/^\[(bailout \(kind|marking dependent code)/.test(line)) {
    const f = /<JSFunction ([^ >]*)/.exec(line)?.[1] ?? /<SharedFunctionInfo ?([^>]*)>/.exec(line)?.[1] ?? '?';
    const why = /reason: ([^)\]]*)/.exec(line)?.[1] ?? '?';
    bucket.deopts.push(`${f || '(anonymous)'} (${why})`);
  }
  if (!inside) continue;
  const fn = /<JSFunction ([^ >(]*)/.exec(line)?.[1] ?? /<SharedFunctionInfo ?([^>]*)>/.exec(line)?.[1] ?? '?';
  const name = fn === '' ? '(anonymous)' : fn;
  let m: RegExpExecArray | null;
  if ((m = /^\[completed compiling .* - took ([\d.]+), ([\d.]+), ([\d.]+) ms\]/.exec(line))) {
    add(`${name}\tcompiled (TurboFan)`, Number(m[1]) + Number(m[2]) + Number(m[3]));
  } else if ((m = /^\[bailout \(kind: ([^,]+), reason: ([^)]*)\)/.exec(line))) {
    add(`${name}\tbailout ${m[1]}: ${m[2]}`, 0);
  } else if ((m = /^\[marking dependent code .* reason: (.*)\]/.exec(line))) {
    add(`${name}\tcode thrown away: ${m[1]}`, 0);
  } else if ((m = /^\[aborted optimizing .* because: (.*)\]/.exec(line))) {
    add(`${name}\taborted: ${m[1]}`, 0);
  }
}
const per = Number.isNaN(starts) || starts === 0 ? 1 : 100 / starts;
console.log(
  `windows ${windows}, stream starts in them ${Number.isNaN(starts) ? '?' : starts}${per === 1 ? '' : ' (counts below per 100 starts)'}`,
);
const sorted = [...rows.entries()].sort((a, b) => a[0].split('\t')[1]!.localeCompare(b[0].split('\t')[1]!) || b[1].count - a[1].count);
let total = 0;
let totalMs = 0;
for (const [key, r] of sorted) {
  const [f, what] = key.split('\t');
  total += r.count;
  totalMs += r.ms;
  console.log(`${(r.count * per).toFixed(2).padStart(7)}  ${f!.padEnd(28)} ${what}${r.ms > 0 ? `  (${r.ms.toFixed(1)} ms compile)` : ''}`);
}
if (buckets.length > 1) {
  console.log('\nper 100 stream starts, whole run (compilations, then de-optimisations and code thrown away):');
  for (const b of buckets)
    console.log(
      `  ${b.label.padEnd(28)} ${String(b.compiles).padStart(4)} compiled (${b.ms.toFixed(1)} ms)  ${b.deopts.length} deopts: ` +
        b.deopts.join(', ') +
        (b.label.startsWith('before') ? '' : `; compiled: ${b.compiled.join(', ')}`),
    );
}
console.log(`total events ${total} (${(total * per).toFixed(2)} per 100 starts), compile ${totalMs.toFixed(1)} ms`);
