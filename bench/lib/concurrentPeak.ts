/**
 * Peak memory per concurrent stream (scenario 6), in a process of its own so that the RSS
 * baseline is clean: `node --expose-gc --import tsx bench/lib/concurrentPeak.ts '<json spec>'`
 * prints one JSON line.
 */
import { once } from 'node:events';
import { createSpeechPipeline } from '../../src/engine/SpeechPipeline.js';
import { gc, nextTurn } from './measure.js';
import { speechStream, type StreamFormat } from './speechStream.js';

export interface PeakSpec {
  format: StreamFormat;
  streams: number;
  seconds: number;
  eventSec: number;
  ringCapacity?: number;
}

export interface PeakResult {
  rssPerStream: number;
  heapPerStream: number;
  abPerStream: number;
}

/**
 * K streams at once, fed round-robin one event each per turn. Live memory per stream: taken after
 * a forced GC halfway through (what each open stream holds); peak RSS per stream: the highest RSS
 * seen above the baseline (garbage included, as the OS sees it), both divided by K.
 */
export async function concurrentPeak({ format, streams, seconds, eventSec, ringCapacity }: PeakSpec): Promise<PeakResult> {
  gc();
  await nextTurn();
  gc();
  const base = process.memoryUsage();
  const sources = Array.from({ length: streams }, () => speechStream({ format, seconds, eventSec: eventSec }));
  const pipes = sources.map((s) =>
    createSpeechPipeline({
      format,
      ...(s.declaredRate !== undefined ? { sampleRate: s.declaredRate } : {}),
      ...(ringCapacity !== undefined ? { ringCapacity } : {}),
    }),
  );
  const ends = pipes.map((p) => once(p, 'end'));
  for (const p of pipes) p.on('data', () => undefined);
  const halfway = Math.floor(seconds / eventSec / 2);
  let peakRss = 0;
  let live = { heap: NaN, ab: NaN };
  const open = new Set(pipes.keys());
  for (let turn = 0; open.size > 0 && turn < 1_000_000; turn++) {
    for (const i of [...open]) {
      const next = sources[i]!.events.next();
      if (next.done) {
        pipes[i]!.end();
        open.delete(i);
      } else pipes[i]!.write(next.value);
    }
    await nextTurn();
    if (turn === halfway) {
      gc();
      const m = process.memoryUsage();
      live = { heap: m.heapUsed - base.heapUsed, ab: m.arrayBuffers - base.arrayBuffers };
    }
    if (turn % 4 === 0) peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }
  await Promise.all(ends);
  return { rssPerStream: (peakRss - base.rss) / streams, heapPerStream: live.heap / streams, abPerStream: live.ab / streams };
}

if (process.argv[1]?.endsWith('concurrentPeak.ts')) {
  const spec = JSON.parse(process.argv[2] ?? '{}') as PeakSpec;
  // One small run first, so module loading, JIT code and the fixture cache are in the baseline.
  await concurrentPeak({ ...spec, streams: 1, seconds: 1 });
  const result = await concurrentPeak(spec);
  process.stdout.write(JSON.stringify(result) + '\n');
  process.exit(0);
}
