/**
 * createVad() on clips of the committed corpus (test/fixtures/vad), for each backend: real
 * espeak-ng speech over phone-band noise, real Silero (onnxruntime-node) and WebRTC (wasm).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createVad, type VadBackend, type VadEdgeEvent, type VadEvent, type VadOptions } from '../../../src/telephony/vad/index.js';
import { InvalidOptionError } from '../../../src/errors.js';
import { mulawDecode } from '../../../src/dsp/mulaw.js';
import { Resampler, loadResampler } from '../../../src/dsp/Resampler.js';
import { clip, CORPUS_RATE, loadCorpus } from '../../fixtures/vad/corpus.js';

const MS = CORPUS_RATE / 1000;
/** speechStart must be decided within this long after the labelled onset. */
const ONSET_BOUND_MS = 300;
/** Silero's window at 8 kHz, in samples. */
const SILERO_WINDOW_8K = 256;
const SPEECH = ['speech-en-us-male-u3-snr20.ul', 'speech-en-gb-female-u4-snr10.ul', 'speech-espeak-en-us+f4-u3-snr5.ul'];
/** What each backend must not call speech (WebRTC fires on loud noise, tones and music: see native-notes/vad.md). */
const NON_SPEECH: Record<VadBackend, string[]> = {
  silero: ['silence.ul', 'white-25.ul', 'pink-25.ul', 'dtmf0.ul', 'dtmf1.ul', 'clicks0.ul'],
  gated: ['silence.ul', 'white-25.ul', 'pink-25.ul', 'dtmf0.ul', 'dtmf1.ul', 'clicks0.ul'],
  webrtc: ['silence.ul', 'white-40.ul', 'pink-40.ul', 'clicks0.ul', 'clicks1.ul'],
};

async function events(options: VadOptions, input: Uint8Array | Int16Array): Promise<VadEvent[]> {
  const vad = await createVad({ onNotice: () => undefined, ...options });
  const out = [...vad.push(input), ...vad.flush()];
  vad.close();
  return out;
}

const edges = (es: VadEvent[]): VadEdgeEvent[] => es.filter((e): e is VadEdgeEvent => e.type !== 'probability');

describe.each(['silero', 'webrtc', 'gated'] as const)('createVad backend %s', (backend) => {
  it.each(SPEECH)('detects the caller in %s within the bound of the labelled onset', async (file) => {
    const c = clip(file);
    const starts = edges(await events({ backend }, c.mulaw)).filter((e) => e.type === 'speechStart');
    const hit = starts.find((e) => e.detectedAt >= c.onset!);
    if (backend === 'webrtc' && c.snrDb! < 20) {
      // WebRTC cannot tell the caller from 10 and 5 dB noise: it is already "speaking" in the lead.
      expect(starts.length).toBeGreaterThan(0);
      return;
    }
    expect(hit).toBeDefined();
    expect(hit!.detectedAt - c.onset!).toBeLessThanOrEqual(ONSET_BOUND_MS * MS);
    expect(starts.every((e) => e.detectedAt >= c.onset!)).toBe(true);
  });

  it.each(NON_SPEECH[backend])('does not call %s speech', async (file) => {
    expect(edges(await events({ backend }, clip(file).mulaw))).toEqual([]);
  });

  it('uses the backend asked for when it loads', async () => {
    const vad = await createVad({ backend });
    expect(vad.backend).toBe(backend);
    vad.close();
  });
});

describe('createVad input forms', () => {
  it('μ-law bytes and the same audio as L16 8 kHz give identical events and probabilities', async () => {
    const c = clip('speech-en-gb-u3-snr10.ul');
    for (const backend of ['silero', 'webrtc', 'gated'] as const) {
      const fromMulaw = await events({ backend, probabilities: true }, c.mulaw);
      const fromL16 = await events({ backend, probabilities: true }, mulawDecode(c.mulaw));
      expect(fromL16).toEqual(fromMulaw);
      expect(fromMulaw.some((e) => e.type === 'speechStart')).toBe(true);
    }
  });

  it('L16 at 16 kHz is scored at 16 kHz with times in 16 kHz samples', async () => {
    const c = clip('speech-en-us-female-u3-snr20.ul');
    await loadResampler();
    const r = new Resampler(1, 8000, 16000);
    const parts: Float32Array[] = [];
    const keep = (o: Float32Array): void => void parts.push(o.slice());
    r.process(
      Float32Array.from(mulawDecode(c.mulaw), (s) => s / 32768),
      keep,
    );
    r.flush(keep);
    r.free();
    const pcm16 = Int16Array.from(
      parts.flatMap((p) => Array.from(p)),
      (x) => Math.max(-32768, Math.min(32767, Math.round(x * 32768))),
    );
    for (const backend of ['silero', 'webrtc', 'gated'] as const) {
      const out = await events({ backend, sampleRate: 16000, probabilities: true }, pcm16);
      const start = edges(out).find((e) => e.type === 'speechStart');
      expect(start).toBeDefined();
      expect(start!.detectedAt - 2 * c.onset!).toBeGreaterThanOrEqual(0);
      expect(start!.detectedAt - 2 * c.onset!).toBeLessThanOrEqual(2 * ONSET_BOUND_MS * MS);
      const window = out.find((e) => e.type === 'probability');
      expect(window && window.type === 'probability' && window.samples).toBe(backend === 'webrtc' ? 160 : 512);
    }
  });

  it('rejects μ-law bytes on a 16 kHz detector with a typed error naming the input', async () => {
    const vad = await createVad({ backend: 'webrtc', sampleRate: 16000 });
    expect(() => vad.push(new Uint8Array(160))).toThrow(InvalidOptionError);
    vad.close();
  });

  it('rejects bad options with typed errors naming the option', async () => {
    const bad: [VadOptions, string][] = [
      [{ sampleRate: 44100 as 8000 }, 'sampleRate'],
      [{ backend: 'vosk' as VadBackend }, 'backend'],
      [{ webrtcMode: 7 as 3 }, 'webrtcMode'],
      [{ startThreshold: 1.5 }, 'startThreshold'],
      [{ startThreshold: 0.3, stopThreshold: 0.6 }, 'stopThreshold'],
      [{ minSilenceMs: -1 }, 'minSilenceMs'],
      [{ minLevelDbfs: 3 }, 'minLevelDbfs'],
    ];
    for (const [options, field] of bad) {
      await expect(createVad({ backend: 'webrtc', ...options })).rejects.toMatchObject({ code: 'INVALID_OPTION', field });
    }
  });
});

describe('createVad lifecycle', () => {
  it('reset() starts a new stream: the same audio gives the same events again', async () => {
    const c = clip('speech-en-scotland-u2-snr10.ul');
    const vad = await createVad({ backend: 'gated' });
    const first = [...vad.push(c.mulaw.subarray(0, 5000)), ...vad.push(c.mulaw.subarray(5000)), ...vad.flush()];
    vad.reset();
    const second = [...vad.push(c.mulaw), ...vad.flush()];
    expect(second).toEqual(first);
    expect(first.length).toBeGreaterThan(0);
    vad.close();
  });

  it('after close() pushes return no events and close() may be called twice', async () => {
    const vad = await createVad({ backend: 'silero' });
    vad.close();
    vad.close();
    expect(vad.push(clip('speech-en-gb-u3-snr20.ul').mulaw)).toEqual([]);
    expect(vad.flush()).toEqual([]);
  });

  it('the gate runs Silero on fewer windows than there are (it sleeps through silence)', async () => {
    const vad = await createVad({ backend: 'gated' });
    vad.push(clip('silence.ul').mulaw);
    vad.push(clip('speech-en-gb-u3-snr20.ul').mulaw);
    const { windows, modelWindows } = vad.stats;
    expect(modelWindows).toBeGreaterThan(0);
    expect(modelWindows).toBeLessThan(windows * 0.8);
    vad.close();
  });

  it('modelWake is asked for every window in order and keeps Silero asleep where it answers false', async () => {
    const asked: number[] = [];
    const c = clip('speech-en-gb-u3-snr20.ul');
    // Silero may run only on the first half of the clip.
    const half = Math.floor(c.mulaw.length / 2);
    const vad = await createVad({ backend: 'gated', probabilities: true, modelWake: (start) => (asked.push(start), start < half) });
    const events = vad.push(c.mulaw);
    const windows = Math.floor(c.mulaw.length / SILERO_WINDOW_8K);
    expect(asked).toEqual(Array.from({ length: windows }, (_, k) => k * SILERO_WINDOW_8K));
    const probs = events.flatMap((e) => (e.type === 'probability' ? [e] : []));
    expect(probs.filter((e) => e.sample >= half).every((e) => e.probability === 0)).toBe(true);
    expect(probs.some((e) => e.sample < half && e.probability > 0.5)).toBe(true);
    vad.close();
  });

  it("modelWake 'hold' lets a running network skip a window: its state is kept (no re-warm) and the window scores the last probability", async () => {
    const c = clip('speech-en-gb-u3-snr20.ul');
    const run = async (at: number, answer: boolean | 'hold'): Promise<[number[], number]> => {
      const vad = await createVad({ backend: 'gated', probabilities: true, modelWake: (start) => (start === at ? answer : true) });
      const probs = vad.push(c.mulaw).flatMap((e) => (e.type === 'probability' ? [e.probability] : []));
      const { modelWindows } = vad.stats;
      vad.close();
      return [probs, modelWindows];
    };
    const [plain, plainModel] = await run(-1, true);
    // A window inside the speech, where the network is running (it scored the window before).
    const k = plain.findIndex((p, i) => i > 0 && plain[i - 1]! > 0.5 && p > 0.5);
    expect(k).toBeGreaterThan(0);
    const [held, heldModel] = await run(k * SILERO_WINDOW_8K, 'hold');
    expect(held.slice(0, k)).toEqual(plain.slice(0, k));
    expect(held[k]).toBe(plain[k - 1]);
    expect(heldModel).toBe(plainModel - 1);
    // false at the same window: the network sleeps there, and restarts warmed on the windows before the next.
    const [, sleptModel] = await run(k * SILERO_WINDOW_8K, false);
    expect(sleptModel).toBeGreaterThan(heldModel);
    // 'hold' where the network is not running (the first window the gate opens on) runs it.
    const first = plain.findIndex((p) => p > 0);
    const [opened] = await run(first * SILERO_WINDOW_8K, 'hold');
    expect(opened).toEqual(plain);
  });

  it('a level floor above the echo silences the bot’s returned speech but not the caller', async () => {
    const echo = clip('echo-25-200ms.ul').mulaw;
    expect(edges(await events({ backend: 'silero' }, echo)).length).toBeGreaterThan(0);
    expect(edges(await events({ backend: 'silero', minLevelDbfs: -30 }, echo))).toEqual([]);
    const caller = clip('speech-en-gb-u3-snr20.ul').mulaw;
    expect(edges(await events({ backend: 'silero', minLevelDbfs: -30 }, caller)).some((e) => e.type === 'speechStart')).toBe(true);
  });
});

describe('createVad fallback', () => {
  it.each(['silero', 'gated'] as const)(
    '%s falls back to WebRTC with one notice when the native runtime fails to load',
    async (backend) => {
      const notices: string[] = [];
      const vad = await createVad({
        backend,
        onNotice: (m) => notices.push(m),
        loadOnnxRuntime: () => Promise.reject(new Error("Cannot find module 'onnxruntime-node'\nRequire stack: …")),
      });
      expect(vad.backend).toBe('webrtc');
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatch(/Silero VAD unavailable \(Cannot find module 'onnxruntime-node'\); using the WebRTC VAD/);
      expect(notices[0]).not.toContain('\n');
      const c = clip('speech-en-us-male-u3-snr20.ul');
      expect([...vad.push(c.mulaw), ...vad.flush()].some((e) => e.type === 'speechStart')).toBe(true);
      vad.close();
    },
  );

  it('a loader that returns a broken module also falls back instead of throwing', async () => {
    const notices: string[] = [];
    const vad = await createVad({ backend: 'silero', onNotice: (m) => notices.push(m), loadOnnxRuntime: async () => ({}) as never });
    expect(vad.backend).toBe('webrtc');
    expect(notices).toHaveLength(1);
    vad.close();
  });
});

describe('createVad push splits', () => {
  const c = clip('speech-en-us-klatt-u2-snr10.ul');
  const whole = new Map<VadBackend, VadEvent[]>();

  it.each(['silero', 'webrtc', 'gated'] as const)('%s: any split of the samples into pushes gives the same events', async (backend) => {
    whole.set(backend, await events({ backend, probabilities: true }, c.mulaw));
    const vad = await createVad({ backend, probabilities: true });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: c.mulaw.length }), { maxLength: 12 }), async (cuts) => {
        vad.reset();
        const points = [0, ...cuts.sort((a, b) => a - b), c.mulaw.length];
        const out: VadEvent[] = [];
        for (let i = 1; i < points.length; i++) out.push(...vad.push(c.mulaw.subarray(points[i - 1], points[i])));
        out.push(...vad.flush());
        expect(out).toEqual(whole.get(backend));
      }),
      { numRuns: 25 },
    );
    vad.close();
  });
});

/**
 * The warm-up test reads each clip in pieces of this many samples (20 ms, a media frame) and stops
 * once both detectors have started speech: everything after an onset cannot change which window
 * started it (pushes of any size give the same events: "createVad push splits" above). Read whole,
 * the corpus (~260 s of audio) went through Silero twice, ~4 s of CPU on a quiet machine and past
 * the 30 s test timeout under a load of 10+; the onsets lie in each clip's first second.
 */
const WARM_UP_PIECE = 160;
/**
 * The warm-up test's time limit. Even read only to its onsets the corpus is ~1.5 s of Silero CPU
 * (~4000 windows at ~0.37 ms): with 8 test processes and other work on the 2 cores (load 10–13) it
 * took 18–36 s of wall time, past the default 30 s. The limit bounds a stuck test; it is not a
 * speed target (those live in bench/vad.bench.ts).
 */
const WARM_UP_TIMEOUT_MS = 120_000;

describe('createVad gate warm-up', { timeout: WARM_UP_TIMEOUT_MS }, () => {
  it(
    'on every corpus utterance the gated detector starts speech at most one window after Silero alone (reset and warmed at each opening)',
    async () => {
      const silero = await createVad({ backend: 'silero' });
      const gated = await createVad({ backend: 'gated' });
      const firstStart = (es: VadEvent[]): number | undefined => edges(es).find((e) => e.type === 'speechStart')?.detectedAt;
      /** Each detector's first speechStart on `mulaw`, as if the whole clip (then flush) had been pushed. */
      const starts = (mulaw: Uint8Array): [number | undefined, number | undefined] => {
        silero.reset();
        gated.reset();
        let [s, g]: [number | undefined, number | undefined] = [undefined, undefined];
        for (let at = 0; at < mulaw.length && (s === undefined || g === undefined); at += WARM_UP_PIECE) {
          const piece = mulaw.subarray(at, at + WARM_UP_PIECE);
          const [ps, pg] = [silero.push(piece), gated.push(piece)];
          s ??= firstStart(ps);
          g ??= firstStart(pg);
        }
        if (s === undefined) s = firstStart(silero.flush());
        if (g === undefined) g = firstStart(gated.flush());
        return [s, g];
      };
      const late: string[] = [];
      let compared = 0;
      for (const c of loadCorpus().filter((x) => x.kind === 'speech')) {
        const [s, g] = starts(c.mulaw);
        if (s === undefined) continue;
        compared++;
        if (g === undefined || g < s || g - s > SILERO_WINDOW_8K) late.push(`${c.file}: ${s} → ${g}`);
      }
      expect(late).toEqual([]);
      expect(compared).toBeGreaterThan(100); // Silero starts speech on nearly every utterance of the corpus
      silero.close();
      gated.close();
    },
    WARM_UP_TIMEOUT_MS,
  );
});
