// Starts ./detectorWorker.ts from the TypeScript sources (tests, examples and benches run under tsx):
// a worker thread does not inherit the parent's tsx loader, and `execArgv: ['--import', 'tsx']` does
// not reach a worker on Node 20, so this plain module registers tsx in the thread, then loads the
// entry. The published package runs dist/telephony/bargeIn/detectorWorker.js directly and never
// loads this file.
import { workerData } from 'node:worker_threads';

const { register } = await import('tsx/esm/api');
register();
await import(workerData.entry);
