/**
 * Splits request text into text chunks (one `chunk_seq` each), per `chunk_length`,
 * `min_chunk_length` and `latency`:
 * - `normal`: sentences packed greedily up to `chunk_length` (the fewest chunks);
 * - `balanced`: one chunk per sentence (smaller chunks), pieces under `min_chunk_length` merged;
 * - `low`: like balanced, but the first chunk is the first clause (at least
 *   {@link LOW_FIRST_CHUNK_MIN_CHARS} characters), for the fastest first audio.
 * No chunk is longer than `chunk_length`: a longer sentence is cut at clauses, then at words.
 */
import type { LatencyMode } from '../../protocol/ttsRequest.js';

export interface ChunkOptions {
  chunkLength: number;
  minChunkLength: number;
  latency: LatencyMode;
}

/** The smallest first chunk `latency: low` makes (a clause shorter than this is merged on). */
export const LOW_FIRST_CHUNK_MIN_CHARS = 12;

/**
 * A sentence ends at `. ! ? …` (and closing quotes) followed by white space or the end, so "3.5",
 * "10:30" and "v2.0.1" stay whole; CJK terminators end one wherever they are.
 */
const SENTENCE = /[^]*?(?:[.!?…]+["'”’)\]]*(?=\s|$)|[。！？]+["'”’)\]]*|$)/gu;
/** A clause ends at `, ; :` followed by white space or the end, or at a dash. */
const CLAUSE = /[^]*?(?:[,;:]+["'”’)\]]*(?=\s|$)|[—–]+|$)/gu;

function pieces(text: string, re: RegExp): string[] {
  return (text.match(re) ?? []).map((s) => s.trim()).filter((s) => s !== '');
}

/** Cuts `text` into pieces no longer than `max`: at clauses, then words, then characters. */
function fit(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const out: string[] = [];
  const clauses = pieces(text, CLAUSE);
  const units = clauses.length > 1 ? clauses : text.split(/\s+/).filter((w) => w !== '');
  if (units.length === 1) {
    for (let i = 0; i < text.length; i += max) out.push(text.slice(i, i + max));
    return out;
  }
  let cur = '';
  for (const unit of units) {
    for (const part of fit(unit, max)) {
      if (cur === '') cur = part;
      else if (cur.length + 1 + part.length <= max) cur += ' ' + part;
      else {
        out.push(cur);
        cur = part;
      }
    }
  }
  if (cur !== '') out.push(cur);
  return out;
}

/** Joins neighbours while a piece is shorter than `min`, never beyond `max`. */
function mergeShort(parts: string[], min: number, max: number, keepFirst: boolean): string[] {
  const out: string[] = [];
  for (const part of parts) {
    const last = out[out.length - 1];
    const lastIsFrozen = keepFirst && out.length === 1;
    if (last !== undefined && !lastIsFrozen && last.length < min && last.length + 1 + part.length <= max) {
      out[out.length - 1] = last + ' ' + part;
    } else {
      out.push(part);
    }
  }
  // A short tail joins the chunk before it.
  const n = out.length;
  if (n >= 2 && out[n - 1]!.length < min && !(keepFirst && n === 2) && out[n - 2]!.length + 1 + out[n - 1]!.length <= max) {
    out[n - 2] = out[n - 2] + ' ' + out.pop();
  }
  return out;
}

export function splitTextIntoChunks(text: string, options: ChunkOptions): string[] {
  const max = options.chunkLength;
  const sentences = pieces(text.replace(/\s+/g, ' '), SENTENCE).flatMap((s) => fit(s, max));
  if (sentences.length === 0) return [];

  if (options.latency === 'normal') {
    const out: string[] = [];
    let cur = '';
    for (const s of sentences) {
      if (cur === '') cur = s;
      else if (cur.length + 1 + s.length <= max) cur += ' ' + s;
      else {
        out.push(cur);
        cur = s;
      }
    }
    out.push(cur);
    return out;
  }

  let parts = sentences;
  let keepFirst = false;
  if (options.latency === 'low') {
    const clauses = pieces(sentences[0]!, CLAUSE);
    let first = '';
    let used = 0;
    while (used < clauses.length && first.length < LOW_FIRST_CHUNK_MIN_CHARS) {
      first = first === '' ? clauses[used]! : first + ' ' + clauses[used]!;
      used++;
    }
    const rest = clauses.slice(used).join(' ');
    parts = [first, ...(rest === '' ? [] : [rest]), ...sentences.slice(1)];
    keepFirst = true;
  }
  return mergeShort(parts, options.minChunkLength, max, keepFirst);
}
