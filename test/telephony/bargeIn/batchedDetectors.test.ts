/**
 * Barge-in detectors whose Silero windows share runs (the detector thread's way: each call's push
 * waits on one `SileroBatch`, the batch runs the windows that are ready, the pushes go on) decide
 * exactly as each detector alone, scoring one window at a time: real corpus clips, real Silero.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createBargeInDetector,
  createSteppedBargeInDetector,
  type SteppedBargeInDetector,
} from '../../../src/telephony/bargeIn/createBargeInDetector.js';
import type { BargeInDecision } from '../../../src/telephony/bargeIn/types.js';
import { SileroBatch } from '../../../src/telephony/vad/silero.js';
import { clip, CORPUS_RATE, MIXED_CLIPS } from '../../fixtures/vad/corpus.js';

const FRAME = (20 * CORPUS_RATE) / 1000;
/** What the bot plays meanwhile (noted before the caller's frame, as the bridge does). */
const BOT = clip('echo-20-120ms.ul').referenceMulaw!;
const CLIPS = [...MIXED_CLIPS, 'echo-20-120ms.ul'];

/** One call: its clip in 20 ms frames, the bot speaking for its first `botFrames` frames. */
interface Call {
  file: string;
  botFrames: number;
}

function describeAll(ds: BargeInDecision[]): string[] {
  return ds.map((d) => JSON.stringify(d));
}

/** Frame `f` of a call, as the thread gets it: bot turn, played frame, caller frame. */
function feed(d: { setBotSpeaking(s: boolean): void; notePlayed(a: Uint8Array, atMs: number): void }, c: Call, f: number): Uint8Array {
  const audio = clip(c.file).mulaw;
  if (f === 0 || f === c.botFrames) d.setBotSpeaking(f < c.botFrames);
  if (f < c.botFrames)
    d.notePlayed(
      BOT.subarray((f * FRAME) % (BOT.length - FRAME), ((f * FRAME) % (BOT.length - FRAME)) + FRAME),
      (f * FRAME * 1000) / CORPUS_RATE,
    );
  return audio.subarray(f * FRAME, (f + 1) * FRAME);
}

async function alone(c: Call): Promise<string[]> {
  const d = await createBargeInDetector({ vad: { onNotice: () => undefined } });
  const out: BargeInDecision[] = [];
  const frames = Math.ceil(clip(c.file).mulaw.length / FRAME);
  for (let f = 0; f < frames; f++) {
    out.push(...d.push(feed(d, c, f)));
    if (out.at(-1)?.type === 'interrupt') d.setBotSpeaking(false);
  }
  out.push(...d.flush());
  d.close();
  return describeAll(out);
}

const reference = new Map<string, string[]>();
beforeAll(async () => {
  for (const file of CLIPS) for (const botFrames of [0, 1000]) reference.set(`${file}/${botFrames}`, await alone({ file, botFrames }));
});

describe('detectors sharing one Silero batch', () => {
  it('decide exactly as each alone, for any clips and any grouping of 20 ms frames into messages (property)', async () => {
    let shared = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ file: fc.constantFrom(...CLIPS), botFrames: fc.constantFrom(0, 1000) }), { minLength: 2, maxLength: 4 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 50 }),
        async (calls, sizes, picks) => {
          const batch = new SileroBatch();
          const ds: SteppedBargeInDetector[] = await Promise.all(
            calls.map(() => createSteppedBargeInDetector({ vad: { onNotice: () => undefined } }, batch)),
          );
          const outs: BargeInDecision[][] = calls.map(() => []);
          const next = calls.map(() => 0);
          const frames = calls.map((c) => Math.ceil(clip(c.file).mulaw.length / FRAME));
          // A message: `size` frames, each of a call the property picks (in that call's order).
          for (let m = 0; next.some((f, i) => f < frames[i]!); m++) {
            const size = sizes[m % sizes.length]!;
            const message: number[] = [];
            for (let k = 0; k < size; k++) {
              const live = calls.map((_, i) => i).filter((i) => next[i]! + message.filter((x) => x === i).length < frames[i]!);
              if (live.length === 0) break;
              message.push(live[picks[(m + k) % picks.length]! % live.length]!);
            }
            // The thread's loop: each call's frames in order, a push that waits on the batch holds
            // that call's later frames; the batch runs when every call waits or is done.
            const queues = calls.map((_, i) => message.filter((x) => x === i));
            const active: (Generator<void, void, void> | null)[] = calls.map(() => null);
            const start = (i: number): void => {
              while (active[i] === null && queues[i]!.length > 0) {
                queues[i]!.shift();
                const f = next[i]!++;
                const before = outs[i]!.length;
                const steps = ds[i]!.steps(feed(ds[i]!, calls[i]!, f), undefined, outs[i]!);
                if (steps.next().done !== true) {
                  active[i] = steps;
                  befores[i] = before;
                } else afterPush(i, before);
              }
            };
            const befores = calls.map(() => 0);
            const afterPush = (i: number, before: number): void => {
              if (outs[i]!.slice(before).some((d) => d.type === 'interrupt')) ds[i]!.setBotSpeaking(false);
            };
            for (let i = 0; i < calls.length; i++) start(i);
            while (active.some((a) => a !== null)) {
              batch.run();
              for (let i = 0; i < calls.length; i++) {
                if (active[i] === null) continue;
                if (active[i]!.next().done === true) {
                  active[i] = null;
                  afterPush(i, befores[i]!);
                  start(i);
                }
              }
            }
          }
          calls.forEach((c, i) => {
            outs[i]!.push(...ds[i]!.flush());
            ds[i]!.close();
            expect(describeAll(outs[i]!)).toEqual(reference.get(`${c.file}/${c.botFrames}`));
          });
          shared += batch.stats.rows - batch.stats.runs;
        },
      ),
      { numRuns: 12 },
    );
    // Windows of different calls did share runs, and the corpus clips do decide something (the comparison is not of empty lists).
    expect(shared).toBeGreaterThan(0);
    expect(reference.get('speech-en-us-male-u3-snr20.ul/1000')!.some((d) => d.includes('"interrupt"'))).toBe(true);
  });
});
