/**
 * Turns one text chunk into the SSML espeak-ng reads, with a `<mark>` before and after every word
 * (group), so that word times come from the synthesizer itself, per input token: "42" is one
 * word even though espeak says "forty two".
 *
 * Pronunciation dictionary entries are applied here: the spoken form changes (an alias, or
 * espeak phonemes in `[[...]]`), the word timeline keeps the original words.
 */

/** One dictionary entry, compiled: the words it matches (lower case), and what to say instead. */
export interface CompiledEntry {
  words: string[];
  alias?: string;
  phonemes?: string;
}

export interface ChunkSsml {
  ssml: string;
  /** One group per spoken token; several words only when a multi-word entry matched. */
  groups: string[][];
  /**
   * Where each group's spoken text sits in `ssml`, in espeak's `text_position` units (1-based
   * code points): `[from, to)`. espeak's word events point into these ranges.
   */
  ranges: [from: number, to: number][];
}

const EDGE_PUNCTUATION = /^\p{P}+|\p{P}+$/gu;

/** The segment text of a token: punctuation stripped from both ends ("world," → "world"). */
export function stripPunctuation(token: string): string {
  return token.replace(EDGE_PUNCTUATION, '');
}

/** Makes user text safe for espeak's SSML parser: `& < >` escaped, `[[`/`]]` broken up. */
export function escapeSsmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\[\[/g, '[ [').replace(/\]\]/g, '] ]');
}

function leading(token: string): string {
  return /^\p{P}*/u.exec(token)![0];
}
function trailing(token: string): string {
  return /\p{P}*$/u.exec(token)![0];
}

function matchAt(keys: string[], i: number, entries: CompiledEntry[]): CompiledEntry | null {
  let best: CompiledEntry | null = null;
  for (const e of entries) {
    if (i + e.words.length > keys.length) continue;
    if (best && e.words.length <= best.words.length) continue;
    let ok = true;
    for (let k = 0; k < e.words.length && ok; k++) ok = keys[i + k] === e.words[k];
    if (ok) best = e;
  }
  return best;
}

/**
 * espeak quirks this layout works around (measured, see native-notes/espeak.md):
 * - marks next to sentence punctuation between sentences are dropped, so word STARTS come from
 *   espeak's own word events (by text position), and only an end mark `e{i}` follows each word;
 * - the end mark goes before the word's trailing punctuation (so it lands before the pause),
 *   except for the chunk's last word, where a mark before a final "." makes espeak say "dot".
 */
export function buildChunkSsml(chunkText: string, entries: CompiledEntry[] = []): ChunkSsml {
  const tokens = chunkText.split(/\s+/).filter((t) => t !== '');
  const keys = tokens.map((t) => stripPunctuation(t).toLowerCase());
  const groups: string[][] = [];
  const ranges: [number, number][] = [];
  const parts: string[] = ['<speak>'];
  let pos = '<speak>'.length; // code points written so far
  const add = (text: string): void => {
    parts.push(text);
    pos += [...text].length;
  };
  for (let i = 0; i < tokens.length;) {
    const token = tokens[i]!;
    if (keys[i] === '') {
      // Pure punctuation ("—", "..."): spoken for its pause, no word of its own.
      add(escapeSsmlText(token) + ' ');
      i++;
      continue;
    }
    const entry = matchAt(keys, i, entries);
    const span = entry ? entry.words.length : 1;
    const lastToken = tokens[i + span - 1]!;
    const words = tokens.slice(i, i + span).map(stripPunctuation);
    const lead = escapeSsmlText(leading(token));
    const trail = escapeSsmlText(trailing(lastToken));
    let core: string;
    if (!entry) core = escapeSsmlText(stripPunctuation(token));
    else if (entry.alias !== undefined) core = escapeSsmlText(entry.alias);
    else core = ` [[${entry.phonemes}]] `;
    const g = groups.length;
    groups.push(words);
    add(lead);
    const from = pos + 1;
    add(core);
    ranges.push([from, pos + 1]);
    const isLast = i + span >= tokens.length;
    if (isLast) add(`${trail}<mark name="e${g}"/> `);
    else add(`<mark name="e${g}"/>${trail} `);
    i += span;
  }
  parts.push('</speak>');
  return { ssml: parts.join(''), groups, ranges };
}
