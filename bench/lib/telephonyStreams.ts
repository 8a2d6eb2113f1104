/**
 * N real-time telephony streams in one thread (scenario 5): each turns a real Ogg Opus 48 kHz
 * speech capture (recorded from the local service, bench/lib/realCapture.ts) into 8 kHz μ-law
 * 20 ms frames, fed as a live response arrives and read one frame every 20 ms on the real clock,
 * as a phone line takes them.
 *
 * - Feed: each SSE event becomes readable when a real-time service would have sent it (the end of
 *   its audio minus the service's 0.5 s lead, `dueSec`), cut into 1460 B reads (TCP segments),
 *   each its own `write()`.
 * - Frame lateness = when a frame was actually taken − when it was due. Timers are scheduled on
 *   absolute times (`due − now`), so one late tick does not shift the rest. Streams start spread
 *   over a second, as calls do.
 * - The measuring window holds only streams in steady state: it opens once every stream has
 *   started and warmed up, and closes before the first stream's last frame. Lateness and CPU
 *   (process CPU, all threads) count only inside it.
 *
 * Contenders, same capture, same schedule, same timers:
 * - `engine`: a SpeechPipeline (opus → native 8 kHz decode → μ-law), frames taken with
 *   `readFrame()` (its pull API for consumers on their own clock);
 * - `engine-read`: the same, frames taken with the stream's `read()`;
 * - `floor`: raw libopus (the engine's backend, decoding at 8 kHz) on each event's packets when
 *   the event arrives, a 20 ms frame taken from a queue per tick: no SSE, no JSON, no ring, no
 *   framer, no μ-law, no stream machinery — the least any implementation must do;
 * - `bare`: the frame timers alone (the machine's own lateness).
 *
 * Beside lateness and CPU, every stream timer callback (a frame tick, a feed tick) is timed as one
 * visit (bench/lib/visitHistogram.ts): how long one stream's work holds the loop.
 */
import { once } from 'node:events';
import { readFileSync, writeSync } from 'node:fs';
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import * as v8 from 'node:v8';
import { createOpusPacketDecoder } from '../../src/codec/opus/backend.js';
import { loadResampler } from '../../src/dsp/Resampler.js';
import * as thisEngine from '../../src/engine/SpeechPipeline.js';
import { sliceReads, tcpReads } from './readSizes.js';
import { parseCapture, type RealCapture } from './realCapture.js';
import { LatencyHistogram } from './stats.js';
import { ownThreadId, sampleThreads, threadWindow, type ThreadCounters, type ThreadWindow } from './threadStats.js';
import { VisitHistogram, type VisitHistogramJSON } from './visitHistogram.js';
import { goldenFraction, modelQueue, newTrace, traceVisit, type QueueModelRow, type VisitTrace } from './visitQueue.js';

export const TELEPHONY_RATE = 8000;
/**
 * STREAMS_TRACE_MARKS=1 writes `@@window-start` and `@@window-end` to fd 1 (not through
 * process.stdout's Writable) when the window opens and closes, so that a child run with
 * `--trace-opt --trace-deopt` can be cut to the window (bench/lib/deoptCount.ts).
 */
const TRACE_MARKS = process.env['STREAMS_TRACE_MARKS'] === '1';
export const FRAME_MS = 20;
/**
 * Streams the warm-up runs side by side (StreamsSpec.warmupStreams). With one stream read by
 * `read()`, V8 compiled inside the measuring window what one pipeline leaves cold (functions run
 * per changed snapshot or per chunk, `readFrame()`'s decode path), and threw away there the code
 * that had inlined the warm-up pipeline's objects when it died: 0.3–0.9 s of background compile
 * per run at N = 60. Those are once per process: where calls come and go
 * (bench/lib/churnStreams.ts) no engine function was de-optimised after the first 100 call
 * starts. 8 streams, taking frames as the measured ones do, halved the window's compile time
 * (924 → 487 ms, traced, N = 60); what is left is pretenuring decisions and functions first
 * reached late (native-notes/engine-performance.md, fifteenth pass).
 */
export const WARMUP_STREAMS = 8;

export type StreamsContender = 'engine' | 'engine-read' | 'floor' | 'bare';

export interface StreamsSpec {
  streams: number;
  contender: StreamsContender;
  /** The recorded opus SSE body (a file, so child processes and workers read the same bytes). */
  capturePath: string;
  /** Frames due before this long after the LAST stream started are not measured (JIT, each
   * stream's first decode: a steady state of N open calls, not N calls starting). */
  warmupSec: number;
  /** The window closes this long before the first stream's last frame is due. */
  endMarginSec: number;
  /** Calls start spread over this window (see `starts`). */
  startSpreadMs: number;
  /**
   * How the starts are spread: `golden` (default), stream i at frac(i·φ) of the spread, a
   * low-discrepancy sequence, so the streams' 20 ms frame phases (and 100 ms event phases) are
   * spread evenly whatever N is, as calls starting at random times are; `grid`, stream i at i/N of
   * it (before 2026-11-28's thirteenth pass), which puts streams whose starts differ by a multiple
   * of 20 ms on the same frame phase: groups of 10 streams due in the same millisecond at most N,
   * groups of 50 when N is a multiple of 50 (native-notes/engine-performance.md, thirteenth pass).
   */
  starts?: 'golden' | 'grid';
  /**
   * Streams the warm-up runs the capture through, side by side, before the calls start (flat out,
   * frames taken as the contender takes them); {@link WARMUP_STREAMS} when absent. 1 is the
   * warm-up before 2026-11-29 (one pipeline, frames by `read()`).
   */
  warmupStreams?: number;
  /** Ring per pipeline (bounded memory per call). */
  ringCapacity?: number;
  /** The engine's `readFrame()` decode-ahead (SpeechPipelineOptions.pullAheadMs); its default when absent. */
  pullAheadMs?: number;
  /** The engine's `readFrame()` spread (SpeechPipelineOptions.pullSpreadMs): at most this much decoded per visit. */
  pullSpreadMs?: number;
  /**
   * How visits are timed: `wall` (performance.now(), default: a quiet machine) or `cpu` (process
   * CPU, `process.cpuUsage()`, a syscall per read: a preempted visit does not read long, so it
   * holds on a loaded machine, at ~1–2 µs of extra CPU per visit on both sides).
   */
  visitClock?: 'wall' | 'cpu';
  /**
   * Another checkout's engine for the `engine` contenders (before/after in one run): the path of
   * its `src/engine/SpeechPipeline.ts`; this tree's when absent. Its conversion stage's resampler
   * (`src/dsp/Resampler.ts` beside it) is loaded before the run, as this tree's is.
   */
  engineModule?: string;
  /**
   * Record every visit inside the window (due time, CPU) and replay it as a queue at each of these
   * multiples of the run's streams (bench/lib/visitQueue.ts); implies `visitClock: 'cpu'`.
   */
  modelCopies?: number[];
}

export interface StreamsResult {
  hist: ReturnType<LatencyHistogram['toJSON']>;
  frames: number;
  underruns: number;
  errors: string[];
  /** Process CPU (all threads) inside the measuring window. */
  cpuMs: number;
  /** Its system (kernel) part: timers' epoll wake-ups and the like. */
  systemMs: number;
  /** Length of the measuring window. */
  windowMs: number;
  audioSec: number;
  rssMiB: number;
  /** Inside the window: each frame tick's duration (take a frame, and any decode it starts), µs. */
  frameVisits: VisitHistogramJSON;
  /** Inside the window: each feed tick's duration (the writes of the events due, and what they start), µs. */
  feedVisits: VisitHistogramJSON;
  /** With StreamsSpec.modelCopies: the queue model at each multiple. */
  queueModel?: QueueModelRow[];
  /**
   * Inside the window, from Linux schedstat (bench/lib/threadStats.ts): the streams' thread's CPU
   * and run-queue wait, and every other thread's CPU (V8's GC and compiler helpers, libuv's pool),
   * ms per wall second. NaN figures where /proc is missing.
   */
  threads: ThreadWindow;
  /** Inside the window: V8's collections (PerformanceObserver 'gc' entries) and what was allocated. */
  gc: GcWindow;
}

/** Garbage collection and allocation inside the measuring window. */
export interface GcWindow {
  /** Collections that started inside the window (every kind). */
  count: number;
  /** Of them, full (mark-compact) collections. */
  major: number;
  /** Their summed durations (the main thread's pauses), ms. */
  pauseMs: number;
  /**
   * Bytes allocated on V8's heap: the growth of the used heap between collections (each one's
   * heap before it minus the previous one's after it; v8.GCProfiler), plus the growth after the last.
   */
  heapBytes: number;
  /**
   * Bytes of ArrayBuffer backing stores (external memory) allocated, counted the same way: a
   * lower bound, since a store allocated and freed between two collections is not seen.
   */
  externalBytes: number;
}

/**
 * Counts the collections and the bytes allocated between {@link GcMeter.open} and
 * {@link GcMeter.close}. The 'gc' observer is delivered asynchronously (after the collection),
 * outside the visits; the GCProfiler records the heap's size around each collection.
 */
class GcMeter {
  private readonly entries: { start: number; duration: number; major: boolean }[] = [];
  private readonly observer = new PerformanceObserver((list) => this.keep(list.getEntries()));
  private profiler: v8.GCProfiler | null = null;
  private heap0 = 0;
  private external0 = 0;

  constructor() {
    this.observer.observe({ entryTypes: ['gc'] });
  }

  open(): void {
    const h = v8.getHeapStatistics();
    this.heap0 = h.used_heap_size;
    this.external0 = h.external_memory;
    this.profiler = new v8.GCProfiler();
    this.profiler.start();
  }

  /** The window [from, to] in performance.now() terms. */
  close(from: number, to: number): GcWindow {
    const h = v8.getHeapStatistics();
    const stats = this.profiler?.stop()?.statistics ?? [];
    let heapBytes = 0;
    let externalBytes = 0;
    let heapPrev = this.heap0;
    let externalPrev = this.external0;
    for (const g of stats) {
      heapBytes += Math.max(0, g.beforeGC.heapStatistics.usedHeapSize - heapPrev);
      externalBytes += Math.max(0, g.beforeGC.heapStatistics.externalMemory - externalPrev);
      heapPrev = g.afterGC.heapStatistics.usedHeapSize;
      externalPrev = g.afterGC.heapStatistics.externalMemory;
    }
    heapBytes += Math.max(0, h.used_heap_size - heapPrev);
    externalBytes += Math.max(0, h.external_memory - externalPrev);
    return { ...this.collections(from, to), heapBytes, externalBytes };
  }

  private keep(entries: PerformanceEntry[]): void {
    for (const e of entries) {
      const kind = (e as PerformanceEntry & { detail?: { kind?: number } | null }).detail?.kind;
      this.entries.push({ start: e.startTime, duration: e.duration, major: kind === MAJOR_GC_KIND });
    }
  }

  /** The observed collections that started inside [from, to]; stops observing. */
  collections(from: number, to: number): Pick<GcWindow, 'count' | 'major' | 'pauseMs'> {
    this.keep(this.observer.takeRecords());
    this.observer.disconnect();
    const inside = this.entries.filter((e) => e.start >= from && e.start < to);
    return {
      count: inside.length,
      major: inside.filter((e) => e.major).length,
      pauseMs: inside.reduce((a, e) => a + e.duration, 0),
    };
  }
}

/** perf_hooks.constants.NODE_PERFORMANCE_GC_MAJOR: a mark-compact collection. */
const MAJOR_GC_KIND = 4;

/** Playback starts this long after a stream starts. */
const PLAYOUT_DELAY_MS = 40;
const START_DELAY_MS = 100;
/** Samples per 20 ms frame at 8 kHz. */
const FRAME_SAMPLES = (TELEPHONY_RATE * FRAME_MS) / 1000;
const MS = 1000;

/** A clock in µs for timing visits (see StreamsSpec.visitClock). */
type VisitClock = () => number;
const wallUs: VisitClock = () => performance.now() * MS;
const cpuUs: VisitClock = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

interface Wire {
  capture: RealCapture;
  /** Per event: its bytes cut into 1460 B reads. */
  reads: Buffer[][];
}

async function loadWire(path: string): Promise<Wire> {
  const capture = await parseCapture({ format: 'opus', text: '' }, readFileSync(path));
  return { capture, reads: capture.events.map((e) => sliceReads(e, tcpReads())) };
}

const mulaw = { sampleRate: TELEPHONY_RATE, encoding: 'mulaw', channels: 1 } as const;

type EngineModule = Pick<typeof thisEngine, 'createSpeechPipeline'>;

/** The engine under test: this tree's, or another checkout's (StreamsSpec.engineModule) with its resampler loaded. */
async function loadEngine(spec: StreamsSpec): Promise<EngineModule> {
  if (spec.engineModule === undefined) return thisEngine;
  const dsp = new URL('../dsp/Resampler.ts', `file://${spec.engineModule}`).pathname;
  await ((await import(dsp)) as { loadResampler(): Promise<void> }).loadResampler();
  return (await import(spec.engineModule)) as EngineModule;
}

/**
 * Loads the conversion stage's wasm and runs the capture through `spec.warmupStreams` streams side
 * by side, flat out, so the measured run starts warm (WARMUP_STREAMS). The engine's streams take
 * their frames as the contender does (`readFrame()` at its decode-ahead, or `read()`), event by
 * event; they are destroyed before the calls start. No forced GC.
 */
async function warmUp(wire: Wire, spec: StreamsSpec, engine: EngineModule): Promise<void> {
  const { contender } = spec;
  const streams = spec.warmupStreams ?? WARMUP_STREAMS;
  if (contender === 'engine' || contender === 'engine-read') {
    await loadResampler();
    if (spec.warmupStreams === 1) {
      // The warm-up before 2026-11-29, kept for before/after runs: one pipeline, frames by read().
      const p = engine.createSpeechPipeline({ format: 'opus', output: mulaw });
      p.on('data', () => undefined);
      const ended = once(p, 'end');
      for (const e of wire.reads) for (const r of e) p.write(r);
      p.end();
      await ended;
      return;
    }
    const pull = contender === 'engine';
    const ps = Array.from({ length: streams }, () => {
      const p = engine.createSpeechPipeline({
        format: 'opus',
        output: mulaw,
        ...(spec.ringCapacity !== undefined ? { ringCapacity: spec.ringCapacity } : {}),
        ...(spec.pullAheadMs !== undefined ? { pullAheadMs: spec.pullAheadMs } : {}),
        ...(spec.pullSpreadMs !== undefined ? { pullSpreadMs: spec.pullSpreadMs } : {}),
      });
      p.on('word', () => undefined);
      return p;
    });
    for (const e of wire.reads) {
      for (const p of ps) {
        for (const r of e) p.write(r);
        if (pull) while (p.readFrame() !== null);
        else while (p.read() !== null);
      }
      await new Promise((r) => setImmediate(r));
    }
    for (const p of ps) {
      p.end();
      if (pull) while (p.readFrame() !== null);
      else while (p.read() !== null);
      p.destroy();
    }
  } else if (contender === 'floor') {
    for (let k = 0; k < streams; k++) {
      const dec = createOpusPacketDecoder(TELEPHONY_RATE, 1, 'native');
      for (const page of wire.capture.packets!) for (const packet of page) dec.decode(packet);
      dec.free();
    }
  }
}

interface Window {
  from: number;
  to: number;
}

function recordFeed(rec: Recorder, dueMs: number, us: number): void {
  rec.feedVisits.record(us);
  if (rec.trace !== null) traceVisit(rec.trace, dueMs, us, false);
}

function recordFrame(rec: Recorder, dueMs: number, us: number): void {
  rec.frameVisits.record(us);
  if (rec.trace !== null) traceVisit(rec.trace, dueMs, us, true);
}

/** Per stream: the feed timer (events released on the capture's real-time schedule) and the frame timer. */
type StreamBody = (i: number, start: number, win: Window, rec: Recorder) => Promise<void>;

interface Recorder {
  hist: LatencyHistogram;
  frames: number;
  underruns: number;
  errors: string[];
  rss: number;
  frameVisits: VisitHistogram;
  feedVisits: VisitHistogram;
  visitUs: VisitClock;
  trace: VisitTrace | null;
}

function engineStream(wire: Wire, spec: StreamsSpec, pull: boolean, engine: EngineModule): StreamBody {
  const { dueSec } = wire.capture;
  return (i, start, win, rec) =>
    new Promise((resolve) => {
      const p = engine.createSpeechPipeline({
        format: 'opus',
        output: mulaw,
        ...(spec.ringCapacity !== undefined ? { ringCapacity: spec.ringCapacity } : {}),
        ...(spec.pullAheadMs !== undefined ? { pullAheadMs: spec.pullAheadMs } : {}),
        ...(spec.pullSpreadMs !== undefined ? { pullSpreadMs: spec.pullSpreadMs } : {}),
      });
      const playStart = start + PLAYOUT_DELAY_MS;
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        resolve();
      };
      p.on('error', (e: Error) => {
        rec.errors.push(`stream ${i}: ${e.message}`);
        finish();
      });
      p.once('end', finish);
      p.on('word', () => undefined);

      let ev = 0;
      const feedTick = (): void => {
        const v0 = rec.visitUs();
        const now = performance.now();
        const due0 = start + (dueSec[ev] ?? 0) * MS;
        while (ev < dueSec.length && start + dueSec[ev]! * MS <= now) {
          for (const r of wire.reads[ev]!) p.write(r);
          ev++;
        }
        if (ev >= dueSec.length) p.end();
        else setTimeout(feedTick, start + dueSec[ev]! * MS - now);
        if (now >= win.from && now < win.to) recordFeed(rec, due0, rec.visitUs() - v0);
      };

      let k = 0;
      let waiting = false;
      const tick = (): void => {
        const v0 = rec.visitUs();
        if (done) return;
        waiting = false;
        const now = performance.now();
        const due = playStart + k * FRAME_MS;
        const frame = pull ? p.readFrame() : (p.read() as unknown);
        if (frame === null) {
          if (!waiting) {
            waiting = true;
            if (due >= win.from && due < win.to && ev < dueSec.length) rec.underruns++;
            p.once('readable', tick);
          }
          return;
        }
        if (due >= win.from && due < win.to) {
          rec.hist.record(now - due);
          rec.frames++;
        }
        k++;
        if (i === 0 && (k & 63) === 0) rec.rss = Math.max(rec.rss, process.memoryUsage.rss());
        setTimeout(tick, playStart + k * FRAME_MS - performance.now());
        if (due >= win.from && due < win.to) recordFrame(rec, due, rec.visitUs() - v0);
      };
      setTimeout(feedTick, start - performance.now());
      setTimeout(tick, playStart - performance.now());
    });
}

/** Raw libopus at 8 kHz on each event's packets as it arrives; one 20 ms frame taken per tick. */
function floorStream(wire: Wire): StreamBody {
  const { dueSec, packets } = wire.capture;
  return (i, start, win, rec) =>
    new Promise((resolve) => {
      const dec = createOpusPacketDecoder(TELEPHONY_RATE, 1, 'native');
      const queue: Int16Array[] = [];
      let head = 0;
      let offset = 0;
      const playStart = start + PLAYOUT_DELAY_MS;
      let ev = 0;
      const feedTick = (): void => {
        const v0 = rec.visitUs();
        const now = performance.now();
        const due0 = start + (dueSec[ev] ?? 0) * MS;
        while (ev < dueSec.length && start + dueSec[ev]! * MS <= now) {
          for (const packet of packets![ev]!) queue.push(dec.decode(packet));
          ev++;
        }
        if (ev < dueSec.length) setTimeout(feedTick, start + dueSec[ev]! * MS - now);
        if (now >= win.from && now < win.to) recordFeed(rec, due0, rec.visitUs() - v0);
      };
      /** Takes 160 samples off the queue (a frame); false when too few have arrived. */
      const take = (): boolean => {
        let need = FRAME_SAMPLES;
        let available = -offset;
        for (let q = head; q < queue.length && available < need; q++) available += queue[q]!.length;
        if (available < need) return false;
        while (need > 0) {
          const n = Math.min(need, queue[head]!.length - offset);
          need -= n;
          offset += n;
          if (offset === queue[head]!.length) {
            queue[head++] = undefined as unknown as Int16Array;
            offset = 0;
          }
        }
        return true;
      };
      let k = 0;
      const tick = (): void => {
        const v0 = rec.visitUs();
        const now = performance.now();
        const due = playStart + k * FRAME_MS;
        if (!take()) {
          if (ev >= dueSec.length) {
            dec.free();
            resolve();
            return;
          }
          if (due >= win.from && due < win.to) rec.underruns++;
          setTimeout(tick, 1);
          return;
        }
        if (due >= win.from && due < win.to) {
          rec.hist.record(now - due);
          rec.frames++;
        }
        k++;
        if (i === 0 && (k & 63) === 0) rec.rss = Math.max(rec.rss, process.memoryUsage.rss());
        setTimeout(tick, playStart + k * FRAME_MS - performance.now());
        if (due >= win.from && due < win.to) recordFrame(rec, due, rec.visitUs() - v0);
      };
      setTimeout(feedTick, start - performance.now());
      setTimeout(tick, playStart - performance.now());
    });
}

/** The same per-stream 20 ms timers with no work: what the machine and event loop force. */
function bareStream(audioSec: number): StreamBody {
  const total = Math.round((audioSec * MS) / FRAME_MS);
  return (_i, start, win, rec) =>
    new Promise((resolve) => {
      const playStart = start + PLAYOUT_DELAY_MS;
      let k = 0;
      const tick = (): void => {
        const v0 = rec.visitUs();
        const now = performance.now();
        const due = playStart + k * FRAME_MS;
        if (due >= win.from && due < win.to) {
          rec.hist.record(now - due);
          rec.frames++;
        }
        if (++k >= total) resolve();
        else setTimeout(tick, playStart + k * FRAME_MS - performance.now());
        if (due >= win.from && due < win.to) recordFrame(rec, due, rec.visitUs() - v0);
      };
      setTimeout(tick, playStart - performance.now());
    });
}

export async function runStreams(spec: StreamsSpec): Promise<StreamsResult> {
  const wire = await loadWire(spec.capturePath);
  const engine = await loadEngine(spec);
  await warmUp(wire, spec, engine);
  const audioSec = wire.capture.audioSec;
  const body =
    spec.contender === 'engine' || spec.contender === 'engine-read'
      ? engineStream(wire, spec, spec.contender === 'engine', engine)
      : spec.contender === 'floor'
        ? floorStream(wire)
        : bareStream(audioSec);
  const rec: Recorder = {
    hist: new LatencyHistogram(),
    frames: 0,
    underruns: 0,
    errors: [],
    rss: 0,
    frameVisits: new VisitHistogram(),
    feedVisits: new VisitHistogram(),
    visitUs: spec.visitClock === 'cpu' || spec.modelCopies !== undefined ? cpuUs : wallUs,
    // Frame ticks plus feed ticks (at most one per event) per stream, with room to spare.
    trace:
      spec.modelCopies === undefined
        ? null
        : newTrace(Math.ceil(spec.streams * (((audioSec * MS) / FRAME_MS) * 1.5 + wire.capture.dueSec.length))),
  };
  const t0 = performance.now() + START_DELAY_MS;
  // Steady state only: every stream started and warmed up, none finished.
  const win: Window = {
    from: t0 + spec.startSpreadMs + PLAYOUT_DELAY_MS + spec.warmupSec * MS,
    to: t0 + PLAYOUT_DELAY_MS + (audioSec - spec.endMarginSec) * MS,
  };
  if (win.to <= win.from) throw new Error(`streams: a ${audioSec.toFixed(1)} s capture leaves no steady-state window`);
  // The CPU clock is read when the window opens and closes (the timers' own lateness is taken
  // from the window's length, so the stream-seconds match the CPU read).
  // Thread counters and the GC meter are read at the same two moments (a few /proc reads, ~1 ms, at
  // each edge of the window, outside any visit).
  const cpu: { from?: NodeJS.CpuUsage; to?: NodeJS.CpuUsage } = {};
  let w0 = NaN;
  let w1 = NaN;
  const gcMeter = new GcMeter();
  const mainTid = ownThreadId();
  let threads0: Map<number, ThreadCounters> = new Map();
  let threads1: Map<number, ThreadCounters> = new Map();
  let gc: GcWindow | null = null;
  setTimeout(() => {
    threads0 = sampleThreads();
    gcMeter.open();
    cpu.from = process.cpuUsage();
    w0 = performance.now();
    if (TRACE_MARKS) writeSync(1, '@@window-start\n');
  }, win.from - performance.now());
  setTimeout(() => {
    cpu.to = process.cpuUsage();
    w1 = performance.now();
    if (TRACE_MARKS) writeSync(1, `@@window-end inWindow=0\n`);
    gc = gcMeter.close(w0, w1);
    threads1 = sampleThreads();
  }, win.to - performance.now());
  const startOf = (i: number): number =>
    spec.starts === 'grid' ? (i * spec.startSpreadMs) / spec.streams : goldenFraction(i) * spec.startSpreadMs;
  await Promise.all(Array.from({ length: spec.streams }, (_, i) => body(i, t0 + startOf(i), win, rec)));
  return {
    hist: rec.hist.toJSON(),
    frames: rec.frames,
    underruns: rec.underruns,
    errors: rec.errors.slice(0, 5),
    // process.cpuUsage(): user + system of every thread (what processCpuMs() reads).
    cpuMs: cpu.from && cpu.to ? (cpu.to.user - cpu.from.user + cpu.to.system - cpu.from.system) / MS : NaN,
    systemMs: cpu.from && cpu.to ? (cpu.to.system - cpu.from.system) / MS : NaN,
    windowMs: w1 - w0,
    audioSec,
    rssMiB: (rec.rss || process.memoryUsage.rss()) / 2 ** 20,
    frameVisits: rec.frameVisits.toJSON(),
    feedVisits: rec.feedVisits.toJSON(),
    // The streams' thread: this process's main thread, or the worker's own thread in a pool.
    threads: threadWindow(threads0, threads1, w1 - w0, new Map(), Number.isNaN(mainTid) ? process.pid : mainTid),
    gc: gc ?? { ...gcMeter.collections(w0, w1), heapBytes: NaN, externalBytes: NaN },
    ...(rec.trace !== null && cpu.from && cpu.to
      ? {
          queueModel: (spec.modelCopies ?? []).map((c) =>
            modelQueue(rec.trace!, (cpu.to!.user - cpu.from!.user + cpu.to!.system - cpu.from!.system) / MS, c),
          ),
        }
      : {}),
  };
}
