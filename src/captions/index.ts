export { toWebVtt, type WebVttOptions } from './toWebVtt.js';
export { toSrt } from './toSrt.js';
export { groupIntoCues, formatTimestamp, type CaptionWord, type CaptionCue, type CueOptions } from './captionCues.js';
export {
  createLineCaptionRenderer,
  createTtyCaptionRenderer,
  type CaptionRenderer,
  type TextOutput,
  type TtyCaptionOptions,
} from './CaptionRenderer.js';
