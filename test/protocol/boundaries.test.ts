/**
 * The wire contract lives in `src/protocol/`; the four parts built on it — client, service,
 * webhooks, telephony — depend on it and not on each other. This test reads the import and
 * re-export statements of every source file under those four folders (and protocol itself) and
 * fails on an edge between them that is not in {@link ALLOWED_EDGES}.
 *
 * Allowed edges, and why:
 * - `telephony/clientSpeechSource.ts` → `client/`: the ready-made speech source of a call is the
 *   client's speech stream. It is the one adapter between the two; everything else in telephony
 *   talks to a `SpeechSource` interface, so a call can be fed by any other source.
 *
 * `protocol/` itself may import none of the four: it is the bottom of the stack.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as clientEntry from '../../src/client/index.js';
import * as webhooksEntry from '../../src/webhooks/index.js';
import * as paths from '../../src/protocol/paths.js';
import * as sessionTypes from '../../src/protocol/sessionTypes.js';
import * as validateAgentConfig from '../../src/protocol/validateAgentConfig.js';
import * as dynamicVariables from '../../src/protocol/dynamicVariables.js';
import * as webhookSignature from '../../src/protocol/webhookSignature.js';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const PARTS = ['client', 'service', 'webhooks', 'telephony'] as const;
type Part = (typeof PARTS)[number] | 'protocol';

/** `from` file (relative to src/, `/`-separated) → the part it may import from. */
const ALLOWED_EDGES: ReadonlyArray<{ from: string; to: Part }> = [{ from: 'telephony/clientSpeechSource.ts', to: 'client' }];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Block comments and whole-line `//` comments: doc examples quote imports that are not edges. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** Specifiers of `import … from`, `export … from`, `import '…'` and `import('…')`. */
function importSpecifiers(text: string): string[] {
  const code = withoutComments(text);
  const patterns = [
    /\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  return patterns.flatMap((re) => [...code.matchAll(re)].map((m) => m[1]!));
}

/** The top-level folder under src/ a relative specifier lands in, or undefined. */
function partOf(fromFile: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = relative(SRC, resolve(dirname(fromFile), specifier));
  const top = target.split(sep)[0];
  return top === undefined || top.startsWith('..') ? undefined : top;
}

interface Edge {
  from: string;
  fromPart: Part;
  to: Part;
  specifier: string;
}

function crossEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const fromPart of [...PARTS, 'protocol'] as Part[]) {
    for (const file of sourceFiles(join(SRC, fromPart))) {
      for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
        const to = partOf(file, specifier);
        if (to === undefined || to === fromPart) continue;
        if (!(PARTS as readonly string[]).includes(to) && to !== 'protocol') continue;
        edges.push({ from: relative(SRC, file).split(sep).join('/'), fromPart, to: to as Part, specifier });
      }
    }
  }
  return edges;
}

function isAllowed(edge: Edge): boolean {
  if (edge.to === 'protocol') return edge.fromPart !== 'protocol';
  return ALLOWED_EDGES.some((a) => a.from === edge.from && a.to === edge.to);
}

describe('module boundaries', () => {
  const edges = crossEdges();

  it('client, service, webhooks and telephony import each other only along the documented edges', () => {
    const forbidden = edges.filter((e) => !isAllowed(e)).map((e) => `${e.from} → ${e.specifier}`);
    expect(forbidden).toEqual([]);
  });

  it('service and webhooks import nothing from client', () => {
    const fromClient = edges
      .filter((e) => (e.fromPart === 'service' || e.fromPart === 'webhooks') && e.to === 'client')
      .map((e) => `${e.from} → ${e.specifier}`);
    expect(fromClient).toEqual([]);
  });

  it('protocol imports none of the parts built on it', () => {
    expect(edges.filter((e) => e.fromPart === 'protocol').map((e) => `${e.from} → ${e.specifier}`)).toEqual([]);
  });

  it('every documented edge is still used, so the list cannot go stale', () => {
    for (const allowed of ALLOWED_EDGES) {
      expect(
        edges.some((e) => e.from === allowed.from && e.to === allowed.to),
        `${allowed.from} → ${allowed.to}`,
      ).toBe(true);
    }
  });

  it('the four parts do depend on protocol (the scan sees real edges)', () => {
    for (const part of PARTS)
      expect(
        edges.some((e) => e.fromPart === part && e.to === 'protocol'),
        part,
      ).toBe(true);
  });
});

describe('the import scanner', () => {
  it('reads multi-line, type-only, re-export, side-effect and dynamic imports, and skips comments', () => {
    const text = [
      "import {\n  a,\n  type B,\n} from '../client/x.js';",
      "import type { C } from './c.js';",
      "export { d } from '../webhooks/d.js';",
      "export type * from '../protocol/e.js';",
      "import '../service/f.js';",
      "const g = await import('../telephony/g.js');",
      "/** import { h } from '../client/h.js'; */",
      "// import { i } from '../client/i.js';",
    ].join('\n');
    expect(importSpecifiers(text).sort()).toEqual(
      ['../client/x.js', './c.js', '../webhooks/d.js', '../protocol/e.js', '../service/f.js', '../telephony/g.js'].sort(),
    );
  });
});

describe('moved names keep their old public entry', () => {
  it('voicewire/client re-exports the paths, session guards and agent validation from protocol', () => {
    expect(clientEntry.DEFAULT_API_PATHS).toBe(paths.DEFAULT_API_PATHS);
    expect(clientEntry.ROUTE_TEMPLATES).toBe(paths.ROUTE_TEMPLATES);
    expect(clientEntry.SESSION_LIST_QUERY).toBe(paths.SESSION_LIST_QUERY);
    expect(clientEntry.TTS_STREAM_WITH_TIMESTAMP_PATH).toBe(paths.TTS_STREAM_WITH_TIMESTAMP_PATH);
    expect(clientEntry.isMessageItem).toBe(sessionTypes.isMessageItem);
    expect(clientEntry.KNOWN_SESSION_ITEM_TYPES).toBe(sessionTypes.KNOWN_SESSION_ITEM_TYPES);
    expect(clientEntry.validateAgentCreate).toBe(validateAgentConfig.validateAgentCreate);
    expect(clientEntry.AGENT_CONFIG_SCHEMA).toBe(validateAgentConfig.AGENT_CONFIG_SCHEMA);
  });

  it('voicewire/webhooks re-exports the dynamic-variable rules and the signature scheme from protocol', () => {
    expect(webhooksEntry.validateDynamicVariables).toBe(dynamicVariables.validateDynamicVariables);
    expect(webhooksEntry.fillPlaceholders).toBe(dynamicVariables.fillPlaceholders);
    expect(webhooksEntry.MAX_DYNAMIC_VARIABLES).toBe(dynamicVariables.MAX_DYNAMIC_VARIABLES);
    expect(webhooksEntry.signWebhookPayload).toBe(webhookSignature.signWebhookPayload);
    expect(webhooksEntry.verifyWebhookSignature).toBe(webhookSignature.verifyWebhookSignature);
    expect(webhooksEntry.DEFAULT_SIGNATURE_HEADER).toBe(webhookSignature.DEFAULT_SIGNATURE_HEADER);
  });
});
