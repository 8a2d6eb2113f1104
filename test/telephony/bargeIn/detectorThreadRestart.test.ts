/**
 * Silero in a detector thread that starts after an earlier one ended (the pool ends a thread with
 * no call after `idleMs`). onnxruntime-node's native addon cannot be loaded again by a later
 * thread of the process once every thread that loaded it has ended ("Module did not
 * self-register", native-notes/vad.md), so the pool keeps it loaded on the thread that starts
 * detector threads. Its own test file: no test here loads Silero in the test's thread first,
 * which would hide the fault.
 */
import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  configureDetectorThreads,
  DEFAULT_DETECTOR_THREAD_IDLE_MS,
  detectorThreads,
} from '../../../src/telephony/bargeIn/DetectorThreads.js';
import { MULAW_8K } from '../../../src/telephony/lineFormat.js';
import { VoiceBargeIn, type BargeInActions } from '../../../src/telephony/VoiceBargeIn.js';

/** The detector loads in real time (the native model, in its thread); bounded wait. */
const LOAD_WAIT_MS = 20_000;
/** Threads started one after another, each after the previous one ended. */
const THREADS_IN_TURN = 3;

beforeEach(() => configureDetectorThreads({ threads: 1, idleMs: 0 }));
afterEach(() => configureDetectorThreads({ idleMs: DEFAULT_DETECTOR_THREAD_IDLE_MS }));

function actions(notices: string[]): BargeInActions {
  const none = (): void => undefined;
  return { pause: none, resume: none, interrupt: none, turnStarted: none, turnEnded: none, warning: (w) => notices.push(w.message) };
}

describe('detector threads started one after another', () => {
  it('each loads Silero (the gated backend), not only the first', async () => {
    const backends: (string | null)[] = [];
    const notices: string[] = [];
    for (let k = 0; k < THREADS_IN_TURN; k++) {
      let ready = false;
      const voice = new VoiceBargeIn(
        { detectorThread: 'worker', vad: { onNotice: (m) => notices.push(m) } },
        MULAW_8K,
        actions(notices),
        () => (ready = true),
      );
      voice.setLine(MULAW_8K, 0);
      const deadline = Date.now() + LOAD_WAIT_MS;
      while (!ready && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      backends.push(voice.backend);
      const worker = detectorThreads.workers[0]!;
      const exited = once(worker, 'exit');
      voice.close();
      await voice.settled();
      await exited;
      expect(detectorThreads.size).toBe(0);
    }
    expect(notices).toEqual([]);
    expect(backends).toEqual(Array.from({ length: THREADS_IN_TURN }, () => 'gated'));
  });
});
