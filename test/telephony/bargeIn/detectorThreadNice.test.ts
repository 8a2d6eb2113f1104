/**
 * The detector thread's nice value (src/telephony/bargeIn/DetectorThreads.ts `nice`,
 * ./threadNice.ts): the thread sets its own when it starts, as `nice -n` adds to the priority it
 * inherits. Read back from Linux's `/proc/self/task/<tid>/stat` (field 19) of a real worker
 * thread; the thread's decisions do not depend on it (test/telephony/bargeIn/detectorWorker.test.ts
 * runs at the default). Linux only: skipped where `/proc/thread-self` is absent.
 */
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DETECTOR_THREAD_NICE, DetectorThreads } from '../../../src/telephony/bargeIn/DetectorThreads.js';
import { MAX_NICE, MIN_NICE } from '../../../src/telephony/bargeIn/threadNice.js';
import { InvalidOptionError } from '../../../src/errors.js';
import { niceOf, startDetectorThread } from '../helpers/detectorThreadStart.js';
import { runChild } from '../helpers/runChild.js';

const LINUX = existsSync('/proc/thread-self');
/** The refusal child starts one detector thread and exits: seconds; killed if it hangs. */
const CHILD_TIMEOUT_MS = 60_000;

/** The nice value a new thread started from here inherits: this thread's. */
const inherited = (): number => niceOf('/proc/thread-self/stat');
const clamp = (n: number): number => Math.min(MAX_NICE, Math.max(MIN_NICE, n));

const pools: { pool: DetectorThreads; id: number }[] = [];
afterEach(async () => {
  for (const { pool, id } of pools.splice(0)) {
    const exits = pool.workers.map((w) => once(w, 'exit'));
    pool.release(id);
    await Promise.all(exits);
  }
});

/** A pool with one call on its one thread, once the thread has said its id; the call's notices. */
async function startThread(options: { nice?: number }): Promise<{ tid: number; notices: string[] }> {
  const { pool, id, ready, tid, notices } = await startDetectorThread(options);
  pools.push({ pool, id });
  expect(ready).toBe(true);
  expect(tid).toBeTypeOf('number');
  return { tid: tid!, notices };
}

describe.skipIf(!LINUX)("the detector thread's nice value", () => {
  it(`is ${DEFAULT_DETECTOR_THREAD_NICE} above the process's by default (a lower priority than the pacing loop's)`, async () => {
    expect(DEFAULT_DETECTOR_THREAD_NICE).toBeGreaterThan(0);
    const { tid, notices } = await startThread({});
    expect(niceOf(`/proc/self/task/${tid}/stat`)).toBe(clamp(inherited() + DEFAULT_DETECTOR_THREAD_NICE));
    expect(notices).toEqual([]);
  });

  it('is the process’s plus the option (5, and 19: the lowest priority)', async () => {
    for (const nice of [5, 19]) {
      const { tid } = await startThread({ nice });
      expect(niceOf(`/proc/self/task/${tid}/stat`)).toBe(clamp(inherited() + nice));
    }
  });

  it('stays the process’s with nice: 0, with no notice', async () => {
    const { tid, notices } = await startThread({ nice: 0 });
    expect(niceOf(`/proc/self/task/${tid}/stat`)).toBe(inherited());
    expect(notices).toEqual([]);
  });

  it('refuses a nice value that is not an integer from -20 to 19 with an InvalidOptionError naming it', () => {
    for (const nice of [20, -21, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      let caught: unknown;
      try {
        new DetectorThreads().configure({ nice });
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(InvalidOptionError);
      expect((caught as InvalidOptionError).field).toBe('nice');
    }
  });
});

/**
 * A raised priority (a negative nice) needs CAP_SYS_NICE. As root the child runs without it
 * (`setpriv --bounding-set -sys_nice`, util-linux); otherwise it lacks it already, unless
 * RLIMIT_NICE lets an unprivileged thread raise its priority (then nothing is refused: skipped).
 */
function refusingCommand(): string[] | null {
  if (process.getuid?.() === 0) {
    for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin']) {
      if (existsSync(`${dir}/setpriv`)) return [`${dir}/setpriv`, '--bounding-set', '-sys_nice', process.execPath];
    }
    return null;
  }
  const limit = /^Max nice priority\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'latin1'));
  return limit !== null && Number(limit[1]) === 0 ? [process.execPath] : null;
}

const refusing = LINUX ? refusingCommand() : null;

describe.skipIf(refusing === null)('a nice value the system refuses (a raised priority without CAP_SYS_NICE)', () => {
  it('leaves the thread at the process’s priority and gives its call one notice saying why', async () => {
    const [command, ...args] = refusing!;
    const {
      code,
      stdout: out,
      stderr: err,
    } = await runChild(command!, [...args, '--import', 'tsx', 'test/telephony/helpers/detectorNiceChild.ts', '-5'], CHILD_TIMEOUT_MS);
    expect(err).toBe('');
    expect(code).toBe(0);
    const seen = JSON.parse(out) as { process: number; thread: number | null; ready: boolean; notices: string[] };
    expect(seen.ready).toBe(true);
    expect(seen.thread).toBe(seen.process);
    expect(seen.notices).toHaveLength(1);
    expect(seen.notices[0]).toMatch(/detector thread's priority was not changed.*(EACCES|EPERM)/);
  });
});
