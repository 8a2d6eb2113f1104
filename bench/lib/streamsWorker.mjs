// worker_threads entry for bench/concurrency.bench.ts: a worker does not inherit the parent's
// `--import tsx` loader hooks, so it registers tsx itself, then runs the TypeScript streams.
import { parentPort, workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

const { runStreams } = await tsImport('./telephonyStreams.ts', import.meta.url);
parentPort.postMessage(await runStreams(workerData));
