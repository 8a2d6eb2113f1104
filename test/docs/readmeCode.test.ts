/**
 * The README's TypeScript is code: every ```ts block is type-checked against the sources under the
 * repository's strict options (as `voicewire` and `voicewire/<subpath>`), and every block that can
 * run offline runs (against a local service this test starts) and must exit 0. A README example
 * that uses a field the types do not have fails here, naming its README line.
 *
 * Conventions (first lines of a block):
 * - `// no-run: <why>`: type-checked, not run (it needs a phone, a sound device, or serves forever);
 * - `// fragment: <why>`: neither (use sparingly: prefer a complete block).
 * A block that runs gets `VOICEWIRE_BASE_URL` / `VOICEWIRE_API_KEY` of the local service, and a
 * working directory (a temp dir) in which `examples/` is the repository's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { parseFaults } from '../../src/service/faults.js';
import { startLocalService, type LocalService } from '../../src/service/index.js';
import { codeBlocks, type CodeBlock } from './markdown.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const README = join(root, 'README.md');
const RUN_TIMEOUT_MS = 60_000;
const NO_RUN = /^\/\/ no-run: \S/;
const FRAGMENT = /^\/\/ fragment: \S/;

interface Example extends CodeBlock {
  file: string;
  run: boolean;
  check: boolean;
}

function readmeExamples(dir: string): Example[] {
  return codeBlocks(readFileSync(README, 'utf8'))
    .filter((b) => b.lang === 'ts' || b.lang === 'typescript')
    .map((b) => {
      const head = b.code.split('\n', 3).map((l) => l.trim());
      const fragment = head.some((l) => FRAGMENT.test(l));
      return { ...b, file: join(dir, `readme-line-${b.line}.ts`), check: !fragment, run: !fragment && !head.some((l) => NO_RUN.test(l)) };
    });
}

/** A directory where the blocks are modules, `voicewire` imports resolve to src/, and node_modules is the repo's. */
function makeWorkspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vw-readme-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: join(root, 'tsconfig.json'),
      compilerOptions: {
        noEmit: true,
        rootDir: '/',
        paths: { voicewire: [join(root, 'src/index.ts')], 'voicewire/*': [join(root, 'src/*/index.ts')] },
      },
      include: ['*.ts'],
    }),
  );
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  symlinkSync(join(root, 'examples'), join(dir, 'examples'), 'dir');
  return dir;
}

/** The blocks' type errors, as `README.md:<line of the fence + line in block>: message`. */
function typeCheck(dir: string, examples: Example[]): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(dir, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  )!;
  const program = ts.createProgram({ rootNames: examples.filter((e) => e.check).map((e) => e.file), options: parsed.options });
  const out: string[] = [];
  for (const ex of examples) {
    if (!ex.check) continue;
    const sf = program.getSourceFile(ex.file)!;
    for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
      const at = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line + 1;
      out.push(`README.md:${ex.line + at}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    }
  }
  return out;
}

/** Runs a block with tsx; killed after RUN_TIMEOUT_MS. */
function runBlock(
  file: string,
  opts: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; signal: string | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      ...opts,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: RUN_TIMEOUT_MS,
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (output += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (output += s));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, output }));
  });
}

describe('README TypeScript blocks', () => {
  let dir = '';
  let examples: Example[] = [];
  let service: LocalService;

  beforeAll(async () => {
    dir = makeWorkspace();
    examples = readmeExamples(dir);
    for (const ex of examples) writeFileSync(ex.file, ex.code);
    service = await startLocalService();
  });
  afterAll(async () => {
    await service?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every block is marked only with a reason, and every voicewire subpath it imports is a package export', () => {
    expect(examples.length).toBeGreaterThan(0);
    const exportsMap = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }).exports;
    const bad: string[] = [];
    for (const ex of examples) {
      for (const m of ex.code.matchAll(/from '(voicewire(?:\/[^']*)?)'/g)) {
        const sub = m[1] === 'voicewire' ? '.' : `./${m[1]!.slice('voicewire/'.length)}`;
        if (!(sub in exportsMap)) bad.push(`README.md:${ex.line}: imports ${m[1]}, which package.json does not export`);
      }
      if (/^\s*\/\/ (no-run|fragment)\b(?!: \S)/m.test(ex.code))
        bad.push(`README.md:${ex.line}: a no-run/fragment mark without its reason`);
      // A block that runs here must reach nothing but this machine: no remote URL in its code.
      for (const m of ex.code.matchAll(/\b(?:https?|wss?):\/\/([^/'"`\s:]+)/g)) {
        if (ex.run && !/^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(m[1]!))
          bad.push(`README.md:${ex.line}: runs, and names the remote host ${m[1]}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('every block type-checks against the sources under the strict options', { timeout: 120_000 }, () => {
    expect(typeCheck(dir, examples)).toEqual([]);
  });

  it('every block that can run offline runs to exit 0', { timeout: 300_000 }, async () => {
    const failures: string[] = [];
    for (const ex of examples.filter((e) => e.run)) {
      // Asynchronously: the local service answering the block runs in this process.
      const r = await runBlock(ex.file, {
        cwd: dir,
        env: {
          ...process.env,
          VOICEWIRE_BASE_URL: service.baseUrl,
          VOICEWIRE_API_KEY: service.token,
          TSX_TSCONFIG_PATH: join(dir, 'tsconfig.json'),
        },
      });
      if (r.code !== 0) failures.push(`README.md:${ex.line}: exit ${r.code ?? r.signal}\n${r.output.slice(-1500)}`);
    }
    expect(failures).toEqual([]);
  });
});

describe('README fault-injection syntax', () => {
  const readme = readFileSync(README, 'utf8');
  const section = readme.slice(readme.indexOf('**Fault injection**'), readme.indexOf('### Agent platform'));

  it('the example header parses into as many faults as it lists items', () => {
    const examples = [...section.matchAll(/`x-voicewire-fault: ([^`]+)`/g)].map((m) => m[1]!);
    expect(examples.length).toBeGreaterThan(0);
    for (const header of examples) {
      const items = header.split(/[,;]/).filter((i) => i.trim() !== '');
      expect(items.length, header).toBeGreaterThan(1);
      expect(Object.keys(parseFaults(header)), header).toHaveLength(items.length);
    }
  });

  it('every item of the table parses, with its placeholders filled in', () => {
    const sample: Record<string, string> = { N: '2', MS: '10', STATUS: '503', S: '1' };
    const items = [...section.matchAll(/^\| (.+?) \|/gm)]
      .flatMap((row) => [...row[1]!.matchAll(/`([a-z-]+=[^`]+)`/g)].map((m) => m[1]!.replace(/\\\|/g, '|')))
      .flatMap((item) =>
        item.includes('|')
          ? item
              .slice(item.indexOf('=') + 1)
              .split('|')
              .map((v) => `${item.slice(0, item.indexOf('='))}=${v}`)
          : [item],
      )
      .map((item) => item.replace(/\[:N\]/, ':N').replace(/\b(N|MS|STATUS|S)\b/g, (p) => sample[p]!));
    expect(items.length).toBeGreaterThanOrEqual(9);
    for (const item of items) expect(() => parseFaults(item), item).not.toThrow();
  });
});
