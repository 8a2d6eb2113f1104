import { formatTimestamp, groupIntoCues, type CaptionWord, type CueOptions } from './captionCues.js';

export interface WebVttOptions extends CueOptions {
  /**
   * Adds WebVTT cue timestamps (`<00:00:01.200>`) before each word after the first, so players
   * that support them highlight word by word (karaoke style).
   * @defaultValue true
   */
  wordTimestamps?: boolean;
}

const VTT_HEADER = 'WEBVTT\n';

/**
 * A WebVTT document for a word timeline (sorted by start, global seconds).
 *
 * @example
 * ```ts
 * const words = stream.alignment.timeline();
 * await writeFile('speech.vtt', toWebVtt(words));
 * ```
 * @see https://www.w3.org/TR/webvtt1/ — cue text escapes `&`, `<` and `>`; inline timestamps
 * must lie strictly inside their cue, in increasing order.
 */
export function toWebVtt(words: readonly CaptionWord[], options: WebVttOptions = {}): string {
  const withTimestamps = options.wordTimestamps ?? true;
  const blocks: string[] = [VTT_HEADER];
  for (const cue of groupIntoCues(words, options)) {
    const parts: string[] = [];
    let last = cue.start;
    cue.words.forEach((word, i) => {
      let text = escapeVtt(word.text);
      if (withTimestamps && i > 0 && word.start > last && word.start < cue.end) {
        text = `<${formatTimestamp(word.start, '.')}>${text}`;
        last = word.start;
      }
      parts.push(text);
    });
    blocks.push(`${formatTimestamp(cue.start, '.')} --> ${formatTimestamp(cue.end, '.')}\n${parts.join(' ')}\n`);
  }
  return blocks.join('\n');
}

function escapeVtt(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
