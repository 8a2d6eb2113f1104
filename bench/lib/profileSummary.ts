/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self time per function, and per file
 * group (voicewire src/, node internals, dependencies, GC, idle), top first.
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx <script>
 *   node --import tsx bench/lib/profileSummary.ts /tmp/prof/*.cpuprofile [--top=25]
 *
 * (Several files: each is summarised; with tsx there is one per thread, the loader's is tiny.)
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileLine {
  name: string;
  ms: number;
  share: number;
}

function group(url: string, name: string): string {
  if (name === '(garbage collector)') return 'GC';
  if (name === '(idle)') return 'idle';
  if (name === '(program)') return 'program (native, unattributed)';
  if (url.includes('/src/')) return `voicewire ${url.slice(url.indexOf('/src/') + 1).replace(/^src\//, 'src/')}`;
  if (url.includes('node_modules/'))
    return `dep ${url
      .split('node_modules/')[1]!
      .split('/')
      .slice(0, url.includes('node_modules/@') ? 2 : 1)
      .join('/')}`;
  if (url.startsWith('node:')) return `node ${url.slice(5).split('/').slice(0, 2).join('/')}`;
  if (url === '') return `native ${name}`;
  return url.split('/').slice(-2).join('/');
}

export function summarizeProfile(profile: Profile, top = 25): { functions: ProfileLine[]; groups: ProfileLine[]; totalMs: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) self.set(samples[i]!, (self.get(samples[i]!) ?? 0) + (deltas[i] ?? 0) / 1000);
  const fn = new Map<string, number>();
  const grp = new Map<string, number>();
  let total = 0;
  for (const [id, ms] of self) {
    const n = byId.get(id)!;
    const { functionName, url, lineNumber } = n.callFrame;
    const name =
      `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*\/(src|node_modules|bench)\//, '$1/')}:${lineNumber + 1}` : ''}`.trim();
    fn.set(name, (fn.get(name) ?? 0) + ms);
    const g = group(url, functionName);
    grp.set(g, (grp.get(g) ?? 0) + ms);
    total += ms;
  }
  const lines = (m: Map<string, number>): ProfileLine[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => ({ name, ms: Math.round(ms), share: Math.round((ms / total) * 1000) / 10 }));
  return { functions: lines(fn), groups: lines(grp), totalMs: Math.round(total) };
}

if (process.argv[1]?.endsWith('profileSummary.ts')) {
  const args = process.argv.slice(2);
  const top = Number(args.find((a) => a.startsWith('--top='))?.slice(6) ?? 25);
  const files = args.filter((a) => !a.startsWith('--'));
  if (files.length === 0) throw new Error('usage: profileSummary.ts <file.cpuprofile>… [--top=25]');
  for (const file of files) {
    const s = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as Profile, top);
    if (s.totalMs < 50) continue;
    console.log(`${file}: ${s.totalMs} ms sampled`);
    console.log('\nby group (self time):');
    for (const l of s.groups) console.log(`${String(l.share).padStart(5)} %  ${String(l.ms).padStart(6)} ms  ${l.name}`);
    console.log('\nby function (self time):');
    for (const l of s.functions) console.log(`${String(l.share).padStart(5)} %  ${String(l.ms).padStart(6)} ms  ${l.name}`);
  }
}
