/**
 * `voicewire/latency`: measure a speech endpoint's latency the way a phone call feels it.
 */
export { measureLatency, planTasks, DEFAULT_JITTER_BUFFERS_MS, DEFAULT_RUNS, DEFAULT_WARMUP } from './measureLatency.js';
export { simulatePlayer, hearWord, type AudioArrival, type PlayerVerdict, type Underrun, type WordHearing } from './player.js';
export { percentiles, nearestRank, type Percentiles } from './percentiles.js';
export { summarizeContender, summarizeRecords } from './summarize.js';
export { classifyFailure, judgePlayers } from './measureRequest.js';
export { LATENCY_ID_HEADER } from './connectTimes.js';
export * from './types.js';
export { latencyCsv } from './csv.js';
export { latencyReportHtml } from './report/html.js';
export { runTable } from './report/text.js';
export { analyzeCapture, detectCaptureFormat, createViewRecorder, type CaptureView, type ViewWord } from './view/captureView.js';
export { captureViewerHtml } from './view/viewerHtml.js';
