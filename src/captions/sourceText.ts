/**
 * Gives each timed word the form it has in the text that was spoken: casing, attached
 * punctuation, quotes ("dog" → `dog.`, "Dr" → `Dr.`, "Hello" → `"Hello,`).
 *
 * Why this is needed: a service's alignment segments carry the bare word (the local service strips
 * punctuation from both ends of every white-space token: `"Hello,` → `Hello`, `Dr.` → `Dr`,
 * `$42.50` and `3.5` and `well-known` and `don't` and a URL stay whole), so captions built from
 * them alone read without sentences. Another service may split a token ("well-known" → "well",
 * "known"), merge tokens, speak a number as several words, skip a word or add one.
 *
 * The alignment is a monotone cursor over the source tokens with a bounded look-ahead: a word
 * takes the first token ahead whose normalised form equals its own; a jump over tokens is taken
 * only when the next word confirms it. Nothing is reordered and nothing throws. A word that
 * matches no token keeps its own text; a run of such words between two matched words takes the
 * leading punctuation of the first source token in between and the trailing punctuation of the
 * last one (so "forty two" for `$42.` still ends its sentence).
 */

/** Source tokens a word may skip ahead to find its match. */
export const SOURCE_LOOKAHEAD_TOKENS = 8;
/** After a jump, the next word must match within this many tokens of the jump's target. */
const CONFIRM_TOKENS = 2;

const EDGE_PUNCTUATION = /^\p{P}+|\p{P}+$/gu;
const LEADING_PUNCTUATION = /^\p{P}*/u;
const TRAILING_PUNCTUATION = /\p{P}*$/u;
const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]/gu;
const SPACE_OR_PUNCTUATION = /[\s\p{P}]/gu;
/** Punctuation that opens what follows it: brackets, opening quotes, Spanish ¿ ¡. */
const OPENING = /^[\p{Ps}\p{Pi}¿¡]/u;
const WHITE_SPACE = /\s+/;
const UPPER_FIRST = /^\P{L}*\p{Lu}/u;
const LOWER_FIRST = /^(\P{L}*)(\p{Ll})/u;

interface SourceToken {
  /** What the caption shows: the token with any punctuation-only neighbours attached. */
  surface: string;
  key: string;
  lead: string;
  trail: string;
}

/**
 * The comparison form of a word or token: NFKC, lower case, letters and digits only ("Don’t" and
 * "don't" meet, so do "U.S.A." and "U.S.A"); a token with neither ("+") compares by its symbols.
 */
export function wordKey(text: string): string {
  const norm = text.normalize('NFKC').toLowerCase();
  const key = norm.replace(NOT_LETTER_OR_DIGIT, '');
  if (key !== '') return key;
  const symbols = norm.replace(SPACE_OR_PUNCTUATION, '');
  return symbols === '' ? norm : symbols;
}

/** White-space tokens; a punctuation-only token ("—", `"`, "...") joins a neighbour. */
function tokenize(sourceText: string): SourceToken[] {
  const tokens: SourceToken[] = [];
  let pendingLead = '';
  for (const raw of sourceText.split(WHITE_SPACE)) {
    if (raw === '') continue;
    if (raw.replace(EDGE_PUNCTUATION, '') === '') {
      const prev = tokens[tokens.length - 1];
      if (prev !== undefined && !OPENING.test(raw)) {
        prev.surface += ` ${raw}`;
        prev.trail += ` ${raw}`;
      } else {
        pendingLead += `${raw} `;
      }
      continue;
    }
    tokens.push({
      surface: pendingLead + raw,
      key: wordKey(raw),
      lead: pendingLead + LEADING_PUNCTUATION.exec(raw)![0],
      trail: TRAILING_PUNCTUATION.exec(raw)![0],
    });
    pendingLead = '';
  }
  return tokens;
}

function findAhead(tokens: readonly SourceToken[], key: string, from: number, span: number): number {
  const to = Math.min(tokens.length, from + span);
  for (let t = from; t < to; t++) if (tokens[t]!.key === key) return t;
  return -1;
}

/**
 * The caption text of each word (same length and order as `words`): its source form where it
 * matched a source token, else its own text (with the punctuation of the source tokens it stood
 * for, see the module comment).
 *
 * @example
 * ```ts
 * alignToSource(['Dr', 'Smith', 'said', 'hi'], 'Dr. Smith said: "hi!"'); // ['Dr.', 'Smith', 'said:', '"hi!"']
 * ```
 */
export function alignToSource(words: readonly string[], sourceText: string): string[] {
  const tokens = tokenize(sourceText);
  const keys = words.map(wordKey);
  const matched = new Array<number>(words.length).fill(-1);
  let cursor = 0;
  for (let i = 0; i < words.length; i++) {
    let t = findAhead(tokens, keys[i]!, cursor, SOURCE_LOOKAHEAD_TOKENS);
    if (t < 0) continue;
    // The same word twice in a row ("(excited) Excited to …", "the the"): take the second when
    // only it is followed by the next word.
    const nextKey = keys[i + 1];
    if (nextKey !== undefined && tokens[t + 1]?.key === keys[i] && tokens[t + 1]!.key !== nextKey && tokens[t + 2]?.key === nextKey) t++;
    // A jump over source tokens needs the next word to agree, so that one stray word that happens
    // to equal a token further on cannot carry the cursor past the words really spoken.
    const confirmed = t === cursor || i + 1 >= words.length || findAhead(tokens, keys[i + 1]!, t + 1, CONFIRM_TOKENS) >= 0;
    if (!confirmed) continue;
    matched[i] = t;
    cursor = t + 1;
  }

  const out = words.map((w, i) => (matched[i]! >= 0 ? tokens[matched[i]!]!.surface : w));
  // Runs of unmatched words: the punctuation around the source tokens between their neighbours.
  let prevToken = -1;
  for (let i = 0; i < words.length;) {
    if (matched[i]! >= 0) {
      prevToken = matched[i]!;
      i++;
      continue;
    }
    let j = i;
    while (j < words.length && matched[j]! < 0) j++;
    const nextToken = j < words.length ? matched[j]! : tokens.length;
    const first = tokens[prevToken + 1];
    const last = tokens[nextToken - 1];
    if (first !== undefined && last !== undefined && prevToken + 1 < nextToken) {
      let head = out[i]!;
      if (UPPER_FIRST.test(first.surface)) head = head.replace(LOWER_FIRST, (_m, p: string, c: string) => p + c.toUpperCase());
      if (!head.startsWith(first.lead)) head = first.lead + head;
      out[i] = head;
      if (!out[j - 1]!.endsWith(last.trail)) out[j - 1] += last.trail;
    }
    i = j;
  }
  return out;
}
