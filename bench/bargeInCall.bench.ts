/**
 * Barge-in by voice through a whole call: the bridge (`attachTwilioMediaStream` with `bargeIn`)
 * on a real WebSocket on loopback, the Twilio-like test peer playing the bot's greeting in real
 * time on an injected clock, and the peer's microphone sending each corpus utterance ≥ 300 ms
 * (test/fixtures/vad, 20 and 10 dB SNR, tuning and held-out voices) as 20 ms media frames while
 * the bot speaks. Figures, from the labelled speech onset (clock time at the peer):
 * - paused: the bridge stopped sending new media (`bargeInPause`), p50 / p95;
 * - clear sent: the peer received `clear`, p50 / p95; and how many utterances interrupted.
 * The clock is injected (ManualClock), so the figure is the detection path's own latency (20 ms
 * media frames, 32 ms VAD windows, the echo gate, the policy), not this machine's scheduling:
 * the CPU side is the telephony bench's (lateness with barge-in ON).
 *
 *   npm run bench -- bargeInCall
 */
import { DEFAULT_MIN_INTERRUPTION_MS } from '../src/telephony/bargeIn/index.js';
import type { UtteranceResult } from '../src/telephony/Utterance.js';
import { CORPUS_RATE, loadCorpus } from '../test/fixtures/vad/corpus.js';
import { fixtureSource, greeting } from '../test/telephony/helpers/fixtureSource.js';
import { startHarness } from '../test/telephony/helpers/harness.js';
import { percentile, round, sortedCopy } from './lib/stats.js';
import type { BenchOptions, BenchResult } from './types.js';

const COMMAND = 'npm run bench -- bargeInCall';
/** Utterances this long or longer must interrupt (issue 22). */
const MIN_UTTERANCE_MS = 300;
const SNRS = [20, 10];
const MS = CORPUS_RATE / 1000;
/** The caller's clip starts this long after the bot's first frame (the bot is well into speaking). */
const CALLER_AT_MS = 500;
/** After each utterance: the caller's turn ends (800 ms of silence) before the next one. */
const SETTLE_MS = 1500;
const TARGET_PAUSE_P95_MS = 150;
const TARGET_CLEAR_SLACK_MS = 100;
const QUICK_CLIPS = 6;
/** Bounded waits: the VAD load (real time), and each utterance on the injected clock. */
const LOAD_POLLS = 4000;
const LOAD_POLL_MS = 5;
const UTTERANCE_LIMIT_MS = 20_000;

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  let clips = loadCorpus().filter((c) => c.kind === 'speech' && SNRS.includes(c.snrDb!) && (c.offset! - c.onset!) / MS >= MIN_UTTERANCE_MS);
  if (opts.quick) clips = clips.slice(0, QUICK_CLIPS);
  const h = await startHarness({ source: fixtureSource(), bargeIn: { vad: { onNotice: () => undefined } } });
  const pauses: number[] = [];
  const clears: number[] = [];
  let interrupted = 0;
  let backend = '';
  try {
    const { peer, call } = await h.dial();
    for (let i = 0; i < LOAD_POLLS && call.bargeInBackend === null; i++) await new Promise((r) => setTimeout(r, LOAD_POLL_MS));
    backend = call.bargeInBackend ?? 'not loaded';
    let pausedAt: number | null = null;
    call.on('bargeInPause', () => {
      pausedAt ??= h.clock.now();
    });
    for (const c of clips) {
      pausedAt = null;
      const t0 = h.clock.now();
      const onsetAt = t0 + CALLER_AT_MS + c.onset! / MS;
      const clearsBefore = peer.clears.length;
      peer.startMicrophone({
        clips: [{ at: t0 + CALLER_AT_MS, mulaw: c.mulaw }],
        until: t0 + CALLER_AT_MS + c.mulaw.length / MS + SETTLE_MS,
      });
      let result: UtteranceResult | null = null;
      void call.speak(greeting.text).then((r) => {
        result = r;
      });
      await h.runUntil(() => result !== null, UTTERANCE_LIMIT_MS);
      await h.runFor(SETTLE_MS + c.mulaw.length / MS);
      if (pausedAt !== null) pauses.push(pausedAt - onsetAt);
      const clear = peer.clears[clearsBefore];
      if (clear !== undefined) {
        clears.push(clear.at - onsetAt);
        interrupted++;
      }
    }
  } finally {
    await h.close();
  }
  const p = sortedCopy(pauses);
  const q = sortedCopy(clears);
  const clearTarget = DEFAULT_MIN_INTERRUPTION_MS + TARGET_CLEAR_SLACK_MS;
  const quickOr = (met: boolean): { met?: boolean } => (opts.quick ? {} : { met });
  const scenario =
    `barge-in through a call (Twilio peer on loopback, injected clock) / ` +
    `${clips.length} utterances ≥ ${MIN_UTTERANCE_MS} ms at ${SNRS.join(' and ')} dB`;
  return [
    {
      scenario: `${scenario} / onset → media paused`,
      figures: {
        'p50 ms': round(percentile(p, 0.5)),
        'p95 ms': round(percentile(p, 0.95)),
        'max ms': round(p.at(-1) ?? NaN),
        'paused %': round((100 * pauses.length) / Math.max(1, clips.length), 1),
      },
      target: `p95 ≤ ${TARGET_PAUSE_P95_MS} ms`,
      ...quickOr(percentile(p, 0.95) <= TARGET_PAUSE_P95_MS),
      command: COMMAND,
      notes: `VAD backend ${backend}`,
    },
    {
      scenario: `${scenario} / onset → clear received by the phone`,
      figures: {
        'p50 ms': round(percentile(q, 0.5)),
        'p95 ms': round(percentile(q, 0.95)),
        'max ms': round(q.at(-1) ?? NaN),
        'interrupted %': round((100 * interrupted) / Math.max(1, clips.length), 1),
      },
      target: `p95 ≤ minInterruptionMs (${DEFAULT_MIN_INTERRUPTION_MS}) + ${TARGET_CLEAR_SLACK_MS} ms`,
      ...quickOr(percentile(q, 0.95) <= clearTarget),
      command: COMMAND,
      notes: `VAD backend ${backend}; the clock is injected: detection-path latency, not scheduling`,
    },
  ];
}
