/**
 * Barge-in by voice through a whole call: the bridge (`attachTwilioMediaStream` with `bargeIn`)
 * on a real WebSocket on loopback, the Twilio-like test peer playing the bot's greeting in real
 * time on an injected clock, and the peer's microphone sending each corpus utterance ≥ 300 ms
 * (test/fixtures/vad, 20 and 10 dB SNR, tuning and held-out voices) as 20 ms media frames while
 * the bot speaks. Figures, from the labelled speech onset (clock time at the peer):
 * - paused: the bridge stopped sending new media (`bargeInPause`) and kept it stopped until the
 *   clear (an early pause that lapsed before it does not count), p50 / p95;
 * - clear sent: the peer received `clear`, p50 / p95; and how many utterances interrupted;
 * - each over all utterances (the verdict), and apart for tuning / held-out voices and per SNR;
 * - false pauses: pauses that resumed, with how long they held media back.
 * The microphone runs without a break for the whole run, one 20 ms frame after another, and the
 * line's noise goes on between utterances (each slot is the clip's lead noise looped, the clip,
 * the noise again), as on a phone line. It used to stop between utterances, restart on a new
 * 20 ms grid and send digital silence between them, which a real line never does: the silence
 * left the noise floor at zero when the caller's clip began. The clock is injected (ManualClock), so the figure is the detection
 * path's own latency (20 ms media frames, 32 ms VAD windows, the echo gate, the policy), not
 * this machine's scheduling: the CPU side is the telephony bench's (lateness with barge-in ON).
 * All rows are measured in the same run: the defaults, the defaults without the idle hold
 * ({@link BEFORE_IDLE_HOLD}), the defaults without the span bridge
 * ({@link BEFORE_BRIDGE}), and the defaults before the early pause and the block-by-block span ({@link BEFORE}).
 *
 *   npm run bench -- bargeInCall
 */
import { DEFAULT_MIN_INTERRUPTION_MS, type BargeInDetectorOptions } from '../src/telephony/bargeIn/index.js';
import type { UtteranceResult } from '../src/telephony/Utterance.js';
import { CORPUS_RATE, loadCorpus, type LoadedClip } from '../test/fixtures/vad/corpus.js';
import { fixtureSource, greeting } from '../test/telephony/helpers/fixtureSource.js';
import { startHarness } from '../test/telephony/helpers/harness.js';
import { p50p95, percentile, round, sortedCopy } from './lib/stats.js';
import type { BenchOptions, BenchResult } from './types.js';

const COMMAND = 'npm run bench -- bargeInCall';
/** Utterances this long or longer must interrupt (issue 22). */
const MIN_UTTERANCE_MS = 300;
const SNRS = [20, 10];
const MS = CORPUS_RATE / 1000;
/**
 * The caller's clip starts this long after the bot's first frame (the bot is well into speaking);
 * before it, the line carries the clip's own noise, so that the noise floor is the line's when
 * the caller starts (1 s: the recent floor's memory), not the previous clip's.
 */
const CALLER_AT_MS = 1000;
/** After each utterance: the caller's turn ends (800 ms of silence) before the next one. */
const SETTLE_MS = 1500;
/**
 * Each utterance has a slot of its own on the clock, fixed in advance (not moved by when the
 * previous one was cleared), so both rows hear every clip at the same place on the 20 ms frame
 * and 32 ms window grids (paired). Longer than the greeting (5.1 s) and than the caller's at-time
 * + the longest clip (5.3 s) + {@link SETTLE_MS}; 1 ms over a multiple of 20 and 13 over one of 32,
 * so the clips' onsets fall at every phase of both grids.
 */
const SLOT_MS = 7821;
const TARGET_PAUSE_P95_MS = 150;
const TARGET_CLEAR_SLACK_MS = 100;
const QUICK_CLIPS = 6;
/** Bounded waits: the VAD load (real time), and each utterance on the injected clock. */
const LOAD_POLLS = 4000;
const LOAD_POLL_MS = 5;
const UTTERANCE_LIMIT_MS = 20_000;
/** The defaults before the idle hold (Silero on every gate-open window out of a turn): the paired row. */
export const BEFORE_IDLE_HOLD: BargeInDetectorOptions = { idleModelHold: 0 };
/** The defaults before this pass (no early pause, span decided at window ends): the paired row. */
export const BEFORE: BargeInDetectorOptions = { earlyPauseMs: 0, spanByBlock: false };
/** The defaults before the span bridge (the next word waits for its first window scored ≥ 0.6): the paired row. */
export const BEFORE_BRIDGE: BargeInDetectorOptions = { spanBridgeMs: 0 };

export interface Outcome {
  clip: LoadedClip;
  pauseMs?: number;
  clearMs?: number;
}

export interface Run {
  outcomes: Outcome[];
  /** Every pause that resumed (falseInterruption), ms held. */
  falseHeld: number[];
  backend: string;
}

/** `phaseMs`: the slots start this much later (moves every onset on the frame and window grids). */
export async function runCalls(clips: LoadedClip[], options: BargeInDetectorOptions, phaseMs = 0): Promise<Run> {
  const h = await startHarness({ source: fixtureSource(), bargeIn: { ...options, vad: { onNotice: () => undefined } } });
  const outcomes: Outcome[] = [];
  const falseHeld: number[] = [];
  let backend = '';
  try {
    const { peer, call } = await h.dial();
    for (let i = 0; i < LOAD_POLLS && call.bargeInBackend === null; i++) await new Promise((r) => setTimeout(r, LOAD_POLL_MS));
    backend = call.bargeInBackend ?? 'not loaded';
    let pausedAt: number | null = null;
    call.on('bargeInPause', () => {
      pausedAt = h.clock.now();
    });
    call.on('falseInterruption', () => {
      if (pausedAt !== null) falseHeld.push(h.clock.now() - pausedAt);
      pausedAt = null;
    });
    // One microphone for the whole run: its clips are added as the run goes.
    const spoken: { at: number; mulaw: Uint8Array }[] = [];
    peer.startMicrophone({
      clips: spoken,
      until: h.clock.now() + (clips.length + 1) * SLOT_MS,
    });
    const base = h.clock.now() + phaseMs;
    for (const [i, c] of clips.entries()) {
      pausedAt = null;
      await h.runFor(Math.max(0, base + i * SLOT_MS - h.clock.now()));
      const t0 = h.clock.now();
      const onsetAt = t0 + CALLER_AT_MS + c.onset! / MS;
      const clearsBefore = peer.clears.length;
      spoken.push({ at: t0, mulaw: onLine(c) });
      let result: UtteranceResult | null = null;
      void call.speak(greeting.text).then((r) => {
        result = r;
      });
      await h.runUntil(() => result !== null, UTTERANCE_LIMIT_MS);
      const clear = peer.clears[clearsBefore];
      // The pause held when the clear went (set again by a later pause; cleared by a resume).
      const held: number | null = pausedAt;
      await h.runFor(Math.max(0, t0 + CALLER_AT_MS + c.mulaw.length / MS + SETTLE_MS - h.clock.now()));
      const o: Outcome = { clip: c };
      if (clear !== undefined) {
        o.clearMs = clear.at - onsetAt;
        if (held !== null) o.pauseMs = held - onsetAt;
      }
      outcomes.push(o);
    }
  } finally {
    await h.close();
  }
  return { outcomes, falseHeld, backend };
}

/** The slot's audio: the clip's lead noise looped for {@link CALLER_AT_MS}, the clip, the noise again to the slot's end. */
function onLine(c: LoadedClip): Uint8Array {
  const lead = c.mulaw.subarray(0, c.onset!);
  const out = new Uint8Array(SLOT_MS * MS);
  for (let i = 0; i < out.length; i++) out[i] = lead[i % lead.length]!;
  out.set(c.mulaw, CALLER_AT_MS * MS);
  return out;
}

export function figures(run: Run): { figures: BenchResult['figures']; pauseP95: number; clearP95: number } {
  const o = run.outcomes;
  const pauses = sortedCopy(o.flatMap((x) => (x.pauseMs === undefined ? [] : [x.pauseMs])));
  const clears = sortedCopy(o.flatMap((x) => (x.clearMs === undefined ? [] : [x.clearMs])));
  const groups: [string, (c: LoadedClip) => boolean][] = [
    ['tuning', (c) => !c.heldOut],
    ['held-out', (c) => c.heldOut === true],
    ...SNRS.map((s): [string, (c: LoadedClip) => boolean] => [`${s} dB`, (c) => c.snrDb === s]),
  ];
  const by = (key: 'pauseMs' | 'clearMs'): string =>
    groups.map(([, f]) => p50p95(o.filter((x) => f(x.clip) && x[key] !== undefined).map((x) => x[key]!))).join(' | ');
  const held = sortedCopy(run.falseHeld);
  return {
    pauseP95: percentile(pauses, 0.95),
    clearP95: percentile(clears, 0.95),
    figures: {
      'pause p50/p95 ms': p50p95(pauses),
      'pause max ms': round(pauses.at(-1) ?? NaN),
      'clear p50/p95 ms': p50p95(clears),
      'clear max ms': round(clears.at(-1) ?? NaN),
      'interrupted %': round((100 * clears.length) / Math.max(1, o.length), 1),
      [`pause p50/p95 ms ${groups.map(([g]) => g).join(' | ')}`]: by('pauseMs'),
      [`clear p50/p95 ms ${groups.map(([g]) => g).join(' | ')}`]: by('clearMs'),
      'false pauses: count / held p50 / max ms': `${held.length}/${round(percentile(held, 0.5))}/${round(held.at(-1) ?? 0)}`,
    },
  };
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  let clips = loadCorpus().filter((c) => c.kind === 'speech' && SNRS.includes(c.snrDb!) && (c.offset! - c.onset!) / MS >= MIN_UTTERANCE_MS);
  if (opts.quick) clips = clips.slice(0, QUICK_CLIPS);
  const now = await runCalls(clips, {});
  const noIdleHold = await runCalls(clips, BEFORE_IDLE_HOLD);
  const noBridge = await runCalls(clips, BEFORE_BRIDGE);
  const before = await runCalls(clips, BEFORE);
  const clearTarget = DEFAULT_MIN_INTERRUPTION_MS + TARGET_CLEAR_SLACK_MS;
  const scenario =
    `barge-in through a call (Twilio peer on loopback, injected clock, microphone without breaks) / ` +
    `${clips.length} utterances ≥ ${MIN_UTTERANCE_MS} ms at ${SNRS.join(' and ')} dB, all voices`;
  const f = figures(now);
  const b = figures(before);
  const nb = figures(noBridge);
  const nh = figures(noIdleHold);
  const notes = `VAD backend ${now.backend}; the clock is injected: detection-path latency (20 ms frames, 32 ms windows), not scheduling`;
  return [
    {
      scenario: `${scenario} / onset → media paused, onset → clear received by the phone (defaults)`,
      figures: f.figures,
      target:
        `pause p95 ≤ ${TARGET_PAUSE_P95_MS} ms; ` +
        `clear p95 ≤ minInterruptionMs (${DEFAULT_MIN_INTERRUPTION_MS}) + ${TARGET_CLEAR_SLACK_MS} ms (all voices)`,
      ...(opts.quick ? {} : { met: f.pauseP95 <= TARGET_PAUSE_P95_MS && f.clearP95 <= clearTarget }),
      command: COMMAND,
      notes,
    },
    {
      scenario: `${scenario} / the same without the idle hold (idleModelHold 0: Silero on every gate-open window out of a turn), same run`,
      figures: nh.figures,
      target: '(the first row, measured the same way, for comparison)',
      command: COMMAND,
      notes,
    },
    {
      scenario: `${scenario} / the same without the span bridge (spanBridgeMs 0: the next word waits for a window), same run`,
      figures: nb.figures,
      target: '(the first row, measured the same way, for comparison)',
      command: COMMAND,
      notes,
    },
    {
      scenario: `${scenario} / the same, no early pause and the span decided at window ends (the defaults before), same run`,
      figures: b.figures,
      target: '(the row above, measured the same way, for comparison)',
      command: COMMAND,
      notes,
    },
  ];
}
