/**
 * The stream's shape in time: audio leaves while synthesis runs, and `--pace realtime` holds
 * events to real time (virtual clock: no sleeping).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { validateTtsRequest } from '../../src/protocol/ttsRequest.js';
import { startLocalService, type LocalService, type ServiceClock } from '../../src/service/index.js';
import type { SynthJob, SynthPiece } from '../../src/service/speech/SpeechEngine.js';
import { buildSpeechPlan } from '../../src/service/speech/SpeechPlan.js';
import { DictionaryStore } from '../../src/service/speech/dictionaries.js';
import { VOICES } from '../../src/service/speech/voices.js';
import { synthesizeSpeech, type SynthesisEvent } from '../../src/service/stream/synthesizeSpeech.js';
import { postTts } from './helpers.js';

const PIECE = 2206;
function tone(n: number): Int16Array {
  const s = new Int16Array(n);
  for (let i = 0; i < n; i++) s[i] = Math.round(8000 * Math.sin(i / 10));
  return s;
}

describe('streaming while synthesis runs', () => {
  it('the first event of a one-sentence text leaves before the sentence is fully synthesized', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const emitted: SynthesisEvent[] = [];
    let emittedBeforeDone = -1;
    const engine = {
      async synthesize(_job: SynthJob, onPiece: (p: SynthPiece) => void): Promise<void> {
        onPiece({
          samples: tone(PIECE),
          events: [
            ['word', 0, '', 8],
            ['phoneme', 10, 'h', 8],
          ],
        });
        onPiece({
          samples: tone(PIECE),
          events: [
            ['mark', 110, 'e0', 0],
            ['word', 110, '', 14],
            ['phoneme', 120, 'w', 14],
          ],
        });
        onPiece({ samples: tone(PIECE), events: [] });
        await gate;
        emittedBeforeDone = emitted.length;
        onPiece({ samples: tone(PIECE), events: [['mark', 350, 'e1', 0]] });
      },
    };
    const plan = await buildSpeechPlan(validateTtsRequest({ text: 'Hello world.', format: 'pcm', sample_rate: 22050 }), {
      voices: VOICES,
      dictionaries: new DictionaryStore(undefined),
    });
    const done = synthesizeSpeech(plan, engine, {
      emit: (e) => {
        emitted.push(e);
      },
    });
    // Synthesis is still blocked on the gate, yet audio goes out.
    await expect.poll(() => emitted.length).toBeGreaterThanOrEqual(1);
    expect(emitted[0]!.alignment).toBeNull();
    release();
    const summary = await done;
    expect(emittedBeforeDone).toBeGreaterThanOrEqual(1);
    expect(summary.durationSec).toBeCloseTo((4 * PIECE) / 22050, 6);
    const last = emitted[emitted.length - 1]!;
    expect(last.alignment!.segments.map((s) => s.text)).toEqual(['Hello', 'world']);
    expect(last.alignment!.audio_duration).toBeCloseTo((4 * PIECE) / 22050, 3);
  });
});

describe('pace', () => {
  let svc: LocalService | null = null;
  afterAll(async () => {
    await svc?.close();
  });

  /** Virtual time: it only moves when the service sleeps. */
  function virtualClock(): ServiceClock & { slept: number } {
    const c = {
      t: 0,
      slept: 0,
      now: () => c.t,
      sleep: async (ms: number) => {
        c.t += ms;
        c.slept += ms;
      },
    };
    return c;
  }

  it('realtime: events no faster than real time plus the lead; fast: no waiting at all', async () => {
    const clock = virtualClock();
    svc = await startLocalService({ pace: 'realtime', realtimeLeadSec: 0.3, clock });
    const r = await postTts(svc, { text: 'Pacing keeps the stream in step with the clock.', format: 'pcm', sample_rate: 8000 });
    const duration = r.audio.length / 2 / 8000;
    expect(clock.slept / 1000).toBeGreaterThan(duration - 0.3 - 0.15);
    expect(clock.slept / 1000).toBeLessThanOrEqual(duration);
    await svc.close();
    const fastClock = virtualClock();
    svc = await startLocalService({ clock: fastClock });
    await postTts(svc, { text: 'Fast.', format: 'pcm' });
    expect(fastClock.slept).toBe(0);
  });
});

describe('speech worker', () => {
  it('a worker that dies fails its job and is replaced', async () => {
    const { SpeechEngine } = await import('../../src/service/speech/SpeechEngine.js');
    const engine = new SpeechEngine();
    try {
      await engine.ready;
      const slots = (engine as unknown as { slots: { worker: { terminate(): Promise<number> } }[] }).slots;
      const job = { ssml: '<speak>Hello there.</speak>', voice: 'en-us', rate: 175, pitch: 50, range: 50 };
      const first = engine.synthesize(job, () => undefined);
      await slots[0]!.worker.terminate();
      await expect(first).rejects.toThrow(/exited/);
      let samples = 0;
      await engine.synthesize(job, (p) => {
        samples += p.samples.length;
      });
      expect(samples).toBeGreaterThan(10_000);
    } finally {
      await engine.close();
    }
  });
});
