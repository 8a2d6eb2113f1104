export {
  createBargeInDetector,
  type BargeInDetector,
  type BargeInDetectorOptions,
  INBOUND_GAP_TOLERANCE_MS,
  MAX_INBOUND_GAP_MS,
  DEFAULT_MODEL_WAKE_ABOVE_FLOOR_DB,
  DEFAULT_TURN_TRACKING,
  DEFAULT_TURN_LEVEL_ABOVE_FLOOR_DB,
} from './createBargeInDetector.js';
export { BargeInPolicy, EVIDENCE_LOOKBACK_MS, type WindowEvidence } from './BargeInPolicy.js';
export { EchoGate, ECHO_BLOCK_SAMPLES, ECHO_HISTORY_BLOCKS } from './EchoGate.js';
export { CallerTurns, TURN_ONSET_LOOKBACK_MS, INBOUND_SLICE_SAMPLES } from './CallerTurns.js';
export * from './types.js';
