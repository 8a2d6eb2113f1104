import { cueLines, formatTimestamp, groupIntoCues, type CaptionWord, type CueOptions } from './captionCues.js';

/**
 * A SubRip (.srt) document for a word timeline (sorted by start, global seconds): numbered cues,
 * `hh:mm:ss,mmm` times, the same lines as {@link toWebVtt}. Pass `sourceText` (the request's text)
 * for punctuation, casing and cues that end with sentences.
 *
 * @example
 * ```ts
 * const { stream, request } = await client.tts.streamWithTimestamps({ text });
 * // … consume the stream …
 * await writeFile('speech.srt', toSrt(stream.alignment.timeline(), { sourceText: request.text }));
 * ```
 */
export function toSrt(words: readonly CaptionWord[], options: CueOptions = {}): string {
  return groupIntoCues(words, options)
    .map(
      (cue, i) => `${i + 1}\n${formatTimestamp(cue.start, ',')} --> ${formatTimestamp(cue.end, ',')}\n` + `${cueLines(cue).join('\n')}\n`,
    )
    .join('\n');
}
