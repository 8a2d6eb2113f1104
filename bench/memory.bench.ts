/**
 * Scenario 6, memory: one stream of 60 minutes of real audio fed as fast as the pipeline takes it
 * (write until backpressure, resume on 'drain'; frames read as they come). RSS and heap are
 * sampled after a forced GC at every minute of audio produced; the target is growth ≤ 5 MB from
 * minute 5 to minute 60. Then the peak memory per concurrent stream: K streams fed round-robin at
 * once, (peak − baseline) / K, with the default ring and with a telephony-sized ring.
 *
 *   npm run bench -- memory
 *
 * The stream is generated lazily (bench/lib/speechStream.ts): the opus fixture's packets re-paged
 * into one continuous Ogg stream (200 ms pages), a chunk_seq per loop with growing alignment
 * snapshots, so the word timeline grows as it would on a real hour of speech.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createSpeechPipeline, type SpeechPipeline } from '../src/engine/SpeechPipeline.js';
import type { AudioFrame } from '../src/codec/types.js';
import type { PeakResult, PeakSpec } from './lib/concurrentPeak.js';
import { cpuMs, gc, hasGc } from './lib/measure.js';
import { round } from './lib/stats.js';
import { speechStream, type StreamFormat } from './lib/speechStream.js';
import type { BenchOptions, BenchResult } from './types.js';

const COMMAND = 'npm run bench -- memory';
const MB = 1e6;
const MIB = 2 ** 20;
const GROWTH_TARGET_MB = 5;
const FROM_MINUTE = 5;
const EVENT_SEC = 0.2;
/** Wait after a forced GC before sampling (see bench/lib/alloc.ts: the sweeper frees late). */
const SWEEP_WAIT_MS = 25;

interface Mark {
  minute: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

interface LongRun {
  marks: Mark[];
  peakRss: number;
  cpuSec: number;
  wallSec: number;
  audioSec: number;
  words: number;
  events: number;
}

function pipelineFor(format: StreamFormat, declaredRate: number | undefined, ringCapacity?: number): SpeechPipeline {
  return createSpeechPipeline({
    format,
    ...(declaredRate !== undefined ? { sampleRate: declaredRate } : {}),
    ...(ringCapacity !== undefined ? { ringCapacity } : {}),
  });
}

/** Least-squares slope of `y` per minute over the marks. */
function trendPerMinute(marks: Mark[], y: (m: Mark) => number): number {
  const n = marks.length;
  if (n < 2) return 0;
  const mx = marks.reduce((s, m) => s + m.minute, 0) / n;
  const my = marks.reduce((s, m) => s + y(m), 0) / n;
  let num = 0;
  let den = 0;
  for (const m of marks) {
    num += (m.minute - mx) * (y(m) - my);
    den += (m.minute - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** Runs bench/lib/concurrentPeak.ts in a fresh process (a clean RSS baseline for each ring size). */
function peakInChild(spec: PeakSpec): Promise<PeakResult> {
  const entry = fileURLToPath(new URL('./lib/concurrentPeak.ts', import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--expose-gc', '--import', 'tsx', entry, JSON.stringify(spec)], { timeout: 120_000 }, (err, stdout) => {
      if (err) reject(err);
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as PeakResult);
    });
  });
}

/** Writes every event with backpressure; resolves when the pipeline has ended. */
async function feed(p: SpeechPipeline, events: Iterable<Buffer>): Promise<void> {
  const ended = once(p, 'end');
  for (const ev of events) {
    if (!p.write(ev)) await once(p, 'drain');
  }
  p.end();
  await ended;
}

export async function longStream(format: StreamFormat, minutes: number): Promise<LongRun> {
  // One second more than asked, so the last minute mark is reached despite the codec's pre-skip.
  const stream = speechStream({ format, seconds: minutes * 60 + 1, eventSec: EVENT_SEC });
  const p = pipelineFor(format, stream.declaredRate);
  const perMinute = stream.sampleRate * 60;
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
    if ((++frames & 255) === 0) peakRss = Math.max(peakRss, process.memoryUsage.rss());
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
  return { marks, peakRss, cpuSec: (cpuMs() - c0) / 1000, wallSec: (performance.now() - w0 - pausedMs) / 1000, audioSec: samples / stream.sampleRate, words, events };
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const streams = opts.quick ? 10 : 100;
  const seconds = opts.quick ? 5 : 20;
  for (const [label, ring] of [['default ring (1 MiB cap, grows on demand)', undefined], ['64 KiB ring cap', 64 * 1024]] as const) {
    const c = await peakInChild({ format: 'opus', streams, seconds, eventSec: EVENT_SEC, ...(ring !== undefined ? { ringCapacity: ring } : {}) });
    results.push({
      scenario: `memory / peak per concurrent stream: ${streams} opus streams at once, ${label}`,
      figures: {
        'peak RSS MiB/stream': round(c.rssPerStream / MIB, 3),
        'live heap KiB/stream': round(c.heapPerStream / 1024, 1),
        'live ArrayBuffer KiB/stream': round(c.abPerStream / 1024, 1),
      },
      command: COMMAND,
      issueScenario: 6,
      notes: `each stream ${seconds} s of audio, one 200 ms event per stream per turn, frames read as they come; live = after a GC halfway; a fresh process per ring size`,
    });
  }
  const minutes = opts.quick ? 2 : 60;
  const from = opts.quick ? 1 : FROM_MINUTE;
  const formats: StreamFormat[] = opts.quick ? ['opus'] : ['opus', 'pcm', 'mp3'];
  for (const format of formats) {
    const r = await longStream(format, minutes);
    const a = r.marks.find((m) => m.minute === from);
    const b = r.marks.find((m) => m.minute === minutes) ?? r.marks.at(-1);
    if (!a || !b) throw new Error(`memory: no marks at minute ${from}/${minutes} (${r.marks.length} marks)`);
    // RSS read at one instant moves by several MB as the allocator takes and returns pages, so the
    // growth is the least-squares trend over every minute mark from `from` to the end (× the span);
    // the two-point difference is reported beside it.
    const span = r.marks.filter((m) => m.minute >= from);
    const rssGrowth = (trendPerMinute(span, (m) => m.rss) * (b.minute - a.minute)) / MB;
    const heapGrowth = (trendPerMinute(span, (m) => m.heapUsed) * (b.minute - a.minute)) / MB;
    const abGrowth = (b.arrayBuffers - a.arrayBuffers) / MB;
    results.push({
      scenario: `memory / one ${minutes}-minute ${format} stream (${EVENT_SEC * 1000} ms events, alignment snapshots) fed as fast as possible`,
      figures: {
        [`RSS growth min ${from}→${b.minute} (trend) MB`]: round(rssGrowth, 2),
        [`heap growth min ${from}→${b.minute} (trend) MB`]: round(heapGrowth, 2),
        'RSS two-point growth MB': round((b.rss - a.rss) / MB, 2),
        'heap two-point growth MB': round((b.heapUsed - a.heapUsed) / MB, 2),
        'ArrayBuffer growth MB': round(abGrowth, 2),
        'V8 heap committed growth MB': round((b.heapTotal - a.heapTotal) / MB, 2),
        'heap growth B/word': Math.round(((b.heapUsed - a.heapUsed) / r.words) * (minutes / (b.minute - a.minute))),
        'RSS at end MB': round(b.rss / MB, 1),
        'peak RSS MB': round(r.peakRss / MB, 1),
        '× real time': Math.round(r.audioSec / r.wallSec),
        'CPU s': round(r.cpuSec, 1),
        events: r.events,
        words: r.words,
      },
      target: `RSS and heap growth from minute ${FROM_MINUTE} to 60 ≤ ${GROWTH_TARGET_MB} MB (least-squares trend over the minute marks)`,
      ...(opts.quick ? {} : { met: rssGrowth <= GROWTH_TARGET_MB && heapGrowth <= GROWTH_TARGET_MB }),
      command: COMMAND,
      issueScenario: 6,
      notes:
        `marks taken after a forced GC at every minute of audio produced${hasGc ? '' : ' (NOT here: run without --expose-gc)'}; ` +
        'the heap trend is the word timeline, which the AlignmentStore keeps whole (timeline() is public API)',
    });
  }
  return results;
}
