/**
 * Child-process entry (so the parent can pin it to one core with `taskset -c 0`): runs
 * {@link runStreams} for each spec given as JSON in argv[2] and prints the results as one JSON line.
 */
import { runStreams, type StreamsSpec } from './telephonyStreams.js';

const specs = JSON.parse(process.argv[2] ?? '[]') as StreamsSpec[];
const out = [];
for (const spec of specs) out.push(await runStreams(spec));
process.stdout.write(JSON.stringify(out) + '\n');
process.exit(0);
