import { cueLines, formatTimestamp, groupIntoCues, type CaptionWord, type CueOptions } from './captionCues.js';

export interface WebVttOptions extends CueOptions {
  /**
   * Adds WebVTT cue timestamps (`<00:00:01.200>`) before each word after the first, so players
   * that support them highlight word by word (karaoke style).
   * @defaultValue true
   */
  wordTimestamps?: boolean;
}

const VTT_HEADER = 'WEBVTT\n';
const MS_PER_SEC = 1000;

/**
 * A WebVTT document for a word timeline (sorted by start, global seconds). Pass `sourceText` (the
 * request's text) for punctuation, casing and cues that end with sentences.
 *
 * @example
 * ```ts
 * const { stream, request } = await client.tts.streamWithTimestamps({ text });
 * // … consume the stream …
 * await writeFile('speech.vtt', toWebVtt(stream.alignment.timeline(), { sourceText: request.text }));
 * ```
 * @see https://www.w3.org/TR/webvtt1/ — cue text escapes `&`, `<` and `>`; inline timestamps
 * must lie strictly inside their cue, in increasing order.
 */
export function toWebVtt(words: readonly CaptionWord[], options: WebVttOptions = {}): string {
  const withTimestamps = options.wordTimestamps ?? true;
  const blocks: string[] = [VTT_HEADER];
  for (const cue of groupIntoCues(words, options)) {
    // Compared as written (whole ms), so that two timestamps never print the same.
    let lastMs = toMs(cue.start);
    const endMs = toMs(cue.end);
    const lines = cueLines(cue, (text, word, i) => {
      const escaped = escapeVtt(text);
      const ms = toMs(word.start);
      if (!withTimestamps || i === 0 || ms <= lastMs || ms >= endMs) return escaped;
      lastMs = ms;
      return `<${formatTimestamp(word.start, '.')}>${escaped}`;
    });
    blocks.push(`${formatTimestamp(cue.start, '.')} --> ${formatTimestamp(cue.end, '.')}\n${lines.join('\n')}\n`);
  }
  return blocks.join('\n');
}

function toMs(seconds: number): number {
  return Math.round(seconds * MS_PER_SEC);
}

function escapeVtt(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
