/**
 * A process that starts one detector thread with the `nice` given as its argument and prints, as
 * one JSON line, the nice value it and its detector thread have and the notices the call got
 * (test/telephony/bargeIn/detectorThreadNice.test.ts runs it where the system refuses a raised
 * priority: without CAP_SYS_NICE).
 */
import { niceOf, startDetectorThread } from './detectorThreadStart.js';

const { pool, id, ready, tid, notices } = await startDetectorThread({ nice: Number(process.argv[2]) });
process.stdout.write(
  `${JSON.stringify({
    process: niceOf('/proc/thread-self/stat'),
    thread: tid === undefined ? null : niceOf(`/proc/self/task/${tid}/stat`),
    ready,
    notices,
  })}\n`,
);
pool.release(id);
