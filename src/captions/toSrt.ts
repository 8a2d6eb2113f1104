import { formatTimestamp, groupIntoCues, type CaptionWord, type CueOptions } from './captionCues.js';

/**
 * A SubRip (.srt) document for a word timeline (sorted by start, global seconds): numbered cues,
 * `hh:mm:ss,mmm` times, the same lines as {@link toWebVtt}.
 *
 * @example
 * ```ts
 * await writeFile('speech.srt', toSrt(stream.alignment.timeline()));
 * ```
 */
export function toSrt(words: readonly CaptionWord[], options: CueOptions = {}): string {
  return groupIntoCues(words, options)
    .map(
      (cue, i) =>
        `${i + 1}\n${formatTimestamp(cue.start, ',')} --> ${formatTimestamp(cue.end, ',')}\n` +
        `${cue.words.map((w) => w.text).join(' ')}\n`,
    )
    .join('\n');
}
