/**
 * Every reference resolves inside the repository: relative Markdown links (and their `#anchor`s),
 * file paths named in the docs, and `@see` targets and path mentions in source comments. The
 * repository stands alone: a file it does not hold (a spec kept elsewhere, a sibling checkout)
 * cannot be read by whoever reads the code, so its facts belong in `docs/` instead. Docs and
 * comments also speak of the code, not of the people who wrote it.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { headingAnchors } from './markdown.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Top-level folders a path mention starts with (`src/sse/SseFramer.ts`, `native-notes/opus.md`, …),
 * and files that used to be referenced from outside the repository. */
const TOP = ['src', 'test', 'bench', 'examples', 'native-notes', 'docs', 'bin', 'shared'];
const OUTSIDE_FILES = ['ENGINE-CONTRACT.md', 'service-interface.md', 'service-facts.md', 'ENGINEERING.md'];
/** A path-like token: a repo folder and a slash (optionally behind `./` or `../`), anything behind
 * `../`, or one of {@link OUTSIDE_FILES} named alone; with an optional `#anchor`. */
const PATH_MENTION = new RegExp(
  String.raw`(?<![\w@.\/-])((?:\.\.?\/)*(?:${TOP.join('|')})\/[\w.\/-]*` +
    String.raw`|(?:\.\.\/)+[\w.\/-]*\w|(?:${OUTSIDE_FILES.map((f) => f.replace('.', '\\.')).join('|')}))(#[\w-]+)?`,
  'g',
);
/** Output folders (git-ignored): a path under them names what a command writes, not a file. */
const OUTPUT_DIRS = ['bench/out/', 'dist/', 'coverage/'];
const LINK = /\]\(([^)\s]+)\)/g;
const PEOPLE = /\bengineers?\b|\bengineer's\b/i;

function walk(dir: string, keep: (file: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name.startsWith('.') ? [] : walk(p, keep);
    return keep(p) ? [p] : [];
  });
}

const markdownFiles = [
  join(root, 'README.md'),
  join(root, 'bench/README.md'),
  ...walk(join(root, 'native-notes'), (f) => f.endsWith('.md')),
  ...walk(join(root, 'docs'), (f) => f.endsWith('.md')),
].filter((f) => existsSync(f));
const sourceFiles = ['src', 'test', 'bench', 'examples'].flatMap((d) => walk(join(root, d), (f) => /\.(ts|mts|mjs|js)$/.test(f)));

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let a = anchorCache.get(file);
  if (a === undefined) anchorCache.set(file, (a = headingAnchors(readFileSync(file, 'utf8'))));
  return a;
}

/** Why `target` (from `file`) does not resolve, or null when it does: a path relative to the file
 * or to the repository root, with an optional `#anchor` that must be a heading of a .md target. */
function unresolved(file: string, target: string): string | null {
  if (OUTPUT_DIRS.some((d) => target.startsWith(d))) return null;
  const hash = target.indexOf('#');
  const path = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? '' : target.slice(hash + 1);
  const candidates = path === '' ? [file] : [join(dirname(file), path), join(root, path)];
  const found = candidates.find((c) => c.startsWith(root) && existsSync(c));
  if (found === undefined) return `${target}: no such file in the repository`;
  if (anchor !== '' && statSync(found).isFile() && found.endsWith('.md') && !anchorsOf(found).has(anchor)) {
    return `${target}: no heading #${anchor} in ${relative(root, found)}`;
  }
  return null;
}

/** The comments of a source file, with the line each starts on (strings and code left out). */
function comments(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  const re = /\/\*[\s\S]*?\*\/|\/\/[^\n]*/g;
  for (const m of text.matchAll(re)) {
    // Skip a comment opener inside a string, and `//` in a URL, on the same line (a crude but
    // sufficient check).
    const lineStart = text.lastIndexOf('\n', m.index) + 1;
    const before = text.slice(lineStart, m.index);
    if (/['"`][^'"`]*$/.test(before)) continue;
    if (m[0].startsWith('//') && before.endsWith(':')) continue;
    out.push({ line: text.slice(0, m.index).split('\n').length, text: m[0] });
  }
  return out;
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

describe('references resolve inside the repository', () => {
  it('relative links and their anchors in the Markdown docs', () => {
    const bad: string[] = [];
    for (const file of markdownFiles) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(LINK)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
        const why = unresolved(file, target);
        if (why !== null) bad.push(`${relative(root, file)}:${lineOf(text, m.index)}: ${why}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('file paths named in the Markdown docs', () => {
    const bad: string[] = [];
    for (const file of markdownFiles) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(PATH_MENTION)) {
        const why = unresolved(file, m[0]);
        if (why !== null) bad.push(`${relative(root, file)}:${lineOf(text, m.index)}: ${why}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('@see targets and path mentions in source comments', () => {
    const bad: string[] = [];
    for (const file of sourceFiles) {
      const text = readFileSync(file, 'utf8');
      for (const c of comments(text)) {
        const targets = [...c.text.matchAll(PATH_MENTION)].map((m) => ({ at: m.index, ref: m[0] }));
        for (const m of c.text.matchAll(/@see\s+(\S+)/g)) {
          const ref = m[1]!;
          if (/^(https?:|\{@link|[A-Z]\w*\b)/.test(ref) || !/[/.]/.test(ref)) continue; // URLs and symbols
          targets.push({ at: m.index, ref });
        }
        for (const t of targets) {
          const why = unresolved(file, t.ref.replace(/[.,;:)]+$/, ''));
          if (why !== null) bad.push(`${relative(root, file)}:${c.line + lineOf(c.text, t.at) - 1}: ${why}`);
        }
        // A see-tag naming a Markdown file and anchor may list more anchors after it: headings of it too.
        for (const m of c.text.matchAll(/@see\s+(\S+?\.md)#\S+([^\n]*)/g)) {
          for (const a of m[2]!.matchAll(/(?<=\s)#([\w-]+)/g)) {
            const why = unresolved(file, `${m[1]}#${a[1]}`);
            if (why !== null) bad.push(`${relative(root, file)}:${c.line + lineOf(c.text, m.index) - 1}: ${why}`);
          }
        }
      }
    }
    expect([...new Set(bad)]).toEqual([]);
  });

  it('docs and comments speak of the code, not of the people who wrote it', () => {
    const bad: string[] = [];
    for (const file of markdownFiles) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((l, i) => PEOPLE.test(l) && bad.push(`${relative(root, file)}:${i + 1}: ${l.trim()}`));
    }
    for (const file of sourceFiles) {
      for (const c of comments(readFileSync(file, 'utf8'))) {
        c.text.split('\n').forEach((l, i) => PEOPLE.test(l) && bad.push(`${relative(root, file)}:${c.line + i}: ${l.trim()}`));
      }
    }
    expect(bad).toEqual([]);
  });
});
