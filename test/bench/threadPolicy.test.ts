import { existsSync } from 'node:fs';
import { getPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  describePolicy,
  FALLBACK_NICE,
  ownThread,
  parseSchedPolicy,
  parseThreadSelfLink,
  readThreadPolicy,
  SCHED_IDLE,
  SCHED_OTHER,
  type ThreadPolicyResult,
} from '../../bench/lib/threadPolicy.mjs';

/** Linux with /proc/thread-self: where a thread's policy can be set and read. */
const linux = existsSync('/proc/thread-self');

/** A worker that sets its own policy (test/bench/helpers/policyWorker.mjs) and lives until `stop` is called. */
async function policyWorker(data: {
  mode: 'idle' | 'normal';
  chrt?: string;
}): Promise<{ result: ThreadPolicyResult; stop: () => Promise<number> }> {
  const worker = new Worker(new URL('./helpers/policyWorker.mjs', import.meta.url), { workerData: data });
  const result = await new Promise<ThreadPolicyResult>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    result,
    stop: async () => {
      worker.postMessage('stop');
      return new Promise<number>((resolve) => worker.once('exit', resolve));
    },
  };
}

/** A `/proc/<pid>/task/<tid>/sched` text as Linux 6 writes it (a header, then `name : value` lines). */
function schedText(policy: number): string {
  return [
    'node (4242, #threads: 11)',
    '-------------------------------------------------------------------',
    'se.exec_start                                :      82804046.713042',
    'se.nr_migrations                             :                    3',
    'nr_switches                                  :                  120',
    `policy                                       :                    ${policy}`,
    'prio                                         :                  120',
    'clock-delta                                  :                   40',
    '',
  ].join('\n');
}

describe("a thread's scheduling policy, set from inside it and read back from /proc", () => {
  it.runIf(linux)(
    'a worker thread that asks for SCHED_IDLE runs under it: /proc reads policy 5 while it lives, and the main thread keeps its own',
    async () => {
      const main = ownThread()!;
      const before = readThreadPolicy(main.pid, main.tid);
      const { result, stop } = await policyWorker({ mode: 'idle' });
      try {
        expect(result.pid).toBe(process.pid);
        expect(result.tid).not.toBe(main.tid);
        expect(result).toMatchObject({ applied: 'SCHED_IDLE', via: 'chrt', policy: SCHED_IDLE, note: '' });
        // Read from this thread, not from the worker's own report.
        expect(readThreadPolicy(process.pid, result.tid!)).toBe(SCHED_IDLE);
        expect(readThreadPolicy(main.pid, main.tid)).toBe(before);
        expect(describePolicy(result)).toBe('SCHED_IDLE (chrt --idle)');
      } finally {
        expect(await stop()).toBe(0);
      }
    },
  );

  it.runIf(linux)('without chrt the worker falls back to nice 19 at the normal policy, and says why', async () => {
    const { result, stop } = await policyWorker({ mode: 'idle', chrt: 'voicewire-no-such-chrt' });
    try {
      expect(result).toMatchObject({ applied: `nice ${FALLBACK_NICE}`, via: 'os.setPriority', policy: SCHED_OTHER, nice: FALLBACK_NICE });
      expect(result.note).toContain('voicewire-no-such-chrt');
      expect(getPriority(result.tid!)).toBe(FALLBACK_NICE);
      expect(readThreadPolicy(process.pid, result.tid!)).toBe(SCHED_OTHER);
      expect(describePolicy(result)).toMatch(/^nice 19 \(asked SCHED_IDLE; os\.setPriority: voicewire-no-such-chrt: /);
    } finally {
      await stop();
    }
  });

  it.runIf(linux)("a worker left 'normal' reports the process's policy and nice, unchanged", async () => {
    const { result, stop } = await policyWorker({ mode: 'normal' });
    try {
      expect(result).toMatchObject({ applied: 'normal', via: 'none', policy: readThreadPolicy(process.pid, process.pid) });
      expect(result.nice).toBe(getPriority(process.pid));
      expect(readThreadPolicy(process.pid, result.tid!)).toBe(readThreadPolicy(process.pid, process.pid));
    } finally {
      await stop();
    }
  });

  it('a thread that is gone, or a process that does not exist, reads as null', () => {
    expect(readThreadPolicy(process.pid, 2 ** 30)).toBeNull();
    expect(readThreadPolicy(2 ** 30, 1)).toBeNull();
  });

  it('reads the policy field of a sched text, whatever its number', () => {
    fc.assert(
      fc.property(fc.nat({ max: 1000 }), (policy) => {
        expect(parseSchedPolicy(schedText(policy))).toBe(policy);
      }),
    );
    expect(parseSchedPolicy(schedText(SCHED_IDLE))).toBe(SCHED_IDLE);
  });

  it('a text without a whole-number policy line reads as null, and no text throws', () => {
    expect(parseSchedPolicy('')).toBeNull();
    expect(parseSchedPolicy('prio : 120\n')).toBeNull();
    expect(parseSchedPolicy('policy : idle\n')).toBeNull();
    expect(parseSchedPolicy('policy : -1\n')).toBeNull();
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const p = parseSchedPolicy(text);
        if (p !== null) expect(Number.isInteger(p)).toBe(true);
      }),
    );
  });

  it("reads /proc/thread-self's target as the process and thread ids, anything else as null", () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (pid, tid) => {
        expect(parseThreadSelfLink(`${pid}/task/${tid}`)).toEqual({ pid, tid });
      }),
    );
    expect(parseThreadSelfLink('4242')).toBeNull();
    expect(parseThreadSelfLink('4242/task/')).toBeNull();
    expect(parseThreadSelfLink('/proc/4242/task/7')).toBeNull();
    fc.assert(fc.property(fc.string({ maxLength: 40 }), (text) => void parseThreadSelfLink(text)));
  });
});
