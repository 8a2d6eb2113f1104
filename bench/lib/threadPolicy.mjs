/**
 * One thread's scheduling policy (Linux), set from inside the thread and read back from `/proc`.
 *
 * The bench phones (bench/providerPeers.worker.mjs) stand for peers across the network: their CPU
 * is not the bridge machine's. Run in a worker of the bridge's own process at the normal policy,
 * their thread preempts the bridge's pacing thread on every wake that lands on its CPU
 * (native-notes/vad.md, "The quiet check"). Under `SCHED_IDLE` a thread never preempts a normal
 * one on waking and runs on the CPU time the normal threads leave (sched(7)).
 *
 * Node has no `sched_setscheduler`: the thread learns its own id from `/proc/thread-self` (a link
 * to `<pid>/task/<tid>`) and runs `chrt --idle -p 0 <tid>` (util-linux) on itself. Where that is
 * impossible (no chrt, not Linux, refused), the fallback is the lowest nice value,
 * `os.setPriority(tid, 19)`; the result says which one happened.
 *
 * Plain JavaScript: the phones' worker thread runs without a TypeScript loader.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** Linux's number for the normal time-sharing policy (`SCHED_OTHER`, include/uapi/linux/sched.h). */
export const SCHED_OTHER = 0;
/** Linux's number for `SCHED_IDLE` (include/uapi/linux/sched.h), as `/proc/<pid>/task/<tid>/sched` prints it. */
export const SCHED_IDLE = 5;
/** The fallback: the lowest scheduling priority a thread can have under the normal policy (nice 19). */
export const FALLBACK_NICE = 19;
/** util-linux's command: `chrt --idle -p 0 <tid>` sets one thread's policy (the priority must be 0 for SCHED_IDLE). */
export const CHRT = 'chrt';
/** chrt runs in well under this; a hung one is killed and counted as refused. */
const CHRT_TIMEOUT_MS = 5000;

/** `<pid>/task/<tid>` (the target of the `/proc/thread-self` link) → the ids; null for anything else. */
export function parseThreadSelfLink(link) {
  const m = /^(\d+)\/task\/(\d+)$/.exec(link);
  return m === null ? null : { pid: Number(m[1]), tid: Number(m[2]) };
}

/** The calling thread's process and thread ids (null where `/proc/thread-self` is absent). */
export function ownThread() {
  try {
    return parseThreadSelfLink(readlinkSync('/proc/thread-self'));
  } catch {
    return null;
  }
}

/**
 * The `policy` field of a `/proc/<pid>/task/<tid>/sched` text (`policy   :   5`); null when the
 * text has no such line or its value is not a whole number.
 */
export function parseSchedPolicy(text) {
  const m = /^policy\s*:\s*(\d+)\s*$/m.exec(text);
  return m === null ? null : Number(m[1]);
}

/** A thread's policy number as the kernel reports it now (null: not readable, the thread ended, not Linux). */
export function readThreadPolicy(pid, tid) {
  try {
    return parseSchedPolicy(readFileSync(`/proc/${pid}/task/${tid}/sched`, 'latin1'));
  } catch {
    return null;
  }
}

/** A thread's nice value (null where it cannot be read). */
function niceOf(tid) {
  try {
    return getPriority(tid);
  } catch {
    return null;
  }
}

/** The policy's name for a row ("SCHED_IDLE", "SCHED_OTHER", or the number). */
export function policyName(policy) {
  if (policy === SCHED_IDLE) return 'SCHED_IDLE';
  if (policy === SCHED_OTHER) return 'SCHED_OTHER';
  return policy === null ? 'unknown' : `policy ${policy}`;
}

/**
 * Puts the calling thread under `SCHED_IDLE` (`chrt --idle -p 0 <tid>`, checked by its exit code
 * and by the `policy` field read back), or where that fails at nice {@link FALLBACK_NICE}
 * (`os.setPriority`). Never throws. `chrt` names the command (a test passes a missing one to take
 * the fallback). Threads this thread starts afterwards inherit what it got.
 */
export function idleThisThread({ chrt = CHRT } = {}) {
  const self = ownThread();
  if (self === null) {
    return fallback(undefined, 'no /proc/thread-self (not Linux): chrt needs the thread id');
  }
  const { pid, tid } = self;
  const run = spawnSync(chrt, ['--idle', '-p', '0', String(tid)], { encoding: 'latin1', timeout: CHRT_TIMEOUT_MS });
  const policy = readThreadPolicy(pid, tid);
  if (run.error === undefined && run.status === 0 && policy === SCHED_IDLE) {
    return { pid, tid, applied: 'SCHED_IDLE', via: 'chrt', policy, nice: niceOf(tid), note: '' };
  }
  const why =
    run.error !== undefined
      ? `${chrt}: ${run.error.message}`
      : run.status !== 0
        ? `${chrt} exited ${run.status ?? run.signal}: ${String(run.stderr).trim()}`
        : `${chrt} exited 0 but the policy read back is ${policyName(policy)}`;
  return fallback(self, why);
}

/** The nice-19 fallback for `self` (undefined: the id is unknown, nothing can be set); `why`: why chrt was not enough. */
function fallback(self, why) {
  if (self === undefined) return { pid: null, tid: null, applied: 'unchanged', via: 'none', policy: null, nice: null, note: why };
  const { pid, tid } = self;
  try {
    setPriority(tid, FALLBACK_NICE);
    const after = { policy: readThreadPolicy(pid, tid), nice: niceOf(tid) };
    return { pid, tid, applied: `nice ${FALLBACK_NICE}`, via: 'os.setPriority', ...after, note: why };
  } catch (err) {
    const after = { policy: readThreadPolicy(pid, tid), nice: niceOf(tid) };
    return { pid, tid, applied: 'unchanged', via: 'none', ...after, note: `${why}; os.setPriority: ${err.message}` };
  }
}

/** The calling thread left as it is (the process's policy and nice), described the same way. */
export function normalThisThread() {
  const self = ownThread();
  if (self === null) return { pid: null, tid: null, applied: 'normal', via: 'none', policy: null, nice: null, note: '' };
  const { pid, tid } = self;
  return { pid, tid, applied: 'normal', via: 'none', policy: readThreadPolicy(pid, tid), nice: niceOf(tid), note: '' };
}

/** One line for a bench row: what was asked, what happened, how, and why a fallback was taken. */
export function describePolicy(r) {
  if (r.applied === 'normal') return `normal (the process's: ${policyName(r.policy)}, nice ${r.nice ?? '?'})`;
  if (r.applied === 'SCHED_IDLE') return 'SCHED_IDLE (chrt --idle)';
  return `${r.applied} (asked SCHED_IDLE; ${r.via === 'none' ? 'nothing set' : r.via}: ${r.note})`;
}
