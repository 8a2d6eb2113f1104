/** worker_threads entry: runs {@link runStreams} with `workerData` and posts the result. */
import { parentPort, workerData } from 'node:worker_threads';
import { runStreams, type StreamsSpec } from './telephonyStreams.js';

const result = await runStreams(workerData as StreamsSpec);
parentPort!.postMessage(result);
