/**
 * Who a thread waits behind, from a `perf sched record -a` trace read back with `perf script -F
 * comm,tid,pid,cpu,time,event,trace` (bench/schedWaitProbe.ts; native-notes/vad.md, "Who the
 * pacing thread waits behind"). Pure: takes the text lines, returns the figures.
 *
 * The watched thread is **waiting** (runnable, not running) from its `sched_waking` (woken out of
 * a sleep: a timer, a socket, another thread's doorbell) or from a `sched_switch` away from it in
 * state R (preempted) until the `sched_switch` that puts it on a CPU. Over each waiting stretch the
 * task running on the CPU it is queued on (the wake's target CPU, moved by `sched_migrate_task`)
 * is blamed for the time, and the task on the other CPU noted too (a 2-CPU machine: the pacing
 * thread could only have run on one of the two).
 *
 * Threads are labelled by their `comm` (the probe renames this process's threads through
 * `/proc/self/task/<tid>/comm`: Node 20 gives every thread the name "node"); threads of other
 * processes are grouped as "other process: <comm>", the idle task as "idle".
 */

/** One line of `perf script` parsed; undefined fields are absent in that event. */
interface SchedEvent {
  /** The task running on the CPU when the event fired (for `sched_waking`: the waker, or the task an interrupt landed on). */
  comm: string;
  tid: number;
  pid: number;
  cpu: number;
  /** Seconds (perf's clock). */
  time: number;
  event: string;
  fields: Map<string, string>;
  /** Kernel symbols of the event's call chain, innermost first (recorded for `sched_waking` only). */
  stack: string[];
}

const LINE = /^\s*(.+?)\s+(-?\d+)\/(-?\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)$/;
const FIELD = /(\w+)=(\S+)/g;

/** One line of `perf script -F comm,tid,pid,cpu,time,event,trace`, or undefined for any other line. */
export function parseSchedLine(line: string): SchedEvent | undefined {
  const m = LINE.exec(line);
  if (m === null) return undefined;
  const fields = new Map<string, string>();
  // prev_comm / next_comm / comm may hold spaces ("V8 DefaultWorke"): the probe renames this
  // process's threads to names without spaces, and other processes' names only label their group.
  for (const f of m[7]!.matchAll(FIELD)) fields.set(f[1]!, f[2]!);
  return {
    comm: m[1]!,
    // perf prints "pid/tid".
    pid: Number(m[2]),
    tid: Number(m[3]),
    cpu: Number(m[4]),
    time: Number(m[5]),
    event: m[6]!.replace(/^sched:/, ''),
    fields,
    stack: [],
  };
}

/** A call-chain line under an event: an address and a symbol. */
const FRAME = /^\s+[0-9a-f]+\s+(\S+)/;

/**
 * How a wake came about, from the waker's kernel call chain: a timer expiring (`timer`: the task
 * the interrupt landed on did not wake anyone), an eventfd write (libuv's `uv_async_send`: a
 * `postMessage` to a thread), a socket (data or room on a TCP socket), a futex, a pipe; else the
 * first symbol past the wake-up machinery.
 */
export function wakeVia(stack: readonly string[]): string {
  const has = (re: RegExp): boolean => stack.some((f) => re.test(f));
  if (stack.length === 0) return '?';
  if (has(/hrtimer_wakeup|hrtimer_interrupt|__hrtimer_run_queues/)) return 'timer';
  if (has(/^eventfd/)) return 'eventfd';
  if (has(/sock_def_readable|sock_def_write_space|^tcp_|^sk_stream/)) return 'socket';
  if (has(/futex/)) return 'futex';
  if (has(/pipe_write/)) return 'pipe';
  return stack.find((f) => !/wake|^try_to|__wake_up|autoremove|ep_poll_callback/.test(f)) ?? '?';
}

export interface ThreadFigures {
  label: string;
  /** CPU time, ms per second of trace. */
  runMsPerS: number;
  /** Runnable but not running, ms per second. */
  waitMsPerS: number;
  /** Times it was woken out of a sleep, per second. */
  wakesPerS: number;
  /** Times it was switched out while still runnable, per second. */
  preemptionsPerS: number;
  /** Moves between CPUs, per second. */
  migrationsPerS: number;
  /** Who woke it (the task current at `sched_waking`), per second, largest first. */
  wokenBy: [string, number][];
}

export interface WaitReport {
  seconds: number;
  /** The watched thread's waits, count and how long. */
  waits: { count: number; fromWake: number; fromPreemption: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** Wait ms per second blamed on the task running on the CPU the watched thread was queued on, by label, largest first. */
  onItsCpu: [string, number][];
  /** The same stretches: what ran on the other CPU meanwhile, ms per second, by label. */
  onOtherCpu: [string, number][];
  /**
   * The same stretches by the pair "on its CPU | on the other CPU", ms per second, largest first:
   * the stretches where both CPUs ran this process's threads are the ones a quiet machine has.
   */
  byPair: [string, number][];
  /** Who woke the watched thread (the task current at `sched_waking`), wakes per second, by label. */
  wokenBy: [string, number][];
  /** What ran on the CPU a wake queued the watched thread on, at the wake, per second, by label ("idle": it could run at once). */
  wokenOnto: [string, number][];
  /** Who took the CPU when the watched thread was preempted, per second, by label. */
  preemptedBy: [string, number][];
  /** Per thread of the watched process (and one row per other process), largest CPU first. */
  threads: ThreadFigures[];
}

/**
 * `watchPid`: the process (thread group) of interest; `watchTid`: the thread whose waits are
 * explained (the bridge's pacing thread, the process's main thread).
 */
export function analyseWaits(lines: Iterable<string>, watchPid: number, watchTid: number): WaitReport {
  const tgidOf = new Map<number, number>();
  const commOf = new Map<number, string>();
  const label = (tid: number, comm?: string): string => {
    if (tid === 0) return 'idle';
    const name = commOf.get(tid) ?? comm ?? '?';
    const tgid = tgidOf.get(tid);
    if (tgid === watchPid) return name;
    // A thread perf could not resolve (its process exited before the trace was read: "pid -1").
    if (tgid === undefined) return `other process: ${name}`;
    if (tgid === 2 || /^(kworker|ksoftirqd|migration|rcu_|cpuhp|kthreadd|irq\/)/.test(name))
      return `kernel: ${name.replace(/[/:].*$/, '')}`;
    return `other process: ${name}`;
  };

  const events: SchedEvent[] = [];
  for (const line of lines) {
    const e = parseSchedLine(line);
    if (e === undefined) {
      const f = FRAME.exec(line);
      const lastEvent = events[events.length - 1];
      if (f !== null && lastEvent !== undefined && lastEvent.event === 'sched_waking') lastEvent.stack.push(f[1]!);
      continue;
    }
    events.push(e);
    if (e.tid > 0) {
      tgidOf.set(e.tid, e.pid);
      commOf.set(e.tid, e.comm);
    }
    // Names of tasks seen only as the one switched to or from (short-lived processes perf prints as -1).
    for (const k of ['prev', 'next']) {
      const tid = Number(e.fields.get(`${k}_pid`));
      const name = e.fields.get(`${k}_comm`);
      if (e.event === 'sched_switch' && tid > 0 && name !== undefined && !commOf.has(tid)) commOf.set(tid, name);
    }
  }
  events.sort((a, b) => a.time - b.time);
  const t0 = events[0]?.time ?? 0;
  const seconds = Math.max(1e-9, (events[events.length - 1]?.time ?? 0) - t0);

  type State =
    { kind: 'run'; cpu: number; since: number } | { kind: 'wait'; cpu: number; since: number; fromWake: boolean } | { kind: 'sleep' };
  interface Acc {
    runS: number;
    waitS: number;
    wakes: number;
    preemptions: number;
    migrations: number;
    state: State;
    wakers: Map<string, number>;
  }
  const acc = new Map<number, Acc>();
  const get = (tid: number): Acc => {
    let a = acc.get(tid);
    if (a === undefined) {
      a = { runS: 0, waitS: 0, wakes: 0, preemptions: 0, migrations: 0, state: { kind: 'sleep' }, wakers: new Map() };
      acc.set(tid, a);
    }
    return a;
  };
  const running = new Map<number, number>(); // cpu → tid
  const cpus = new Set<number>();
  const onIts = new Map<string, number>();
  const onOther = new Map<string, number>();
  const byPair = new Map<string, number>();
  const wokenBy = new Map<string, number>();
  const preemptedBy = new Map<string, number>();
  const wokenOnto = new Map<string, number>();
  const waitLengths: number[] = [];
  let fromWake = 0;
  let fromPreemption = 0;
  let last = t0;
  const add = (m: Map<string, number>, k: string, v: number): void => void m.set(k, (m.get(k) ?? 0) + v);

  for (const e of events) {
    cpus.add(e.cpu);
    // Blame the stretch since the last event.
    const w = acc.get(watchTid)?.state;
    if (w !== undefined && w.kind === 'wait' && e.time > last) {
      const dt = e.time - last;
      const its = label(running.get(w.cpu) ?? 0);
      add(onIts, its, dt);
      for (const c of cpus) {
        if (c === w.cpu) continue;
        const other = label(running.get(c) ?? 0);
        add(onOther, other, dt);
        add(byPair, `${its} | ${other}`, dt);
      }
    }
    last = e.time;
    const f = e.fields;
    if (e.event === 'sched_switch') {
      const prev = Number(f.get('prev_pid'));
      const next = Number(f.get('next_pid'));
      const prevState = f.get('prev_state') ?? '';
      if (prev !== 0) {
        const a = get(prev);
        if (a.state.kind === 'run') a.runS += e.time - a.state.since;
        if (prevState.startsWith('R')) {
          a.preemptions++;
          a.state = { kind: 'wait', cpu: e.cpu, since: e.time, fromWake: false };
          if (prev === watchTid) add(preemptedBy, label(next, f.get('next_comm')), 1);
        } else a.state = { kind: 'sleep' };
      }
      if (next !== 0) {
        const a = get(next);
        if (a.state.kind === 'wait') {
          a.waitS += e.time - a.state.since;
          if (next === watchTid) {
            waitLengths.push(e.time - a.state.since);
            if (a.state.fromWake) fromWake++;
            else fromPreemption++;
          }
        }
        a.state = { kind: 'run', cpu: e.cpu, since: e.time };
      }
      running.set(e.cpu, next);
    } else if (e.event === 'sched_waking' || e.event === 'sched_wakeup_new') {
      const tid = Number(f.get('pid'));
      const a = get(tid);
      if (a.state.kind === 'sleep') {
        a.wakes++;
        const via = wakeVia(e.stack);
        add(a.wakers, via === 'timer' ? 'timer' : via === '?' ? label(e.tid, e.comm) : `${label(e.tid, e.comm)} (${via})`, 1);
        a.state = { kind: 'wait', cpu: Number(f.get('target_cpu')), since: e.time, fromWake: true };
        if (tid === watchTid) {
          const via = wakeVia(e.stack);
          add(wokenBy, via === 'timer' ? 'timer' : via === '?' ? label(e.tid, e.comm) : `${label(e.tid, e.comm)} (${via})`, 1);
          add(wokenOnto, label(running.get(Number(f.get('target_cpu'))) ?? 0), 1);
        }
      }
    } else if (e.event === 'sched_migrate_task') {
      const tid = Number(f.get('pid'));
      const a = get(tid);
      a.migrations++;
      if (a.state.kind === 'wait') a.state.cpu = Number(f.get('dest_cpu'));
    }
  }
  // Close what is still running or waiting at the trace's end.
  const end = t0 + seconds;
  for (const a of acc.values()) {
    if (a.state.kind === 'run') a.runS += end - a.state.since;
    if (a.state.kind === 'wait') a.waitS += end - a.state.since;
  }

  const perS = (m: Map<string, number>, scale: number): [string, number][] =>
    [...m].map(([k, v]): [string, number] => [k, (v * scale) / seconds]).sort((x, y) => y[1] - x[1]);
  const sorted = [...waitLengths].sort((x, y) => x - y);
  const q = (p: number): number => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! * 1000);

  // Threads of the watched process one by one; every other process summed under its label.
  const rows = new Map<string, Acc>();
  for (const [tid, a] of acc) {
    const key = tgidOf.get(tid) === watchPid ? `${label(tid)} [${tid}]` : label(tid);
    const r = rows.get(key) ?? { runS: 0, waitS: 0, wakes: 0, preemptions: 0, migrations: 0, state: { kind: 'sleep' }, wakers: new Map() };
    for (const [k, v] of a.wakers) add(r.wakers, k, v);
    r.runS += a.runS;
    r.waitS += a.waitS;
    r.wakes += a.wakes;
    r.preemptions += a.preemptions;
    r.migrations += a.migrations;
    rows.set(key, r);
  }
  const threads = [...rows]
    .map(([k, a]): ThreadFigures => ({
      label: k,
      runMsPerS: (a.runS * 1000) / seconds,
      waitMsPerS: (a.waitS * 1000) / seconds,
      wakesPerS: a.wakes / seconds,
      preemptionsPerS: a.preemptions / seconds,
      migrationsPerS: a.migrations / seconds,
      wokenBy: perS(a.wakers, 1),
    }))
    .sort((x, y) => y.runMsPerS - x.runMsPerS);

  return {
    seconds,
    waits: {
      count: waitLengths.length,
      fromWake,
      fromPreemption,
      p50Ms: q(0.5),
      p99Ms: q(0.99),
      maxMs: (sorted[sorted.length - 1] ?? NaN) * 1000,
    },
    onItsCpu: perS(onIts, 1000),
    onOtherCpu: perS(onOther, 1000),
    byPair: perS(byPair, 1000),
    wokenBy: perS(wokenBy, 1),
    wokenOnto: perS(wokenOnto, 1),
    preemptedBy: perS(preemptedBy, 1),
    threads,
  };
}

/**
 * The main thread (thread id = process id) of the process whose main thread is named `comm`, as
 * [process id, thread id]; undefined when absent. (Threads a renamed thread starts inherit its
 * name: only the main thread is looked for.)
 */
export function findMainThread(lines: Iterable<string>, comm: string): [number, number] | undefined {
  for (const line of lines) {
    const e = parseSchedLine(line);
    if (e !== undefined && e.comm === comm && e.pid === e.tid) return [e.pid, e.tid];
  }
  return undefined;
}
