/**
 * How well a caption may break after a word, read from the word's caption text (and the next
 * word's), plus the pause after it.
 *
 * - A sentence ends at `. ! ? …` (closing quotes and brackets may follow). A period after an
 *   abbreviation does not end one when the next word starts in lower case ("e.g. closed",
 *   "5 p.m. on"), and a period after a title or an initial never does ("Dr. Smith", "J. R. R.").
 *   `! ?` before a lower-case word ("Stop!" she said) end a clause only.
 * - A clause ends at `, ; :`, a dash, a closing bracket, or before an opening bracket or dash.
 * - A pause of {@link PAUSE_BREAK_SEC} or more is a weaker hint (speech pauses at punctuation, so
 *   this is what is left when the text carries none).
 */

export const BreakKind = {
  /** Inside a phrase: break only when nothing better fits. */
  None: 0,
  /** A pause in the speech, no punctuation. */
  Pause: 1,
  Clause: 2,
  /** Ends the cue always. */
  Sentence: 3,
} as const;
export type BreakKind = (typeof BreakKind)[keyof typeof BreakKind];

/** A silence at least this long between two words is a break hint. */
export const PAUSE_BREAK_SEC = 0.2;

/** Abbreviations whose period ends a sentence only before a capitalised word. */
const ABBREVIATIONS = new Set([
  'etc',
  'e.g',
  'i.e',
  'vs',
  'cf',
  'al',
  'approx',
  'ca',
  'inc',
  'ltd',
  'co',
  'corp',
  'no',
  'nos',
  'vol',
  'fig',
  'p',
  'pp',
  'ch',
  'ed',
  'est',
  'dept',
  'min',
  'max',
  'a.m',
  'p.m',
  'jr',
  'sr',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
]);
/** Abbreviations that always precede a name: their period never ends a sentence. */
const TITLES = new Set([
  'mr',
  'mrs',
  'ms',
  'mx',
  'dr',
  'prof',
  'st',
  'mt',
  'rev',
  'fr',
  'gen',
  'capt',
  'col',
  'lt',
  'sgt',
  'gov',
  'sen',
  'rep',
  'hon',
  'messrs',
  'mme',
  'mlle',
]);

const CLOSERS = /[\p{Pe}\p{Pf}"'»]+$/u;
const OPENERS = /^[\p{Ps}\p{Pi}"'«¿¡]+/u;
const SENTENCE_END = /(?:[.!?…。！？]|\.\.\.)$/u;
const CLAUSE_END = /(?:[,;:、，；：—–]|--)$/u;
const CLOSING_BRACKET = /\p{Pe}$/u;
const STARTS_WITH_DASH_OR_BRACKET = /^[\p{Ps}—–]/u;
/** A dotted abbreviation without its last period: "U.S.A", "e.g", "p.m". */
const DOTTED = /^(?:\p{L}\.)+\p{L}$/u;
const SINGLE_LETTER = /^\p{L}$/u;
const FIRST_LETTER_LOWER = /^\P{L}*\p{Ll}/u;
const FIRST_LETTER_UPPER = /^\P{L}*\p{Lu}/u;

/** The break after a word whose caption text is `text`, followed by `next` (none at the end). */
export function breakAfter(text: string, next: string | undefined, pauseSec: number): BreakKind {
  const pause = pauseSec >= PAUSE_BREAK_SEC ? BreakKind.Pause : BreakKind.None;
  const bare = text.replace(CLOSERS, '');
  if (SENTENCE_END.test(bare)) {
    if (next === undefined) return BreakKind.Sentence;
    const lowerNext = FIRST_LETTER_LOWER.test(next);
    if (bare.endsWith('.') && !bare.endsWith('..')) {
      const word = bare.replace(OPENERS, '').slice(0, -1);
      const lower = word.toLowerCase();
      if (TITLES.has(lower) || SINGLE_LETTER.test(word)) return pause;
      if ((ABBREVIATIONS.has(lower) || DOTTED.test(word)) && !FIRST_LETTER_UPPER.test(next)) return pause;
    }
    return lowerNext ? BreakKind.Clause : BreakKind.Sentence;
  }
  if (CLAUSE_END.test(bare) || CLOSING_BRACKET.test(text)) return BreakKind.Clause;
  if (next !== undefined && STARTS_WITH_DASH_OR_BRACKET.test(next)) return BreakKind.Clause;
  return pause;
}
