/**
 * A process that runs real caller speech through Silero on a detector thread, then ends the way
 * its first argument says, with the exit code its second argument gives (default 0):
 * - `idle`: the call is closed and answered; `process.exit(code)` while the idle thread still
 *   holds its Silero session (it would end after `idleMs`);
 * - `midrun`: `process.exit(code)` while the thread is working through a burst of speech, Silero
 *   on every window (the `silero` backend);
 * - `hold`: no thread at all; the main thread only holds onnxruntime-node's addon
 *   (`holdOnnxRuntime()`), then `process.exit(code)`;
 * - `natural`: the call is closed and the process ends on its own (`process.exitCode`).
 * It prints one JSON line of what it saw first (test/telephony/bargeIn/detectorExit.test.ts).
 */
import { clip } from '../../fixtures/vad/corpus.js';
import { DetectorThreads } from '../../../src/telephony/bargeIn/DetectorThreads.js';
import type { FromDetector } from '../../../src/telephony/bargeIn/detectorMessages.js';
import { FrameRing } from '../../../src/telephony/bargeIn/frameRing.js';
import { holdOnnxRuntime } from '../../../src/telephony/vad/silero.js';
import { UTTERANCE } from './bargeInScenario.js';

/** Real waits on a real thread (loading Silero, its runs), polled in real 5 ms steps, bounded. */
const POLL_MS = 5;
const MAX_POLLS = 4000;
/** A 20 ms μ-law frame at 8 kHz. */
const FRAME_BYTES = 160;
const FRAME_MS = 20;
/** Times the utterance is written back to back for `midrun` (12.8 s of audio: ~400 Silero runs still to go at exit). */
const MIDRUN_REPEATS = 8;

const mode = process.argv[2] ?? 'idle';
const code = Number(process.argv[3] ?? 0);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
async function until(done: () => boolean): Promise<boolean> {
  for (let i = 0; i < MAX_POLLS && !done(); i++) await sleep(POLL_MS);
  return done();
}
function report(seen: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ mode, ...seen })}\n`);
}

if (mode === 'hold') {
  holdOnnxRuntime();
  report({});
  process.exit(code);
}

const pool = new DetectorThreads();
pool.configure({ threads: 1 });
const got: FromDetector[] = [];
const id = pool.attach({ message: (m) => got.push(m), failed: (e) => got.push({ t: 'failed', id, error: e }) });
const ring = new FrameRing();
/** `midrun`: Silero on every window (the 'silero' backend), so the thread is mostly inside the runtime when the process exits. */
const vad = mode === 'midrun' ? { backend: 'silero' as const } : {};
pool.post(id, { t: 'open', id, options: { vad }, ring: ring.buffer });
await until(() => got.some((m) => m.t === 'ready' || m.t === 'failed'));
const ready = got.find((m) => m.t === 'ready');
const backend = ready?.t === 'ready' ? ready.backend : null;

const speech = clip(UTTERANCE).mulaw;
/** Writes the utterance `repeats` times into `into`, the bot speaking. */
function burst(into: FrameRing, repeats: number): void {
  let f = 0;
  into.writeBot(true);
  for (let r = 0; r < repeats; r++) {
    for (let at = 0; at + FRAME_BYTES <= speech.length; at += FRAME_BYTES, f++) {
      into.writeAudio(true, speech.subarray(at, at + FRAME_BYTES), f * FRAME_MS);
    }
  }
}

if (mode === 'midrun') {
  burst(ring, MIDRUN_REPEATS);
  const written = ring.inFlight;
  pool.ring(id);
  // Exit once the thread has taken some of the burst and not all of it: it is in the middle of it.
  await until(() => ring.inFlight < written);
  report({ backend, written, inFlight: ring.inFlight });
  process.exit(code);
}

burst(ring, 1);
pool.ring(id);

await until(() => ring.inFlight === 0);
pool.post(id, { t: 'close', id });
await until(() => got.some((m) => m.t === 'closed'));
const closed = got.find((m) => m.t === 'closed');
const model = closed?.t === 'closed' ? closed.model : undefined;
pool.release(id);
report({ backend, decisions: got.filter((m) => m.t === 'decisions').length, modelRuns: model?.runs ?? 0 });
if (mode === 'idle') process.exit(code);
process.exitCode = code;
