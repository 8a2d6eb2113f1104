/**
 * The bridge thread's share of barge-in ON, alone: what `VoiceBargeIn` costs the thread that
 * paces the calls (each caller frame and each played frame written to the call's ring for the
 * detector thread, the doorbell, the decisions coming back), without the sockets, the encoding
 * and the pacing that OFF has too. Not a `*.bench.ts` module (bench/run.ts does not run it): a
 * probe for native-notes/vad.md, "What ON costs the pacing thread", to pair two trees under load
 * (the telephony step's own figure moves with the load by more than these cuts).
 *
 *   flock /tmp/bench.lock node --import tsx bench/bargeInPathProbe.ts --calls 50 --seconds 5 --rounds 3
 *
 * `--calls` calls in {@link GROUPS} groups, each group on its own real-time 20 ms schedule (the
 * groups {@link FRAME_MS} / {@link GROUPS} apart, so the doorbell goes about as often as in the
 * bench: a ring write in most ticks), every call getting one caller frame (the telephony bench's
 * caller track, each call at its own place) and one played frame (its bot speech) per 20 ms, the
 * bot always speaking, on the default detector thread. Each round measures, over `--seconds`, this
 * thread's CPU with the calls' `VoiceBargeIn` fed ("ON") and the same schedule with the frames cut
 * and dropped ("bare"), the order alternating; the line gives ON − bare in ms per call-second and
 * in µs per ring record, the doorbell posts a second and the decisions. One JSON line per round.
 * `--doorbell poll`: with the detector thread polling its rings (`configureDetectorThreads`).
 */
import { loadavg } from 'node:os';
import { configureDetectorThreads, detectorThreads, type DetectorDoorbell } from '../src/telephony/bargeIn/DetectorThreads.js';
import { MULAW_8K } from '../src/telephony/lineFormat.js';
import { VoiceBargeIn, type BargeInActions } from '../src/telephony/VoiceBargeIn.js';
import { threadCpuMs } from './lib/measure.js';
import { benchBotLine, benchCallerTrack } from './lib/probeAudio.js';

/** 20 ms media frames at 8 kHz. */
const FRAME = 160;
const FRAME_MS = 20;
/** Groups of calls on schedules {@link FRAME_MS} / GROUPS apart: the detector threads' 5 ms tick. */
const GROUPS = 4;
/** Seconds of each track (each call starts at its own place in it). */
const TRACK_SECONDS = 60;
const RATE = 8000;
/** The phone plays a frame this long after it is sent (the pacer's lead). */
const PLAY_LEAD_MS = 60;
/** Longest the detectors may take to load before the probe gives up. */
const LOAD_TIMEOUT_MS = 30_000;
/** More rounds than this would hold the bench lock for too long on a shared machine. */
const MAX_ROUNDS = 8;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const calls = arg('calls', 50);
const seconds = arg('seconds', 5);
const rounds = Math.min(MAX_ROUNDS, arg('rounds', 3));
const doorbellAt = process.argv.indexOf('--doorbell');
/** `--doorbell poll`: the detector thread looks at the rings on its own timer (the default: `message`). */
if (doorbellAt >= 0) configureDetectorThreads({ doorbell: process.argv[doorbellAt + 1] as DetectorDoorbell });
if (![calls, seconds, rounds].every((n) => Number.isInteger(n) && n >= 1)) throw new Error('usage: --calls N --seconds S --rounds K');

const caller = benchCallerTrack(TRACK_SECONDS * RATE);
const bot = benchBotLine(TRACK_SECONDS * RATE);
const frames = Math.floor(caller.length / FRAME);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let decisions = 0;
const actions: BargeInActions = {
  pause: () => decisions++,
  resume: () => decisions++,
  interrupt: () => decisions++,
  turnStarted: () => decisions++,
  turnEnded: () => decisions++,
  warning: (w) => {
    if (w.code !== 'BARGE_IN_BEHIND') process.stderr.write(`warning: ${w.message}\n`);
  },
};

const t0 = performance.now();
const voices = Array.from({ length: calls }, () => {
  const v = new VoiceBargeIn({}, MULAW_8K, actions, (d) => d.setBotSpeaking(true));
  v.setLine(MULAW_8K, performance.now());
  v.setBotSpeaking(true);
  return v;
});
while (voices.some((v) => v.backend === null)) {
  if (performance.now() - t0 > LOAD_TIMEOUT_MS) throw new Error('detectors did not load');
  await sleep(FRAME_MS);
}

/** Frames each call has had so far (its place in the tracks). */
const sent = new Array<number>(calls).fill(0);
const start = voices.map((_, k) => Math.floor((k * frames) / calls));
/** Sink for the bare run's frames (so the cut is not optimised away). */
let sink = 0;

/** Runs the schedule for `ms`; `feed` false: the frames are cut and dropped. Resolves with this thread's CPU. */
function run(ms: number, feed: boolean): Promise<number> {
  return new Promise((resolve) => {
    const begin = performance.now();
    const cpu0 = threadCpuMs();
    let live = GROUPS;
    for (let g = 0; g < GROUPS; g++) {
      let due = begin + (g * FRAME_MS) / GROUPS;
      const tick = (): void => {
        const now = performance.now();
        for (let k = g; k < calls; k += GROUPS) {
          const at = ((start[k]! + sent[k]!) % frames) * FRAME;
          sent[k]!++;
          const inbound = Buffer.from(caller.buffer, caller.byteOffset + at, FRAME);
          const played = Buffer.from(bot.buffer, bot.byteOffset + at, FRAME);
          if (feed) {
            voices[k]!.inbound(inbound, now);
            voices[k]!.played(played, now + PLAY_LEAD_MS);
          } else sink += inbound[0]! + played[0]!;
        }
        due += FRAME_MS;
        if (due - begin >= ms) {
          if (--live === 0) resolve(threadCpuMs() - cpu0);
          return;
        }
        setTimeout(tick, Math.max(0, due - performance.now()));
      };
      setTimeout(tick, Math.max(0, due - performance.now()));
    }
  });
}

await run(1000, true); // warm: the JIT, the detectors
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? [true, false] : [false, true];
  const cpu: Record<string, number> = {};
  let posts = 0;
  let decided = 0;
  for (const feed of order) {
    const p0 = detectorThreads.posts;
    const d0 = decisions;
    cpu[feed ? 'on' : 'bare'] = await run(seconds * 1000, feed);
    if (feed) {
      posts = detectorThreads.posts - p0;
      decided = decisions - d0;
    }
  }
  const callSeconds = calls * seconds;
  const records = 2 * callSeconds * (1000 / FRAME_MS);
  const extra = cpu['on']! - cpu['bare']!;
  process.stdout.write(
    JSON.stringify({
      round,
      calls,
      onMsPerCallS: +(cpu['on']! / callSeconds).toFixed(3),
      bareMsPerCallS: +(cpu['bare']! / callSeconds).toFixed(3),
      extraMsPerCallS: +(extra / callSeconds).toFixed(3),
      usPerRecord: +((extra * 1000) / records).toFixed(3),
      postsPerS: Math.round(posts / seconds),
      decisions: decided,
      dropped: voices.reduce((a, v) => a + v.droppedSamples + v.droppedPlayedSamples, 0),
      load1: +loadavg()[0]!.toFixed(2),
    }) + '\n',
  );
}
for (const v of voices) v.close();
if (sink < 0) process.stdout.write('');
process.exit(0);
