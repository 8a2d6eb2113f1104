/**
 * Where the detector's Silero windows go (issue 22: ≤ 1.5 ms per call-second; three quarters of
 * the detector is Silero). Not a `*.bench.ts` module: a probe for native-notes/vad.md, "Silero
 * inside a turn". Load-independent: it counts windows, it does not time them.
 *
 *   node --import tsx bench/sileroWindowProbe.ts
 *
 * One `createBargeInDetector()` (defaults, or the options in `--options '{…}'`) on the three
 * mixes of bench/detectorCostProbe.ts (noisy, quiet, the telephony bench's caller track), the bot
 * speaking half of the time (4 s on, 4 s off). Each window that ran Silero is put in one class by
 * the policy's state when the detector was asked (`wake`): an onset or pause being decided, a
 * decided turn, or out of a turn (bot speaking or silent), and there whether the window itself
 * holds a WebRTC-voiced frame or only the gate's hangover does; re-warm windows (replayed into a
 * fresh network when the gate opens) apart.
 */
import { createBargeInDetector, type BargeInDetectorOptions } from '../src/telephony/bargeIn/createBargeInDetector.js';
import { callMix } from './vad.bench.js';
import { benchBotLine, benchCallerTrack } from './lib/probeAudio.js';
import { arg } from './lib/probeArgs.js';

const RATE = 8000;
const FRAME = 160;
const MIX_SECONDS = 60;
const BOT_TURN_SAMPLES = 4 * RATE;

/** The detector's internals this probe reads (not public API). */
interface Internals {
  wake(start: number, window: Int16Array): boolean | 'hold';
  policy: { deciding: boolean; inTurn: boolean; isPaused: boolean };
  vad: { scorer: { stats: { windows: number; modelWindows: number }; voiced(from: number, to: number): boolean } };
}

export async function account(options: BargeInDetectorOptions, mix: Uint8Array, botAlways = false): Promise<Record<string, number>> {
  const detector = await createBargeInDetector({ ...options, vad: { onNotice: () => undefined } });
  const d = detector as unknown as Internals;
  const scorer = d.vad.scorer;
  const counts: Record<string, number> = {};
  let botSpeaking = false;
  let last: string | null = null;
  let lastAnswer: boolean | 'hold' = false;
  let mark = 0;
  const settle = (): void => {
    const n = scorer.stats.modelWindows - mark;
    if (lastAnswer === 'hold' && n === 0)
      counts['(held: skipped by idleModelHold)'] = (counts['(held: skipped by idleModelHold)'] ?? 0) + 1;
    if (last !== null && n > 0) {
      counts[last] = (counts[last] ?? 0) + 1;
      if (n > 1) counts['re-warm'] = (counts['re-warm'] ?? 0) + n - 1;
    }
    mark = scorer.stats.modelWindows;
  };
  const wake = d.wake.bind(d) as (start: number, window: Int16Array) => boolean | 'hold';
  d.wake = (start: number, window: Int16Array): boolean | 'hold' => {
    settle();
    const p = d.policy;
    const own = scorer.voiced(start, start + window.length);
    const answer = wake(start, window);
    lastAnswer = answer;
    last = p.deciding
      ? p.inTurn
        ? 'turn, deciding (paused)'
        : 'candidate'
      : p.inTurn
        ? 'turn, decided'
        : `idle, bot ${botSpeaking ? 'speaking' : 'silent'}, ${own ? 'voiced' : 'hangover only'}`;
    return answer;
  };
  const bot = benchBotLine(mix.length);
  for (let i = 0; i < mix.length; i += FRAME) {
    const speaking = botAlways || Math.floor(i / BOT_TURN_SAMPLES) % 2 === 0;
    if (i % BOT_TURN_SAMPLES === 0) {
      detector.setBotSpeaking(speaking);
      botSpeaking = speaking;
    }
    if (speaking) detector.notePlayed(bot.subarray(i, i + FRAME), (i * 1000) / RATE);
    detector.push(mix.subarray(i, i + FRAME));
  }
  settle();
  counts['windows'] = detector.stats.windows;
  counts['Silero windows'] = detector.stats.modelWindows;
  detector.close();
  return counts;
}

if (process.argv[1]?.endsWith('sileroWindowProbe.ts')) {
  const options = JSON.parse(arg('options') ?? '{}') as BargeInDetectorOptions;
  const mixes: [string, Uint8Array, boolean][] = [
    ['noisy mix', callMix(MIX_SECONDS, 'noisy'), false],
    ['quiet mix', callMix(MIX_SECONDS, 'quiet'), false],
    ["bench's caller track", benchCallerTrack(MIX_SECONDS * RATE), false],
    ["bench's caller track, bot always", benchCallerTrack(MIX_SECONDS * RATE), true],
  ];
  for (const [name, mix, always] of mixes) {
    const c = await account(options, mix, always);
    const w = c['windows']!;
    const m = c['Silero windows']!;
    process.stdout.write(`${name}: Silero on ${((100 * m) / w).toFixed(1)} % of ${w} windows\n`);
    for (const [k, v] of Object.entries(c).sort((a, b) => b[1] - a[1])) {
      if (k === 'windows' || k === 'Silero windows') continue;
      process.stdout.write(
        `  ${k.padEnd(40)} ${String(v).padStart(5)}  ${((100 * v) / m).toFixed(1).padStart(5)} % of Silero, ` +
          `${((100 * v) / w).toFixed(1).padStart(5)} % of windows\n`,
      );
    }
  }
}
