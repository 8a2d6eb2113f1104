/**
 * The detector thread: hosts many calls' barge-in detectors off the pacing loop (one Silero
 * session per thread, state per call; see ./createBargeInDetector.ts). Started by
 * ./DetectorThreads.ts; speaks ./detectorMessages.ts. Each call's messages are handled in order:
 * a detector that is still loading keeps its call's messages until it is ready.
 *
 * Messages come in batches (all a call's thread got in one tick, ./DetectorThreads.ts), and
 * replies go back the same way: coalesced per call until the thread has drained its queue (one
 * `setImmediate`), then one message for all calls, so a busy thread answers once per turn, not
 * once per 20 ms frame. That is at most one answer per message taken, so the bridge's tick bounds
 * the answers too: they need no tick of their own (and an answer held back would delay a pause).
 *
 * Silero's windows of all calls are scored together: when one incoming message holds several
 * calls' audio, each call's push runs until a window needs the network (it waits on the thread's
 * {@link SileroBatch}), then the windows that are ready are run in one `[B, …]` run, each row its
 * own call's state, and every waiting push goes on; until all the message's work is done. Nothing
 * waits beyond the message (no added latency); a call's windows stay in order (one per run), so
 * its decisions are those of scoring one window at a time.
 *
 * One thing the call does to its detector is done here at once: an `interrupt` ends the bot's
 * utterance, so the detector hears "the bot stopped" right after the push that decided it, as it
 * does in-thread, and not one message hop later (the call's own "stopped" arrives after and
 * changes nothing).
 */
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { SileroBatch } from '../vad/silero.js';
import { createSteppedBargeInDetector, type SteppedBargeInDetector } from './createBargeInDetector.js';
import { portableError, type FromDetector, type ToDetector } from './detectorMessages.js';
import type { BargeInDecision } from './types.js';

interface Hosted {
  id: number;
  detector: SteppedBargeInDetector | null;
  /** Messages not handled yet: they came while the detector loaded, or behind a push under way. */
  waiting: ToDetector[];
  closed: boolean;
  /** A push waiting on the batch: its steps, and the decisions made so far. */
  active: { steps: Generator<void, void, void>; out: BargeInDecision[] } | null;
}

interface Reply {
  decisions: BargeInDecision[];
  samples: number;
}

const port = parentPort;
if (port === null) throw new Error('detectorWorker runs in a worker thread');
const calls = new Map<number, Hosted>();
const replies = new Map<number, Reply>();
let flushScheduled = false;
/** The thread's Silero windows waiting for a run (one session per thread, see ../vad/silero.ts). */
const modelBatch = new SileroBatch();

/** Messages taken from the port so far (each a batch): the thread's wakes, reported at a call's close. */
let wakes = 0;

/**
 * This thread's CPU ms so far: the first field of `/proc/thread-self/schedstat` (ns on a CPU;
 * Linux), undefined where it cannot be read. Read once per call close, for the benches.
 */
function threadCpuMs(): number | undefined {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ', 1)[0]) / 1e6;
  } catch {
    return undefined;
  }
}

/** Replies of this turn, posted together by {@link flushReplies}. */
let outbox: FromDetector[] = [];

function post(message: FromDetector): void {
  outbox.push(message);
  schedule();
}

function schedule(): void {
  if (flushScheduled) return;
  flushScheduled = true;
  setImmediate(flushReplies);
}

function reply(id: number): Reply {
  let r = replies.get(id);
  if (r === undefined) {
    r = { decisions: [], samples: 0 };
    replies.set(id, r);
    schedule();
  }
  return r;
}

function flushReplies(): void {
  flushScheduled = false;
  for (const [id, r] of replies) outbox.push({ t: 'decisions', id, decisions: r.decisions, samples: r.samples });
  replies.clear();
  const batch = outbox;
  outbox = [];
  if (batch.length > 0) port!.postMessage(batch);
}

function open(id: number, message: ToDetector & { t: 'open' }): void {
  const hosted: Hosted = { id, detector: null, waiting: [], closed: false, active: null };
  calls.set(id, hosted);
  const { batchModel, ...options } = message.options;
  const vad = { ...options.vad, onNotice: (text: string) => post({ t: 'notice', id, message: text }) };
  createSteppedBargeInDetector({ ...options, vad }, batchModel === false ? null : modelBatch).then(
    (detector) => {
      if (hosted.closed) {
        detector.close();
        calls.delete(id);
        return;
      }
      hosted.detector = detector;
      post({ t: 'ready', id, backend: detector.vadBackend });
      drive([hosted]);
    },
    (err: unknown) => {
      calls.delete(id);
      if (!hosted.closed) post({ t: 'failed', id, error: portableError(err) });
    },
  );
}

/**
 * Handles the calls' waiting messages, each call's in order: every call goes as far as it can
 * (until a push waits on the batch), then the batch runs the windows that are ready, and again,
 * until no push waits.
 */
function drive(hosts: Hosted[]): void {
  let round = hosts;
  while (round.length > 0) {
    for (const h of round) advance(h);
    round = round.filter((h) => h.active !== null);
    if (round.length === 0) return;
    try {
      modelBatch.run();
    } catch (err) {
      // The runtime failed on a run: the waiting pushes are dropped with a warning, the calls go on.
      for (const h of round) {
        h.active!.steps.return();
        h.active = null;
        post({ t: 'warning', id: h.id, error: portableError(err) });
      }
      round = round.filter((h) => h.waiting.length > 0);
    }
  }
}

/** Resumes the call's push under way, then handles its waiting messages until one waits on the batch. */
function advance(hosted: Hosted): void {
  const detector = hosted.detector;
  if (detector === null) return;
  if (hosted.active !== null && !step(hosted, detector)) return;
  while (hosted.waiting.length > 0 && hosted.active === null) handle(hosted, detector, hosted.waiting.shift()!);
}

/** One step of the push under way; true when it is done (its decisions taken). */
function step(hosted: Hosted, detector: SteppedBargeInDetector): boolean {
  const active = hosted.active!;
  let done: boolean;
  try {
    done = active.steps.next().done === true;
  } catch (err) {
    hosted.active = null;
    post({ t: 'warning', id: hosted.id, error: portableError(err) });
    return true;
  }
  if (!done) return false;
  hosted.active = null;
  const r = reply(hosted.id);
  for (const d of active.out) {
    r.decisions.push(d);
    if (d.type === 'interrupt') detector.setBotSpeaking(false);
  }
  return true;
}

function handle(hosted: Hosted, detector: SteppedBargeInDetector, m: ToDetector): void {
  switch (m.t) {
    case 'in': {
      reply(m.id).samples += m.pcm.length;
      const out: BargeInDecision[] = [];
      hosted.active = { steps: detector.steps(m.pcm, m.atMs, out), out };
      step(hosted, detector);
      return;
    }
    case 'played':
      reply(m.id).samples += m.pcm.length;
      try {
        detector.notePlayed(m.pcm, m.atMs);
      } catch (err) {
        post({ t: 'warning', id: m.id, error: portableError(err) });
      }
      return;
    case 'bot':
      detector.setBotSpeaking(m.speaking);
      return;
    case 'close': {
      calls.delete(m.id);
      hosted.closed = true;
      let decisions: BargeInDecision[] = [];
      try {
        decisions = detector.flush();
      } catch (err) {
        post({ t: 'warning', id: m.id, error: portableError(err) });
      }
      detector.close();
      // What this turn took goes first, so the call sees its decisions in order.
      const pending = replies.get(m.id);
      if (pending !== undefined) {
        replies.delete(m.id);
        outbox.push({ t: 'decisions', id: m.id, decisions: pending.decisions, samples: pending.samples });
      }
      post({ t: 'closed', id: m.id, decisions, model: { ...modelBatch.stats, wakes, cpuMs: threadCpuMs() } });
      return;
    }
    case 'open':
    case 'stop':
      return;
  }
}

port.on('message', (batch: ToDetector[]) => {
  wakes++;
  const touched = new Set<Hosted>();
  for (const m of batch) {
    if (m.t === 'stop') {
      drive([...touched]);
      for (const hosted of calls.values()) hosted.detector?.close();
      calls.clear();
      port.close();
      return;
    }
    if (m.t === 'open') {
      open(m.id, m);
      continue;
    }
    const hosted = calls.get(m.id);
    if (hosted === undefined) continue;
    hosted.waiting.push(m);
    if (m.t === 'close' && hosted.detector === null) hosted.closed = true;
    touched.add(hosted);
  }
  drive([...touched]);
});
