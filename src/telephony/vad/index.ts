export { createVad, type Vad } from './createVad.js';
export { Hysteresis, type HysteresisConfig } from './hysteresis.js';
export { GATE_HANGOVER_MS, GATE_WARM_WINDOWS } from './scorers.js';
export { WEBRTC_FRAME_MS } from './webrtc.js';
export * from './types.js';
