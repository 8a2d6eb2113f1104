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
 * snapshots, so the word timeline grows as it would on a real hour of speech. Its events are
 * written as bytes, as a socket delivers them (bench/lib/sseBytes.ts), so the figures are the
 * engine's, not the generator's strings.
 *
 * Each hour runs in a fresh process (bench/lib/longStream.ts), as each peak does: in one shared
 * process a format's figure depended on what ran before it. After the ~25 s idle wait for the
 * peak children V8 had shrunk its young generation, and regrowing it mid-hour added 8–12 MB of
 * RSS to the first format; the formats after it started with a young generation another
 * stream had already grown.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { PeakResult, PeakSpec } from './lib/concurrentPeak.js';
import type { LongRun, LongSpec, Mark } from './lib/longStream.js';
import { round } from './lib/stats.js';
import type { StreamFormat } from './lib/speechStream.js';
import type { BenchOptions, BenchResult } from './types.js';

const COMMAND = 'npm run bench -- memory';
const MB = 1e6;
const MIB = 2 ** 20;
const GROWTH_TARGET_MB = 5;
const FROM_MINUTE = 5;
const EVENT_SEC = 0.2;
const CHILD_TIMEOUT_MS = 120_000;

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

/** Runs `bench/lib/<entry>` in a fresh process (a clean heap and RSS baseline) and parses its last output line. */
function inChild<T>(entry: string, spec: object, nodeFlags: string[] = []): Promise<T> {
  const file = fileURLToPath(new URL(`./lib/${entry}`, import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', ...nodeFlags, '--import', 'tsx', file, JSON.stringify(spec)],
      { timeout: CHILD_TIMEOUT_MS },
      (err, stdout) => {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- an Error, typed as an Omit<> intersection
        if (err) reject(err);
        else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as T);
      },
    );
  });
}

const peakInChild = (spec: PeakSpec): Promise<PeakResult> => inChild('concurrentPeak.ts', spec);
/**
 * `--no-memory-reducer`: tsx compiles our TypeScript in a loader worker thread, an isolate of its
 * own in the same process. About 8 s after the modules are loaded, V8's memory reducer shrinks
 * that idle isolate and RSS drops by 6–11 MB: in the middle of the opus hour (a ~7 s run), which
 * made its RSS trend −4 to −7 MB, a drop that is not the engine's and hid any growth. The
 * engine's isolate is busy throughout, so the reducer never acts on it here; without tsx (built
 * JS) there is no loader isolate at all.
 */
const LONG_STREAM_NODE_FLAGS = ['--no-memory-reducer'];
const longInChild = (spec: LongSpec): Promise<LongRun> => inChild('longStream.ts', spec, LONG_STREAM_NODE_FLAGS);

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const streams = opts.quick ? 10 : 100;
  const seconds = opts.quick ? 5 : 20;
  for (const [label, ring] of [
    ['default ring (1 MiB cap, grows on demand)', undefined],
    ['64 KiB ring cap', 64 * 1024],
  ] as const) {
    const c = await peakInChild({
      format: 'opus',
      streams,
      seconds,
      eventSec: EVENT_SEC,
      ...(ring !== undefined ? { ringCapacity: ring } : {}),
    });
    results.push({
      scenario: `memory / peak per concurrent stream: ${streams} opus streams at once, ${label}`,
      figures: {
        'peak RSS MiB/stream': round(c.rssPerStream / MIB, 3),
        'live heap KiB/stream': round(c.heapPerStream / 1024, 1),
        'live ArrayBuffer KiB/stream': round(c.abPerStream / 1024, 1),
      },
      command: COMMAND,
      issueScenario: 6,
      notes:
        `each stream ${seconds} s of audio, one 200 ms event per stream per turn, frames read as they come; ` +
        `live = after a GC halfway; a fresh process per ring size`,
    });
  }
  const minutes = opts.quick ? 2 : 60;
  const from = opts.quick ? 1 : FROM_MINUTE;
  const formats: StreamFormat[] = opts.quick ? ['opus'] : ['opus', 'pcm', 'mp3'];
  for (const format of formats) {
    const r = await longInChild({ format, minutes, eventSec: EVENT_SEC });
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
      scenario:
        `memory / one ${minutes}-minute ${format} stream (${EVENT_SEC * 1000} ms events, ` + `alignment snapshots) fed as fast as possible`,
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
        'a fresh process per format (node --no-memory-reducer: see LONG_STREAM_NODE_FLAGS); ' +
        'marks taken after a forced GC at every minute of audio produced; events written as bytes ' +
        '(bench/lib/sseBytes.ts, byte-identical to the string-built ones); ' +
        'the heap trend is the word timeline, which the AlignmentStore keeps whole (timeline() is public API)',
    });
  }
  return results;
}
