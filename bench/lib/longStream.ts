/**
 * One long speech stream fed as fast as the pipeline takes it (scenario 6), with RSS and heap
 * sampled after a forced GC at every minute of audio produced. Run in a process of its own, so
 * that what ran before (another format's hour, the idle wait for the peak children, during which
 * V8 shrinks its young generation) never decides the figure:
 *
 *   node --expose-gc --import tsx bench/lib/longStream.ts '{"format":"opus","minutes":60}'
 *
 * prints one JSON line (a {@link LongRun}).
 */
import { once } from 'node:events';
import { createSpeechPipeline, type SpeechPipeline } from '../../src/engine/SpeechPipeline.js';
import type { AudioFrame } from '../../src/codec/types.js';
import { cpuMs, gc } from './measure.js';
import { speechStream, type StreamFormat } from './speechStream.js';

export interface LongSpec {
  format: StreamFormat;
  minutes: number;
  /** Audio per SSE event. @defaultValue 0.2 */
  eventSec?: number;
}

export interface Mark {
  minute: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

export interface LongRun {
  marks: Mark[];
  peakRss: number;
  cpuSec: number;
  wallSec: number;
  audioSec: number;
  words: number;
  events: number;
}

const DEFAULT_EVENT_SEC = 0.2;
/** Wait after a forced GC before sampling (see bench/lib/alloc.ts: the sweeper frees late). */
const SWEEP_WAIT_MS = 25;
/** Frames between two RSS reads for the peak. */
const PEAK_EVERY_FRAMES = 256;
const SECONDS_PER_MINUTE = 60;

/** Writes every event with backpressure; resolves when the pipeline has ended. */
async function feed(p: SpeechPipeline, events: Iterable<Buffer>): Promise<void> {
  const ended = once(p, 'end');
  for (const ev of events) {
    if (!p.write(ev)) await once(p, 'drain');
  }
  p.end();
  await ended;
}

export async function longStream({ format, minutes, eventSec = DEFAULT_EVENT_SEC }: LongSpec): Promise<LongRun> {
  // One second more than asked, so the last minute mark is reached despite the codec's pre-skip.
  const stream = speechStream({ format, seconds: minutes * SECONDS_PER_MINUTE + 1, eventSec });
  const p = createSpeechPipeline({ format, ...(stream.declaredRate !== undefined ? { sampleRate: stream.declaredRate } : {}) });
  const perMinute = stream.sampleRate * SECONDS_PER_MINUTE;
  const marks: Mark[] = [];
  let samples = 0;
  let nextMinute = 1;
  let peakRss = 0;
  let frames = 0;
  let words = 0;
  p.on('word', () => words++);
  let pausedMs = 0;
  p.on('data', (f: AudioFrame) => {
    samples += f.sampleCount;
    if (++frames % PEAK_EVERY_FRAMES === 0) peakRss = Math.max(peakRss, process.memoryUsage.rss());
    if (samples < nextMinute * perMinute) return;
    // A minute mark: pause the stream, GC, and give the concurrent sweeper time to free the
    // backing stores of dead frames (read at once, the ArrayBuffer and RSS figures swing by
    // ~12 MB with its progress), then sample and go on.
    const minute = nextMinute;
    while (samples >= nextMinute * perMinute) nextMinute++;
    p.pause();
    const t = performance.now();
    gc();
    setTimeout(() => {
      gc();
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      marks.push({ minute, rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers });
      pausedMs += performance.now() - t;
      p.resume();
    }, SWEEP_WAIT_MS);
  });
  let events = 0;
  const counted = (function* () {
    for (const e of stream.events) {
      events++;
      yield e;
    }
  })();
  const c0 = cpuMs();
  const w0 = performance.now();
  await feed(p, counted);
  return {
    marks,
    peakRss,
    cpuSec: (cpuMs() - c0) / 1000,
    wallSec: (performance.now() - w0 - pausedMs) / 1000,
    audioSec: samples / stream.sampleRate,
    words,
    events,
  };
}

if (process.argv[1]?.endsWith('longStream.ts')) {
  const spec = JSON.parse(process.argv[2] ?? '{}') as LongSpec;
  process.stdout.write(JSON.stringify(await longStream(spec)) + '\n');
  process.exit(0);
}
