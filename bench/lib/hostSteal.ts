/**
 * How much CPU time the host took from this VM (steal) over a measuring window, from Linux's
 * `/proc/stat`. Its first line, `cpu  user nice system idle iowait irq softirq steal guest
 * guest_nice`, counts every vCPU's time since boot in clock ticks (USER_HZ); `steal` is the time a
 * vCPU was ready to run but the hypervisor ran something else. Nothing inside the VM shows it
 * otherwise: a thread's run-queue wait (bench/lib/threadStats.ts) counts only waits for the VM's
 * own threads, so a pacing thread delayed by the host looks merely late.
 *
 * Steal accrues only while a vCPU wants to run: an idle VM shows none whatever the host does, and
 * a busy step shows more than an idle one under the same host.
 *
 * Elsewhere (no `/proc/stat`), {@link sampleHostCpu} returns null and every figure is NaN.
 */
import { readFileSync } from 'node:fs';

/**
 * Clock ticks per second of `/proc/stat` (USER_HZ): 100 on every Linux architecture Node runs on
 * (`getconf CLK_TCK` reads 100 on the bench machine; the kernel exports USER_HZ = 100 whatever its
 * internal HZ).
 */
export const USER_HZ = 100;
/** Milliseconds per second. */
const MS_PER_S = 1000;
/** Position of `steal` among the `cpu` line's counters (user, nice, system, idle, iowait, irq, softirq, steal). */
const STEAL_FIELD = 7;
/**
 * The counters that make up the vCPUs' whole time: user to steal. `guest` and `guest_nice`
 * (fields 8 and 9) are already inside `user` and `nice`.
 */
const TIME_FIELDS = 8;

/** The machine's CPU counters at one moment, in clock ticks summed over every vCPU. */
export interface HostCpu {
  steal: number;
  /** user + nice + system + idle + iowait + irq + softirq + steal. */
  total: number;
  /** vCPUs counted (the `cpuN` lines). */
  cpus: number;
}

/**
 * The `cpu` line of a `/proc/stat` text and its count of `cpuN` lines; null when the text has no
 * `cpu` line with the eight time counters as whole numbers.
 */
export function parseProcStat(text: string): HostCpu | null {
  let host: HostCpu | null = null;
  let cpus = 0;
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    const name = fields[0];
    if (name === 'cpu') {
      const counters = fields.slice(1, 1 + TIME_FIELDS);
      if (counters.length < TIME_FIELDS || counters.some((c) => !/^\d+$/.test(c))) return null;
      const values = counters.map(Number);
      host = { steal: values[STEAL_FIELD]!, total: values.reduce((a, v) => a + v, 0), cpus: 0 };
    } else if (name !== undefined && /^cpu\d+$/.test(name)) cpus++;
  }
  return host === null ? null : { ...host, cpus };
}

/** The machine's counters now (null where `/proc/stat` cannot be read). */
export function sampleHostCpu(): HostCpu | null {
  try {
    return parseProcStat(readFileSync('/proc/stat', 'latin1'));
  } catch {
    return null;
  }
}

export interface HostWindow {
  /** Steal over the window as a share of every vCPU's time in it (0–1). */
  stealShare: number;
  /** Steal summed over the vCPUs, ms per wall second. */
  stealMsPerS: number;
}

/** The window between two samples `wallMs` apart; NaN figures when either sample is missing. */
export function hostWindow(before: HostCpu | null, after: HostCpu | null, wallMs: number): HostWindow {
  if (before === null || after === null || wallMs <= 0) return { stealShare: NaN, stealMsPerS: NaN };
  const steal = after.steal - before.steal;
  const total = after.total - before.total;
  return {
    stealShare: total > 0 ? steal / total : 0,
    stealMsPerS: ((steal / USER_HZ) * MS_PER_S) / (wallMs / MS_PER_S),
  };
}
