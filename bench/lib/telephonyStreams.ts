/**
 * N real-time telephony streams in one thread (scenario 5): each a SpeechPipeline turning an
 * Ogg Opus 48 kHz speech stream into 8 kHz μ-law 20 ms frames (libopus decodes at 8 kHz
 * natively), fed on the real clock a little ahead of playback, and read one frame every 20 ms on
 * the real clock, as a phone line would take them.
 *
 * Frame lateness = when a frame was actually taken − when it was due. Timers are scheduled on
 * absolute times (`due − now`), so one late tick does not shift the rest. Streams start spread
 * over a second, as calls do.
 */
import { once } from 'node:events';
import { loadResampler } from '../../src/dsp/Resampler.js';
import { createSpeechPipeline } from '../../src/engine/SpeechPipeline.js';
import { threadCpuMs as cpuMs } from './measure.js';
import { timedSpeechStream } from './speechStream.js';
import { LatencyHistogram } from './stats.js';

export const TELEPHONY_RATE = 8000;
export const FRAME_MS = 20;

export interface StreamsSpec {
  streams: number;
  /** Audio per stream. */
  seconds: number;
  /** Frames due before this long after the LAST stream started are not measured (JIT, each
   * stream's first decode: a steady state of N open calls, not N calls starting). */
  warmupSec: number;
  /** Events arrive this far ahead of their playback (a service streaming faster than real time). */
  leadSec: number;
  /** Audio per SSE event (one Ogg page). */
  eventSec: number;
  /** Ring per pipeline (bounded memory per call). */
  ringCapacity?: number;
  /** The machine's floor: the same timers on the same schedule, with no pipeline (the anchor). */
  bare?: boolean;
}

export interface StreamsResult {
  hist: ReturnType<LatencyHistogram['toJSON']>;
  frames: number;
  underruns: number;
  errors: string[];
  cpuMs: number;
  wallMs: number;
  rssMiB: number;
}

/**
 * Calls start spread evenly over this window, so their Ogg pages arrive at different phases (real
 * calls start at random times; starting all within one 20 ms period would make every stream
 * decode its page in the same few milliseconds, a burst no real server sees).
 */
const START_SPREAD_MS = 1000;
/** Playback starts this long after a stream's first event is written. */
const PLAYOUT_DELAY_MS = 40;
const START_DELAY_MS = 100;

/** Loads the conversion stage's wasm and runs one stream flat out, so the measured run starts warm. */
async function warmUp(): Promise<void> {
  await loadResampler();
  const p = createSpeechPipeline({ format: 'opus', output: { sampleRate: TELEPHONY_RATE, encoding: 'mulaw', channels: 1 } });
  p.on('data', () => undefined);
  const ended = once(p, 'end');
  for (const e of timedSpeechStream({ format: 'opus', seconds: 3, eventSec: 0.2 }).events) p.write(e.event);
  p.end();
  await ended;
}

export async function runStreams(spec: StreamsSpec): Promise<StreamsResult> {
  if (spec.bare) return bareClock(spec);
  await warmUp();
  const hist = new LatencyHistogram();
  const errors: string[] = [];
  let frames = 0;
  let underruns = 0;
  let rss = 0;
  // The wire bytes are built before the clock starts and shared by every stream (they are the
  // network's work, not the engine's).
  const wire = Array.from(timedSpeechStream({ format: 'opus', seconds: spec.seconds, eventSec: spec.eventSec }).events);
  const t0 = performance.now() + START_DELAY_MS;
  const c0 = cpuMs();
  const oneStream = (i: number): Promise<void> =>
    new Promise((resolve) => {
      const source = { events: wire.values() };
      const p = createSpeechPipeline({
        format: 'opus',
        output: { sampleRate: TELEPHONY_RATE, encoding: 'mulaw', channels: 1 },
        ...(spec.ringCapacity !== undefined ? { ringCapacity: spec.ringCapacity } : {}),
      });
      const start = t0 + (i * START_SPREAD_MS) / spec.streams;
      const playStart = start + PLAYOUT_DELAY_MS;
      const measureFrom = t0 + START_SPREAD_MS + PLAYOUT_DELAY_MS + spec.warmupSec * 1000;
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        resolve();
      };
      p.on('error', (e: Error) => {
        errors.push(`stream ${i}: ${e.message}`);
        finish();
      });
      p.once('end', finish);
      p.on('word', () => undefined);

      let next = source.events.next();
      const feedTick = (): void => {
        const now = performance.now();
        while (!next.done && start + (next.value.start - spec.leadSec) * 1000 <= now) {
          p.write(next.value.event);
          next = source.events.next();
        }
        if (next.done) p.end();
        else setTimeout(feedTick, start + (next.value.start - spec.leadSec) * 1000 - now);
      };

      let k = 0;
      let waiting = false;
      const tick = (): void => {
        if (done) return;
        waiting = false;
        const now = performance.now();
        const due = playStart + k * FRAME_MS;
        const frame = p.read() as unknown;
        if (frame === null) {
          if (!waiting) {
            waiting = true;
            if (due >= measureFrom && !next.done) underruns++;
            p.once('readable', tick);
          }
          return;
        }
        if (due >= measureFrom) {
          hist.record(now - due);
          frames++;
        }
        k++;
        if (i === 0 && (k & 63) === 0) rss = Math.max(rss, process.memoryUsage.rss());
        setTimeout(tick, playStart + k * FRAME_MS - performance.now());
      };
      setTimeout(feedTick, start - performance.now());
      setTimeout(tick, playStart - performance.now());
    });
  const w0 = performance.now();
  await Promise.all(Array.from({ length: spec.streams }, (_, i) => oneStream(i)));
  return {
    hist: hist.toJSON(),
    frames,
    underruns,
    errors: errors.slice(0, 5),
    cpuMs: cpuMs() - c0,
    wallMs: performance.now() - w0,
    rssMiB: rss / 2 ** 20,
  };
}

/** The same per-stream 20 ms timers with no work: what the machine and event loop force. */
async function bareClock(spec: StreamsSpec): Promise<StreamsResult> {
  const hist = new LatencyHistogram();
  const total = Math.round((spec.seconds * 1000) / FRAME_MS);
  const t0 = performance.now() + START_DELAY_MS;
  const c0 = cpuMs();
  const w0 = performance.now();
  let frames = 0;
  await Promise.all(
    Array.from(
      { length: spec.streams },
      (_, i) =>
        new Promise<void>((resolve) => {
          const playStart = t0 + (i * START_SPREAD_MS) / spec.streams + PLAYOUT_DELAY_MS;
          const measureFrom = t0 + START_SPREAD_MS + PLAYOUT_DELAY_MS + spec.warmupSec * 1000;
          let k = 0;
          const tick = (): void => {
            const due = playStart + k * FRAME_MS;
            if (due >= measureFrom) {
              hist.record(performance.now() - due);
              frames++;
            }
            if (++k >= total) resolve();
            else setTimeout(tick, playStart + k * FRAME_MS - performance.now());
          };
          setTimeout(tick, playStart - performance.now());
        }),
    ),
  );
  return {
    hist: hist.toJSON(),
    frames,
    underruns: 0,
    errors: [],
    cpuMs: cpuMs() - c0,
    wallMs: performance.now() - w0,
    rssMiB: process.memoryUsage.rss() / 2 ** 20,
  };
}
