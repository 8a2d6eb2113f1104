/**
 * Bytes allocated per unit of work (per event, per frame) in steady state, with `--expose-gc`.
 *
 * - Heap: `used_heap_size` growth over the window plus what every GC inside the window freed
 *   (`v8.GCProfiler`), so a scavenge in the middle does not hide allocation.
 * - ArrayBuffer: growth of `process.memoryUsage().arrayBuffers` over a window in which no GC ran
 *   (a GC frees backing stores and would hide allocation); the window shrinks until one is clean.
 * The median over the clean attempts is reported. The work runs synchronously inside the window
 * (no awaits), so nothing else in the process allocates meanwhile.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import * as v8 from 'node:v8';
import { gc, hasGc } from './measure.js';
import { median } from './stats.js';

const SWEEP_WAIT_MS = 15;

export interface AllocationProbe {
  /** Does one step of work; returns how many units (events, frames) it completed. */
  step(): number;
}

export interface AllocationOptions {
  /** Steps before measuring (fills rings, warms the JIT, reaches steady state). */
  warmSteps: number;
  /** Steps in the first window; later attempts halve it when a GC spoiled the ArrayBuffer figure. */
  windowSteps: number;
  /** @defaultValue 6 */
  attempts?: number;
}

export interface AllocationResult {
  heapPerUnit: number;
  arrayBuffersPerUnit: number;
  /** False when no window was free of GC (the ArrayBuffer figure is then NaN). */
  arrayBuffersClean: boolean;
  exposeGc: boolean;
}

export async function allocationPerUnit(make: () => AllocationProbe, opts: AllocationOptions): Promise<AllocationResult> {
  const heaps: number[] = [];
  const abs: number[] = [];
  let window = opts.windowSteps;
  for (let attempt = 0; attempt < (opts.attempts ?? 6) && window >= 1; attempt++) {
    const probe = make();
    for (let i = 0; i < opts.warmSteps; i++) probe.step();
    gc();
    // ArrayBuffer backing stores are freed by a concurrent sweeper after the GC: let it finish, or
    // its late frees would land in the window and hide allocation.
    await sleep(SWEEP_WAIT_MS);
    const profiler = new v8.GCProfiler();
    const ab0 = process.memoryUsage().arrayBuffers;
    profiler.start();
    const h0 = v8.getHeapStatistics().used_heap_size;
    let units = 0;
    for (let i = 0; i < window; i++) units += probe.step();
    const h1 = v8.getHeapStatistics().used_heap_size;
    const stats = profiler.stop();
    const ab1 = process.memoryUsage().arrayBuffers;
    if (units === 0) {
      window *= 2;
      continue;
    }
    let freed = 0;
    const gcs = stats?.statistics ?? [];
    for (const g of gcs) freed += g.beforeGC.heapStatistics.usedHeapSize - g.afterGC.heapStatistics.usedHeapSize;
    heaps.push((h1 - h0 + freed) / units);
    if (gcs.length === 0) abs.push((ab1 - ab0) / units);
    if (abs.length >= 2 && heaps.length >= 3) break;
    if (gcs.length > 0) window = Math.floor(window / 2);
  }
  return {
    heapPerUnit: Math.max(0, median(heaps)),
    arrayBuffersPerUnit: abs.length === 0 ? NaN : Math.max(0, median(abs)),
    arrayBuffersClean: abs.length > 0,
    exposeGc: hasGc,
  };
}
