// Types of bench/lib/threadPolicy.mjs (plain JavaScript: the phones' worker thread runs without a TypeScript loader).
export const SCHED_OTHER: 0;
export const SCHED_IDLE: 5;
export const FALLBACK_NICE: 19;
export const CHRT: 'chrt';

/** What a thread's policy was set to, and how. */
export interface ThreadPolicyResult {
  pid: number | null;
  tid: number | null;
  /** What the thread runs under now. */
  applied: 'SCHED_IDLE' | 'nice 19' | 'normal' | 'unchanged';
  /** How: `chrt --idle`, the nice fallback, or nothing. */
  via: 'chrt' | 'os.setPriority' | 'none';
  /** The `policy` field of /proc/<pid>/task/<tid>/sched right after (null: not readable). */
  policy: number | null;
  /** The thread's nice value right after (null: not readable). */
  nice: number | null;
  /** Why the fallback was taken ('' when it was not). */
  note: string;
}

export function parseThreadSelfLink(link: string): { pid: number; tid: number } | null;
export function ownThread(): { pid: number; tid: number } | null;
export function parseSchedPolicy(text: string): number | null;
export function readThreadPolicy(pid: number, tid: number): number | null;
export function policyName(policy: number | null): string;
export function idleThisThread(options?: { chrt?: string }): ThreadPolicyResult;
export function normalThisThread(): ThreadPolicyResult;
export function describePolicy(r: ThreadPolicyResult): string;
