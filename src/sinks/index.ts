export { createWavFileSink, WavFileSink, type WavFileSinkOptions } from './WavFileSink.js';
export { createPlayerSink, createRealtimeSink, PlayerSink, type PlayerSinkOptions, type SinkClock } from './PlayerSink.js';
export { detectAudioOutput, type AudioOutputCheck, type PlayerCommand, type DetectOptions } from './audioOutput.js';
export { PlaybackClock, type PlaybackClockOptions } from './PlaybackClock.js';
export { frameBytes, createFrameByteStream, FrameByteStream, type FrameByteFormat } from './frameBytes.js';
