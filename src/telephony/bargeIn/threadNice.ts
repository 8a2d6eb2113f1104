/**
 * The detector thread's own scheduling priority (Linux: every thread is a task with its own nice
 * value, and `os.setPriority(tid, n)` sets that one thread's). The detector thread lowers its own
 * priority when it starts, before it loads onnxruntime, so a thread the runtime may start later
 * inherits it (native-notes/vad.md, "The detector thread at a lower priority").
 */
import { readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The lowest scheduling priority a Linux thread can have (the highest nice value). */
export const MAX_NICE = 19;
/** The highest scheduling priority (the lowest nice value; below the inherited one needs CAP_SYS_NICE). */
export const MIN_NICE = -20;

/** This thread's id (Linux; undefined elsewhere): the first field of `/proc/thread-self/stat`. */
export function threadId(): number | undefined {
  try {
    return Number(readFileSync('/proc/thread-self/stat', 'latin1').split(' ', 1)[0]);
  } catch {
    return undefined;
  }
}

/** The notice's first words. */
const NOT_CHANGED = "voicewire: the detector thread's priority was not changed";
/** The notice's last words: what the thread does when its priority could not be set. */
const STAYS = "it runs at the process's priority";

/** What {@link niceThisThread} did. */
export interface ThreadNiceResult {
  /** The thread's id (undefined where `/proc/thread-self` is absent). */
  tid: number | undefined;
  /** The thread's nice value now (undefined where it could not be read). */
  nice: number | undefined;
  /** Set when the priority was asked to change and could not: one line saying why, for the notice path. */
  notice: string | undefined;
}

/**
 * Adds `increment` to the calling thread's nice value (as `nice -n`: positive is a lower priority),
 * clamped to {@link MIN_NICE}..{@link MAX_NICE}. 0 changes nothing. Never throws: where the thread's
 * id cannot be read (no `/proc/thread-self`) or the system refuses (a negative increment without
 * CAP_SYS_NICE), the thread keeps the priority it inherited and the result says why.
 */
export function niceThisThread(increment: number): ThreadNiceResult {
  const tid = threadId();
  let nice: number | undefined;
  try {
    if (tid !== undefined) nice = getPriority(tid);
  } catch {
    nice = undefined;
  }
  if (increment === 0) return { tid, nice, notice: undefined };
  if (tid === undefined || nice === undefined) {
    return {
      tid,
      nice,
      notice: `${NOT_CHANGED} (nice ${increment}): this system has no /proc/thread-self; ${STAYS}`,
    };
  }
  const wanted = Math.min(MAX_NICE, Math.max(MIN_NICE, nice + increment));
  try {
    setPriority(tid, wanted);
    return { tid, nice: getPriority(tid), notice: undefined };
  } catch (err) {
    const why = (err as { message?: unknown } | null)?.message ?? err;
    return {
      tid,
      nice,
      notice: `${NOT_CHANGED} (nice ${nice} → ${wanted}: ${String(why)}); ${STAYS}`,
    };
  }
}
