export { toWebVtt, type WebVttOptions } from './toWebVtt.js';
export { toSrt } from './toSrt.js';
export {
  groupIntoCues,
  cueLines,
  formatTimestamp,
  MAX_LINE_CHARS,
  MAX_LINES,
  MAX_CUE_SEC,
  MIN_DISPLAY_SEC,
  type CaptionWord,
  type CaptionCue,
  type CueOptions,
} from './captionCues.js';
export { alignToSource } from './sourceText.js';
export {
  createLineCaptionRenderer,
  createTtyCaptionRenderer,
  type CaptionRenderer,
  type TextOutput,
  type TtyCaptionOptions,
} from './CaptionRenderer.js';
