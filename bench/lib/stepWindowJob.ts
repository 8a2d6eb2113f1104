import { spawn } from 'node:child_process';

/**
 * Runs a telephony step (bench/telephony.bench.ts) and starts `job` a fixed delay after the step
 * says every call has started: the probes' way of tracing or profiling inside the step's steady
 * window. The step says it on stderr when `TEL_BENCH_DEBUG` is set; its other debug lines (tagged
 * `[<contender> <calls>]`) are kept off the probe's output. The job's promise is awaited before
 * returning, whether the step resolved or threw.
 */
export async function stepWithWindowJob<T>(step: () => Promise<T>, tag: string, delayMs: number, job: () => Promise<void>): Promise<T> {
  let started: Promise<void> | undefined;
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    if (typeof chunk === 'string' && chunk.includes(ALL_STARTED) && started === undefined) {
      started = new Promise((resolve) => setTimeout(() => void job().then(resolve, resolve), delayMs));
    }
    if (typeof chunk === 'string' && chunk.includes(tag)) return true;
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  process.env[DEBUG_ENV] = '1';
  try {
    return await step();
  } finally {
    process.stderr.write = write;
    delete process.env[DEBUG_ENV];
    await started;
  }
}

/** The step's debug switch (bench/telephony.bench.ts). */
const DEBUG_ENV = 'TEL_BENCH_DEBUG';
/** The step's debug line once every call has started (its window opens `WARMUP_MS` later). */
const ALL_STARTED = '] all started';

/** Runs `perf` with `args` for `seconds` (`perf … -- sleep <seconds>`); resolves when it exits or cannot start. */
export function perfFor(args: string[], seconds: number): Promise<void> {
  const p = spawn('perf', [...args, '--', 'sleep', String(seconds)], { stdio: 'ignore' });
  return new Promise((resolve) => {
    p.once('exit', () => resolve());
    p.once('error', () => resolve());
  });
}
