/**
 * Just enough Markdown for the docs tests: fenced code blocks (with the README line they start
 * on), headings and their GitHub anchors, and the text outside code blocks.
 */

export interface CodeBlock {
  /** The fence's info string (`ts`, `sh`, …). */
  lang: string;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
}

const FENCE = /^(\s*)(```+|~~~+)(.*)$/;

/** Every fenced code block, in order. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (open === null) continue;
    const marker = open[2]!;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = FENCE.exec(lines[j]!);
      if (close !== null && close[2]!.startsWith(marker[0]!) && close[2]!.length >= marker.length && close[3]!.trim() === '') break;
      body.push(lines[j]!);
    }
    blocks.push({ lang: open[3]!.trim(), line: i + 1, code: body.join('\n') + '\n' });
    i = j;
  }
  return blocks;
}

/** The lines outside fenced code blocks, with their 1-based numbers. */
export function proseLines(markdown: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | null = null;
  markdown.split('\n').forEach((text, i) => {
    const m = FENCE.exec(text);
    if (m !== null) {
      if (fence === null) fence = m[2]!;
      else if (m[2]!.startsWith(fence[0]!) && m[3]!.trim() === '') fence = null;
      return;
    }
    if (fence === null) out.push({ line: i + 1, text });
  });
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of every heading (outside code blocks); repeats get GitHub's `-1`, `-2` suffixes. */
export function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { text } of proseLines(markdown)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (m === null) continue;
    const base = headingAnchor(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}
