/**
 * One detector thread with one call on it, for the tests of the thread's nice value
 * (test/telephony/bargeIn/detectorThreadNice.test.ts and its child process, ./detectorNiceChild.ts),
 * and a thread's nice value read back from Linux's `/proc/…/stat`.
 */
import { readFileSync } from 'node:fs';
import { DetectorThreads, type DetectorThreadOptions } from '../../../src/telephony/bargeIn/DetectorThreads.js';

/** The detector thread starts and loads the WebRTC VAD in real time; bounded wait, polled in real 5 ms steps. */
const WAIT_MS = 20_000;
/** Poll step while waiting for the thread. */
const POLL_MS = 5;
/** `stat`'s 19th field (the nice value), counted from the 3rd, the first after the command's `)`. */
const NICE_FIELD = 19 - 3;

/** The nice value in a `/proc/…/stat` file (`/proc/thread-self/stat`, `/proc/self/task/<tid>/stat`). */
export function niceOf(path: string): number {
  const stat = readFileSync(path, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[NICE_FIELD]);
}

export interface StartedThread {
  pool: DetectorThreads;
  /** The call on the thread (release it to let the thread end). */
  id: number;
  /** Whether the call's detector said it was ready within the wait. */
  ready: boolean;
  /** The thread's id, once it has said it (undefined if it has not). */
  tid: number | undefined;
  /** Notices the call got, and any failure as `failed: …`. */
  notices: string[];
}

/** A pool of one thread configured with `options`, one call on it (WebRTC VAD), waited for until ready. */
export async function startDetectorThread(options: Pick<DetectorThreadOptions, 'nice'>): Promise<StartedThread> {
  const pool = new DetectorThreads();
  pool.configure({ threads: 1, idleMs: 0, ...options });
  const notices: string[] = [];
  let ready = false;
  const id = pool.attach({
    message: (m) => {
      if (m.t === 'notice') notices.push(m.message);
      if (m.t === 'ready') ready = true;
    },
    failed: (e) => notices.push(`failed: ${e.message}`),
  });
  pool.post(id, { t: 'open', id, options: { vad: { backend: 'webrtc' } } });
  const deadline = Date.now() + WAIT_MS;
  while (!ready && Date.now() < deadline) await new Promise((r) => setTimeout(r, POLL_MS));
  return { pool, id, ready, tid: pool.threadIds[0], notices };
}
