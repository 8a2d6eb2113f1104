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
import { parentPort, workerData } from 'node:worker_threads';
import { NativeGate, useNativeGate } from '../vad/nativeGate.js';
import { SileroBatch } from '../vad/silero.js';
import { createSteppedBargeInDetector, type SteppedBargeInDetector } from './createBargeInDetector.js';
import type { DetectorWorkerData } from './DetectorThreads.js';
import { portableError, type FromDetector, type ToDetector } from './detectorMessages.js';
import { FrameRing, RecordKind } from './frameRing.js';
import { niceThisThread, threadId } from './threadNice.js';
import type { BargeInDecision } from './types.js';

interface Hosted {
  id: number;
  detector: SteppedBargeInDetector | null;
  /** Messages not handled yet: they came while the detector loaded, or behind a push under way. */
  waiting: ToDetector[];
  closed: boolean;
  /** A push waiting on the batch: its steps (its decisions go to {@link out}). */
  active: Generator<void, void, void> | null;
  /** The push under way came from the call's ring: its record is released when the push is done. */
  activeFromRing: boolean;
  /** The decisions of the push under way (reused: emptied once they are in the reply). */
  out: BargeInDecision[];
  /** The call's shared-memory ring (./frameRing.ts), or null when its audio comes as messages. */
  ring: FrameRing | null;
  /** Where a ring record's audio is copied for the detector: μ-law bytes, or s16 (an L16 or A-law line). */
  mulaw: Scratch<Uint8Array>;
  s16: Scratch<Int16Array>;
  /** This turn's answer (reused). */
  reply: Reply;
}

/**
 * A scratch array a ring record's audio is copied into (grown as needed), and a view of it at the
 * record's length (kept while the length stays).
 */
interface Scratch<A extends Uint8Array | Int16Array> {
  array: A;
  view: A;
  /** A new scratch array of `n` samples. */
  make: (n: number) => A;
}

interface Reply {
  decisions: BargeInDecision[];
  samples: number;
  /** Queued in {@link replying} this turn. */
  queued: boolean;
}

/** A ring record's audio is copied into a scratch array of this many samples at first (a 20 ms frame; grown as needed). */
const SCRATCH_SAMPLES = 160;

const port = parentPort;
if (port === null) throw new Error('detectorWorker runs in a worker thread');
const data = workerData as Partial<DetectorWorkerData> | null;
// Every call into onnxruntime-node's addon on this thread goes through the pool's gate, so the
// pool can keep the thread out of it before Node stops the thread (../vad/nativeGate.ts).
if (data?.gate !== undefined) useNativeGate(new NativeGate(data.gate));
// First of all, before onnxruntime loads (a thread it starts inherits the priority): this thread's
// nice value (./DetectorThreads.ts `nice`), and its id, told to the pool.
{
  const { tid, nice, notice } = niceThisThread(data?.nice ?? 0);
  const started: FromDetector[] = [{ t: 'thread', tid, nice, notice }];
  port.postMessage(started);
}
const calls = new Map<number, Hosted>();
/** Calls with an answer this turn, in the order they got one. */
const replying: Hosted[] = [];
let flushScheduled = false;
/** The thread's Silero windows waiting for a run (one session per thread, see ../vad/silero.ts). */
const modelBatch = new SileroBatch();

/** Messages taken from the port so far (each a batch), and polls of the rings: the thread's wakes, reported at a call's close. */
let wakes = 0;
/** The thread looks at its rings every this many ms on its own timer while it hosts a call (`poll`); 0: when rung. */
let pollMs = 0;
let pollTimer: ReturnType<typeof setInterval> | null = null;

/** Every call whose ring has records, driven: what a doorbell does, on the thread's own timer. */
function poll(): void {
  wakes++;
  const touched: Hosted[] = [];
  for (const hosted of calls.values()) if (hosted.ring !== null && !hosted.ring.empty) touched.push(hosted);
  if (touched.length > 0) drive(touched);
  pollWhileHosting(); // a call's close may have been among the records' followers
}

/** The poll timer runs while polling is on and the thread hosts a call (an idle thread is not woken). */
function pollWhileHosting(): void {
  const want = pollMs > 0 && calls.size > 0;
  if (want === (pollTimer !== null)) return;
  if (pollTimer !== null) {
    clearInterval(pollTimer);
    pollTimer = null;
  } else pollTimer = setInterval(poll, pollMs);
}
/** VAD windows of the detectors closed so far, and those that ran Silero: reported at a call's close, for the benches. */
const closedWindows = { windows: 0, modelWindows: 0 };

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

function reply(hosted: Hosted): Reply {
  const r = hosted.reply;
  if (!r.queued) {
    r.queued = true;
    replying.push(hosted);
    schedule();
  }
  return r;
}

/**
 * The calls' answers of this turn go in one message. A call fed by messages answers whenever it
 * took anything (the samples it took are the call's in-flight count); a call fed by its ring
 * answers only with decisions, or once its ring is empty when the call asked for an answer
 * (`settled()`): what it took is counted in the ring itself.
 */
function flushReplies(): void {
  flushScheduled = false;
  for (const hosted of replying) {
    const r = hosted.reply;
    r.queued = false;
    const ring = hosted.ring;
    const answer = ring === null || r.decisions.length > 0 || (ring.empty && hosted.active === null && ring.takeAnswerRequest());
    if (answer) outbox.push({ t: 'decisions', id: hosted.id, decisions: r.decisions, samples: r.samples });
    if (r.decisions.length > 0) r.decisions = [];
    r.samples = 0;
  }
  replying.length = 0;
  const batch = outbox;
  outbox = [];
  if (batch.length > 0) port!.postMessage(batch);
}

function open(id: number, message: ToDetector & { t: 'open' }): void {
  const hosted: Hosted = {
    id,
    detector: null,
    waiting: [],
    closed: false,
    active: null,
    activeFromRing: false,
    out: [],
    ring: message.ring === undefined ? null : new FrameRing(message.ring),
    mulaw: { array: new Uint8Array(SCRATCH_SAMPLES), view: new Uint8Array(0), make: (n) => new Uint8Array(n) },
    s16: { array: new Int16Array(SCRATCH_SAMPLES), view: new Int16Array(0), make: (n) => new Int16Array(n) },
    reply: { decisions: [], samples: 0, queued: false },
  };
  calls.set(id, hosted);
  const { batchModel, ...options } = message.options;
  const vad = { ...options.vad, onNotice: (text: string) => post({ t: 'notice', id, message: text }) };
  createSteppedBargeInDetector({ ...options, vad }, batchModel === false ? null : modelBatch).then(
    (detector) => {
      if (hosted.closed) {
        detector.close();
        calls.delete(id);
        pollWhileHosting();
        return;
      }
      hosted.detector = detector;
      post({ t: 'ready', id, backend: detector.vadBackend });
      drive([hosted]);
    },
    (err: unknown) => {
      calls.delete(id);
      pollWhileHosting();
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
        h.active!.return();
        endPush(h);
        post({ t: 'warning', id: h.id, error: portableError(err) });
      }
      round = round.filter((h) => h.waiting.length > 0 || (h.ring !== null && !h.ring.empty));
    }
  }
}

/**
 * Resumes the call's push under way, then handles what waits for it until a push waits on the
 * batch: its ring's records first (all written before any message still waiting: the call's
 * `close`), then its waiting messages.
 */
function advance(hosted: Hosted): void {
  const detector = hosted.detector;
  if (detector === null) return;
  if (hosted.active !== null && !step(hosted, detector)) return;
  while (hosted.active === null) {
    const ring = hosted.ring;
    if (ring !== null && !hosted.closed && ring.next()) handleRecord(hosted, detector, ring);
    else if (hosted.waiting.length > 0) handle(hosted, detector, hosted.waiting.shift()!);
    else return;
  }
}

/** The push under way is over (done, failed or dropped): its ring record is freed. */
function endPush(hosted: Hosted): void {
  hosted.active = null;
  hosted.out.length = 0;
  if (hosted.activeFromRing) hosted.ring!.release();
  hosted.activeFromRing = false;
}

/** One step of the push under way; true when it is done (its decisions taken). */
function step(hosted: Hosted, detector: SteppedBargeInDetector): boolean {
  let done: boolean;
  try {
    done = hosted.active!.next().done === true;
  } catch (err) {
    endPush(hosted);
    post({ t: 'warning', id: hosted.id, error: portableError(err) });
    return true;
  }
  if (!done) return false;
  const r = reply(hosted);
  for (const d of hosted.out) {
    r.decisions.push(d);
    if (d.type === 'interrupt') detector.setBotSpeaking(false);
  }
  endPush(hosted);
  return true;
}

/** The ring record just read: its audio is copied out (the ring's bytes are the call's to reuse once released). */
function handleRecord(hosted: Hosted, detector: SteppedBargeInDetector, ring: FrameRing): void {
  reply(hosted);
  const kind = ring.kind;
  if (kind === RecordKind.BotSpeaking || kind === RecordKind.BotStopped) {
    detector.setBotSpeaking(kind === RecordKind.BotSpeaking);
    ring.release();
    return;
  }
  const pcm = ring.isS16 ? payload(hosted.s16, ring) : payload(hosted.mulaw, ring);
  if (kind === RecordKind.InMulaw || kind === RecordKind.InS16) {
    hosted.active = detector.steps(pcm, ring.atMs, hosted.out);
    hosted.activeFromRing = true;
    step(hosted, detector);
    return;
  }
  try {
    detector.notePlayed(pcm, ring.atMs);
  } catch (err) {
    post({ t: 'warning', id: hosted.id, error: portableError(err) });
  }
  ring.release();
}

/** The ring record's audio, copied into `scratch` (of the record's sample type); a view of the record's length. */
function payload<A extends Uint8Array | Int16Array>(scratch: Scratch<A>, ring: FrameRing): A {
  const n = ring.samples;
  if (scratch.array.length < n) scratch.array = scratch.make(n);
  const array = scratch.array;
  if (array instanceof Int16Array) ring.copyS16(array);
  else ring.copyMulaw(array);
  if (scratch.view.length !== n || scratch.view.buffer !== array.buffer) scratch.view = array.subarray(0, n) as A;
  return scratch.view;
}

function handle(hosted: Hosted, detector: SteppedBargeInDetector, m: ToDetector): void {
  switch (m.t) {
    case 'in': {
      reply(hosted).samples += m.pcm.length;
      hosted.active = detector.steps(m.pcm, m.atMs, hosted.out);
      step(hosted, detector);
      return;
    }
    case 'played':
      reply(hosted).samples += m.pcm.length;
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
      closedWindows.windows += detector.stats.windows;
      closedWindows.modelWindows += detector.stats.modelWindows;
      detector.close();
      // What this turn took goes first, so the call sees its decisions in order.
      const pending = hosted.reply;
      if (pending.queued) {
        replying.splice(replying.indexOf(hosted), 1);
        pending.queued = false;
        outbox.push({ t: 'decisions', id: m.id, decisions: pending.decisions, samples: pending.samples });
        pending.decisions = [];
        pending.samples = 0;
      }
      post({
        t: 'closed',
        id: m.id,
        decisions,
        model: { ...modelBatch.stats, ...closedWindows, wakes, cpuMs: threadCpuMs(), tid: threadId() },
      });
      return;
    }
    case 'open':
    case 'stop':
    case 'poll':
      return;
  }
}

port.on('message', (batch: ToDetector[]) => {
  wakes++;
  const touched = new Set<Hosted>();
  for (const m of batch) {
    if (m.t === 'poll') {
      pollMs = m.ms;
      if (pollTimer !== null) clearInterval(pollTimer);
      pollTimer = null;
      continue;
    }
    if (m.t === 'stop') {
      pollMs = 0;
      pollWhileHosting();
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
  // Every call whose ring has records: a message (the doorbell, or a control message) means "look".
  for (const hosted of calls.values()) if (hosted.ring !== null && !hosted.ring.empty) touched.add(hosted);
  drive([...touched]);
  pollWhileHosting();
});
