import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hostWindow, parseProcStat, sampleHostCpu, USER_HZ } from '../../bench/lib/hostSteal.js';

/** A /proc/stat text as Linux writes it: the summed `cpu` line, one line per vCPU, then other counters. */
function procStat(counters: readonly number[], cpus: number): string {
  const perCpu = Array.from({ length: cpus }, (_, i) => `cpu${i} ${counters.map((c) => Math.floor(c / cpus)).join(' ')}`);
  return [`cpu  ${counters.join(' ')}`, ...perCpu, 'intr 123 0 0', 'ctxt 456', 'btime 1700000000', 'procs_running 2', ''].join('\n');
}

describe('host steal from /proc/stat', () => {
  it('reads steal (the 8th counter) and the vCPUs’ whole time (user to steal, not guest) from the cpu line', () => {
    // user nice system idle iowait irq softirq steal guest guest_nice
    const h = parseProcStat(procStat([6820017, 2187, 695049, 2821968, 9891, 0, 68669, 83761, 500, 7], 2));
    expect(h).toEqual({ steal: 83761, total: 6820017 + 2187 + 695049 + 2821968 + 9891 + 0 + 68669 + 83761, cpus: 2 });
  });

  it('a text without a cpu line, or with fewer than eight counters, or with a word among them, reads as null', () => {
    expect(parseProcStat('intr 1 2 3\nctxt 4\n')).toBeNull();
    expect(parseProcStat('cpu  1 2 3 4 5 6 7\n')).toBeNull();
    expect(parseProcStat('cpu  1 2 3 x 5 6 7 8\n')).toBeNull();
    expect(parseProcStat('')).toBeNull();
  });

  it('parses any well-formed text back to the counters it was written from', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 2 ** 40 }), { minLength: 8, maxLength: 10 }),
        fc.integer({ min: 1, max: 64 }),
        (counters, cpus) => {
          const h = parseProcStat(procStat(counters, cpus))!;
          expect(h.steal).toBe(counters[7]);
          expect(h.total).toBe(counters.slice(0, 8).reduce((a, c) => a + c, 0));
          expect(h.cpus).toBe(cpus);
        },
      ),
    );
  });

  it('never throws on arbitrary text: a HostCpu or null', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const h = parseProcStat(text);
        if (h !== null) expect(Number.isFinite(h.total)).toBe(true);
      }),
    );
    fc.assert(fc.property(fc.string({ maxLength: 60 }), (tail) => void parseProcStat(`cpu  ${tail}`)));
  });

  it('a window where steal grew 20 ticks of 1000 lost 2 % of the CPU time, 40 ms a second over 5 s', () => {
    const before = { steal: 100, total: 10_000, cpus: 2 };
    const after = { steal: 120, total: 11_000, cpus: 2 };
    const w = hostWindow(before, after, 5000);
    expect(w.stealShare).toBeCloseTo(0.02, 12);
    expect(w.stealMsPerS).toBeCloseTo(((20 / USER_HZ) * 1000) / 5, 12);
  });

  it('a missing sample gives NaN figures, not zero', () => {
    const h = { steal: 1, total: 10, cpus: 2 };
    expect(hostWindow(null, h, 1000).stealShare).toBeNaN();
    expect(hostWindow(h, null, 1000).stealMsPerS).toBeNaN();
  });

  it('reads this machine: steal never exceeds the whole time, and both only grow', () => {
    const a = sampleHostCpu();
    if (a === null) return; // not Linux: nothing to read
    const b = sampleHostCpu()!;
    expect(a.steal).toBeLessThanOrEqual(a.total);
    expect(b.total).toBeGreaterThanOrEqual(a.total);
    expect(b.steal).toBeGreaterThanOrEqual(a.steal);
    expect(a.cpus).toBeGreaterThan(0);
  });
});
