/**
 * Paired decisions for a Silero-saving option (native-notes/vad.md, "Silero inside a turn"):
 * the defaults against the defaults plus `--options '{…}'`, on the injected timeline (no clock:
 * load-independent). Not a `*.bench.ts` module.
 *
 *   node --import tsx bench/turnEdgesProbe.ts --options '{"idleModelHold":3}'
 *
 * - the corpus (bench/bargeIn.bench.ts's `evaluate`): interrupt rates, pause / interrupt p50/p95,
 *   non-speech / echo, coughs, "mm-hm"s, bursts, double talk, split turns (bot speaking);
 * - turn edges with the bot silent, every speech clip: turns per clip (split = more than one),
 *   callerSpeechStarted − labelled onset and callerSpeechEnded's sample − labelled offset, p5/p50/p95;
 * - the mixes (noisy, quiet, the telephony bench's caller track; the bot half of the time): every
 *   decision of both runs compared, and the turns, pauses and interrupts of each;
 * - with `--call`: bench/bargeInCall.bench.ts's calls (the bridge, the Twilio-like peer, the
 *   injected clock), both configurations, their figures.
 */
import { createBargeInDetector, type BargeInDecision, type BargeInDetectorOptions } from '../src/telephony/bargeIn/index.js';
import { loadCorpus } from '../test/fixtures/vad/corpus.js';
import { evaluate, MIN_INTERRUPT_UTTERANCE_MS } from './bargeIn.bench.js';
import { figures, runCalls } from './bargeInCall.bench.js';
import { callMix } from './vad.bench.js';
import { benchBotLine, benchCallerTrack } from './lib/probeAudio.js';
import { percentile, sortedCopy } from './lib/stats.js';
import { arg } from './lib/probeArgs.js';

const RATE = 8000;
const FRAME = 160;
const MS = RATE / 1000;
const MIX_SECONDS = 60;
const BOT_TURN_SAMPLES = 4 * RATE;

const quiet = { vad: { onNotice: (): void => undefined } };

async function turnEdges(options: BargeInDetectorOptions): Promise<string> {
  const detector = await createBargeInDetector({ ...options, ...quiet });
  const starts: number[] = [];
  const ends: number[] = [];
  let split = 0;
  let missed = 0;
  let clips = 0;
  for (const c of loadCorpus()) {
    if (c.kind !== 'speech') continue;
    clips++;
    detector.reset();
    detector.setBotSpeaking(false);
    const d: BargeInDecision[] = [];
    for (let i = 0; i < c.mulaw.length; i += FRAME) d.push(...detector.push(c.mulaw.subarray(i, i + FRAME)));
    d.push(...detector.flush());
    const s = d.filter((x) => x.type === 'callerSpeechStarted');
    const e = d.filter((x) => x.type === 'callerSpeechEnded');
    if (s.length === 0) {
      missed++;
      continue;
    }
    if (s.length > 1) split++;
    starts.push(((s[0] as { sample: number }).sample - c.onset!) / MS);
    ends.push(((e.at(-1) as { sample: number }).sample - c.offset!) / MS);
  }
  detector.close();
  const q = (xs: number[]): string => {
    const s = sortedCopy(xs);
    return [0.05, 0.5, 0.95].map((p) => Math.round(percentile(s, p))).join('/');
  };
  return (
    `${clips} speech clips, bot silent: no turn ${missed}, split ${split}; ` +
    `start − onset p5/p50/p95 ${q(starts)} ms; end − offset ${q(ends)} ms`
  );
}

async function mixDecisions(options: BargeInDetectorOptions, mix: Uint8Array): Promise<string[]> {
  const detector = await createBargeInDetector({ ...options, ...quiet });
  const bot = benchBotLine(mix.length);
  const out: string[] = [];
  for (let i = 0; i < mix.length; i += FRAME) {
    const speaking = Math.floor(i / BOT_TURN_SAMPLES) % 2 === 0;
    if (i % BOT_TURN_SAMPLES === 0) detector.setBotSpeaking(speaking);
    if (speaking) detector.notePlayed(bot.subarray(i, i + FRAME), i / MS);
    for (const d of detector.push(mix.subarray(i, i + FRAME))) if (d.type !== 'callerTurn') out.push(`${d.type}@${d.detectedAt}`);
  }
  detector.close();
  return out;
}

const options = JSON.parse(arg('options') ?? '{}') as BargeInDetectorOptions;
if (process.argv.includes('--call')) {
  const clips = loadCorpus().filter(
    (c) => c.kind === 'speech' && (c.snrDb === 20 || c.snrDb === 10) && (c.offset! - c.onset!) / MS >= MIN_INTERRUPT_UTTERANCE_MS,
  );
  for (const [name, o] of [
    ['defaults', {}],
    [JSON.stringify(options), options],
  ] as const) {
    process.stdout.write(`call, ${name}: ${JSON.stringify(figures(await runCalls(clips, o)).figures)}\n`);
  }
}
for (const [name, o] of [
  ['defaults', {}],
  [JSON.stringify(options), options],
] as const) {
  const e = await evaluate(o);
  const line = [
    `interrupt 20/10/5 ${e.interrupt['20dB']}/${e.interrupt['10dB']}/${e.interrupt['5dB']}`,
    `held-out ${Object.values(e.heldOut).join('/')}`,
    `double talk ${e.doubleTalk}/${e.doubleTalkHeldOut}`,
    `non-speech int/pause ${e.nonSpeechInterrupt}/${e.nonSpeechPause}`,
    `echo ${e.echoInterrupt}/${e.echoPause}`,
    `pause p50/p95 ${e.pauseP50}/${e.pauseP95}`,
    `interrupt p50/p95 ${e.interruptP50}/${e.interruptP95}`,
    `cough ${e.coughPause}/${e.coughInterrupt}`,
    `mm-hm ${e.humPause}/${e.humInterrupt}`,
    `bursts ${Object.values(e.burstInterrupt).join('/')}`,
    `false pauses ${JSON.stringify(e.falsePauses)}`,
    `split turns ${e.splitTurns} %`,
    `early ${e.early} %`,
  ];
  process.stdout.write(`${name}: ${line.join('; ')}\n`);
  process.stdout.write(`  ${await turnEdges(o)}\n`);
}
for (const [name, mix] of [
  ['noisy mix', callMix(MIX_SECONDS, 'noisy')],
  ['quiet mix', callMix(MIX_SECONDS, 'quiet')],
  ["bench's caller track", benchCallerTrack(MIX_SECONDS * RATE)],
] as const) {
  const a = await mixDecisions({}, mix);
  const b = await mixDecisions(options, mix);
  const count = (xs: string[], t: string): number => xs.filter((x) => x.startsWith(`${t}@`)).length;
  const diff = a.filter((x) => !b.includes(x)).length + b.filter((x) => !a.includes(x)).length;
  process.stdout.write(
    `${name}: ${a.length} / ${b.length} decisions, ${diff} not in both; ` +
      `turns ${count(a, 'callerSpeechStarted')} / ${count(b, 'callerSpeechStarted')}, ` +
      `pauses ${count(a, 'pause')} / ${count(b, 'pause')}, interrupts ${count(a, 'interrupt')} / ${count(b, 'interrupt')}\n`,
  );
  if (diff > 0)
    process.stdout.write(
      `  only defaults: ${a.filter((x) => !b.includes(x)).join(' ')}\n  only option: ${b.filter((x) => !a.includes(x)).join(' ')}\n`,
    );
}
