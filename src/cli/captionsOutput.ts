/**
 * The `--captions FILE.vtt|FILE.srt` flag of `say` and `decode`: the kind named by the extension,
 * and the document for the final word timeline, with the spoken text's punctuation and casing
 * when that text is known (`say`: the request's; `decode`: `--text-file`).
 */
import type { CaptionWord } from '../captions/captionCues.js';
import { toSrt } from '../captions/toSrt.js';
import { toWebVtt } from '../captions/toWebVtt.js';
import { UsageError } from './exitCodes.js';

export type CaptionsKind = 'vtt' | 'srt';

export interface CaptionsTarget {
  path: string;
  kind: CaptionsKind;
}

/** @throws UsageError for a name that ends in neither .vtt nor .srt (any case) */
export function parseCaptionsTarget(path: string): CaptionsTarget {
  const lower = path.toLowerCase();
  const kind = lower.endsWith('.vtt') ? 'vtt' : lower.endsWith('.srt') ? 'srt' : null;
  if (kind === null) throw new UsageError(`--captions needs a .vtt or .srt file name, got ${JSON.stringify(path)}`);
  return { path, kind };
}

/** The WebVTT or SRT document; `sourceText` is the text that was spoken, when known. */
export function captionsDocument(kind: CaptionsKind, words: readonly CaptionWord[], sourceText: string | undefined): string {
  const options = sourceText === undefined ? {} : { sourceText };
  return kind === 'vtt' ? toWebVtt(words, options) : toSrt(words, options);
}
