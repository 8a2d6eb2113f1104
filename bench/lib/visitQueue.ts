/**
 * A load-robust stand-in for scenario 5's lateness verdict: the loop replayed as a single server.
 * A paced run records every visit (a stream's frame tick or feed tick) with the time it was due
 * and the process CPU it took; the model serves them in due order, one at a time, each taking its
 * measured CPU plus the loop's own share between visits (the window's process CPU not inside any
 * visit, spread evenly over the visits), and reads each frame tick's lateness as when it would
 * start minus when it was due. Preemption by other processes is not in the CPU figures, so on a
 * loaded machine the model still says what the measured work would do on a quiet one — except
 * what the model leaves out: timer granularity (Node's whole-millisecond timers), cache effects
 * of a different N, and the lateness a real loop adds by running expired timers in batches.
 *
 * More streams than were run: each recorded stream is replayed `copies` times, copy c shifted by
 * frac(c·φ) of {@link COPY_SHIFT_SPAN_MS}, so the copies' frame and event phases spread evenly.
 */
import { LatencyHistogram } from './stats.js';

/** φ − 1: frac(i·φ) for i = 0, 1, 2, … fills [0, 1) evenly for any count (Weyl / golden-ratio sequence). */
const GOLDEN_FRACTION = (Math.sqrt(5) - 1) / 2;

/** frac(i·φ), in [0, 1). */
export function goldenFraction(i: number): number {
  const x = i * GOLDEN_FRACTION;
  return x - Math.floor(x);
}

/** The capture's event period (100 ms: five 20 ms packets per event): copies are shifted within it. */
const COPY_SHIFT_SPAN_MS = 100;

export interface VisitTrace {
  /** Per visit: when it was due (ms, the run's performance.now() scale). */
  dueMs: Float64Array;
  /** Per visit: its process CPU, µs. */
  cpuUs: Float64Array;
  /** Per visit: 1 for a frame tick (lateness is read), 0 for a feed tick. */
  isFrame: Uint8Array;
  count: number;
}

export function newTrace(capacity: number): VisitTrace {
  return { dueMs: new Float64Array(capacity), cpuUs: new Float64Array(capacity), isFrame: new Uint8Array(capacity), count: 0 };
}

/** Adds one visit; silently drops visits past the trace's capacity (bounded memory). */
export function traceVisit(t: VisitTrace, dueMs: number, cpuUs: number, isFrame: boolean): void {
  if (t.count >= t.dueMs.length) return;
  t.dueMs[t.count] = dueMs;
  t.cpuUs[t.count] = cpuUs;
  t.isFrame[t.count] = isFrame ? 1 : 0;
  t.count++;
}

export interface QueueModelRow {
  /** Each recorded stream replayed this many times: the run's N × copies streams. */
  copies: number;
  p50Ms: number;
  p99Ms: number;
  /** The modelled loop's utilisation: served CPU over the span. */
  utilisation: number;
}

/**
 * Replays `trace` (visits inside one measuring window, whose process CPU was `windowCpuMs`) at
 * `copies` times its streams.
 */
export function modelQueue(trace: VisitTrace, windowCpuMs: number, copies: number): QueueModelRow {
  const n = trace.count;
  let visitUs = 0;
  for (let i = 0; i < n; i++) visitUs += trace.cpuUs[i]!;
  const loopUsPerVisit = n > 0 ? Math.max(0, windowCpuMs * 1000 - visitUs) / n : 0;
  const total = n * copies;
  const due = new Float64Array(total);
  const order = new Uint32Array(total);
  for (let c = 0; c < copies; c++) {
    const shift = goldenFraction(c) * COPY_SHIFT_SPAN_MS;
    for (let i = 0; i < n; i++) {
      due[c * n + i] = trace.dueMs[i]! + shift;
      order[c * n + i] = c * n + i;
    }
  }
  order.sort((a, b) => due[a]! - due[b]!);
  const hist = new LatencyHistogram();
  let t = -Infinity;
  let busyMs = 0;
  for (let k = 0; k < total; k++) {
    const j = order[k]!;
    const i = j % n;
    const d = due[j]!;
    const startAt = t > d ? t : d;
    if (trace.isFrame[i] === 1) hist.record(startAt - d);
    const serve = (trace.cpuUs[i]! + loopUsPerVisit) / 1000;
    busyMs += serve;
    t = startAt + serve;
  }
  const span = total > 0 ? due[order[total - 1]!]! - due[order[0]!]! : 0;
  return { copies, p50Ms: hist.quantile(0.5), p99Ms: hist.quantile(0.99), utilisation: span > 0 ? busyMs / span : NaN };
}
