/**
 * The detector thread: hosts many calls' barge-in detectors off the pacing loop (one Silero
 * session per thread, state per call; see ./createBargeInDetector.ts). Started by
 * ./DetectorThreads.ts; speaks ./detectorMessages.ts. Each call's messages are handled in order:
 * a detector that is still loading keeps its call's messages until it is ready.
 *
 * Messages come in batches (all a call's thread got in one turn of the bridge's event loop), and
 * replies go back the same way: coalesced per call until the thread has drained its queue (one
 * `setImmediate`), then one message for all calls, so a busy thread answers once per turn, not
 * once per 20 ms frame.
 *
 * One thing the call does to its detector is done here at once: an `interrupt` ends the bot's
 * utterance, so the detector hears "the bot stopped" right after the push that decided it, as it
 * does in-thread, and not one message hop later (the call's own "stopped" arrives after and
 * changes nothing).
 */
import { parentPort } from 'node:worker_threads';
import { createBargeInDetector, type BargeInDetector } from './createBargeInDetector.js';
import { portableError, type FromDetector, type ToDetector } from './detectorMessages.js';
import type { BargeInDecision } from './types.js';

interface Hosted {
  detector: BargeInDetector | null;
  /** Messages that came while the detector loaded. */
  waiting: ToDetector[];
  closed: boolean;
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
  const hosted: Hosted = { detector: null, waiting: [], closed: false };
  calls.set(id, hosted);
  const vad = { ...message.options.vad, onNotice: (text: string) => post({ t: 'notice', id, message: text }) };
  createBargeInDetector({ ...message.options, vad }).then(
    (detector) => {
      if (hosted.closed) {
        detector.close();
        calls.delete(id);
        return;
      }
      hosted.detector = detector;
      post({ t: 'ready', id, backend: detector.vadBackend });
      const waiting = hosted.waiting;
      hosted.waiting = [];
      for (const m of waiting) handle(hosted, m);
    },
    (err: unknown) => {
      calls.delete(id);
      if (!hosted.closed) post({ t: 'failed', id, error: portableError(err) });
    },
  );
}

function handle(hosted: Hosted, m: ToDetector): void {
  const detector = hosted.detector;
  if (detector === null) {
    hosted.waiting.push(m);
    if (m.t === 'close') hosted.closed = true;
    return;
  }
  switch (m.t) {
    case 'in': {
      const r = reply(m.id);
      r.samples += m.pcm.length;
      let decisions: BargeInDecision[];
      try {
        decisions = detector.push(m.pcm, m.atMs);
      } catch (err) {
        post({ t: 'warning', id: m.id, error: portableError(err) });
        return;
      }
      for (const d of decisions) {
        r.decisions.push(d);
        if (d.type === 'interrupt') detector.setBotSpeaking(false);
      }
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
      post({ t: 'closed', id: m.id, decisions });
      return;
    }
    case 'open':
    case 'stop':
      return;
  }
}

port.on('message', (batch: ToDetector[]) => {
  for (const m of batch) {
    if (m.t === 'stop') {
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
    if (hosted !== undefined) handle(hosted, m);
  }
});
