/**
 * A process that starts one detector thread with the `nice` given as its argument and prints, as
 * one JSON line, the nice value it and its detector thread have and the notices the call got
 * (test/telephony/bargeIn/detectorThreadNice.test.ts runs it where the system refuses a raised
 * priority: without CAP_SYS_NICE).
 */
import { readFileSync } from 'node:fs';
import { DetectorThreads } from '../../../src/telephony/bargeIn/DetectorThreads.js';

/** The detector thread starts and loads the WebRTC VAD in real time; bounded wait, polled in 5 ms steps. */
const WAIT_MS = 20_000;
/** `stat`'s 19th field (the nice value), counted from the 3rd, the first after the command's `)`. */
const NICE_FIELD = 19 - 3;

function niceOf(path: string): number {
  const stat = readFileSync(path, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[NICE_FIELD]);
}

const pool = new DetectorThreads();
pool.configure({ threads: 1, idleMs: 0, nice: Number(process.argv[2]) });
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
while (!ready && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
const tid = pool.threadIds[0];
process.stdout.write(
  `${JSON.stringify({
    process: niceOf('/proc/thread-self/stat'),
    thread: tid === undefined ? null : niceOf(`/proc/self/task/${tid}/stat`),
    ready,
    notices,
  })}\n`,
);
pool.release(id);
