// A worker for test/bench/threadPolicy.test.ts: sets its own policy as the bench phones do, says
// what it got, keeps running until told to stop (so the test reads it back from /proc while it lives).
import { parentPort, workerData } from 'node:worker_threads';
import { idleThisThread, normalThisThread } from '../../../bench/lib/threadPolicy.mjs';

const result =
  workerData.mode === 'normal' ? normalThisThread() : idleThisThread(workerData.chrt === undefined ? {} : { chrt: workerData.chrt });
parentPort.postMessage(result);
parentPort.once('message', () => parentPort.close());
