/**
 * The speech engine's schedule under concurrency, with real espeak workers: fair order of units
 * (recorded through the dispatch observer), cancellation, and streams that stay complete and
 * identical to a lone request's while others run beside them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { AbortError } from '../../src/errors.js';
import { validateTtsRequest } from '../../src/protocol/ttsRequest.js';
import { startLocalService } from '../../src/service/index.js';
import { SpeechEngine, type DispatchedUnit } from '../../src/service/speech/SpeechEngine.js';
import { buildSpeechPlan, type SpeechPlan } from '../../src/service/speech/SpeechPlan.js';
import { DictionaryStore } from '../../src/service/speech/dictionaries.js';
import { VOICES } from '../../src/service/speech/voices.js';
import type { SchedulerKind } from '../../src/service/speech/UnitQueue.js';
import { synthesizeSpeech, type SynthesisSummary } from '../../src/service/stream/synthesizeSpeech.js';
import { decodeWithEngine } from './engineDecode.js';
import { finalTimeline, postTts, wordsOf } from './helpers.js';

/** Four text chunks with `latency: low` and no merging: a clause, its sentence's rest, two sentences. */
const TEXT = 'When the river rose, the village gathered on the bridge. Nobody spoke much that day. The children counted the marks.';
const CHUNKS = 4;

async function planOf(extra: object = {}): Promise<SpeechPlan> {
  return buildSpeechPlan(
    validateTtsRequest({ text: TEXT, latency: 'low', min_chunk_length: 0, format: 'pcm', sample_rate: 22050, ...extra }),
    { voices: VOICES, dictionaries: new DictionaryStore(undefined) },
  );
}

/**
 * Requests that arrive one after another: request k + 1 starts the moment request k's first chunk
 * goes to the (single) worker, so later requests' first chunks queue up behind, or beside, the
 * earlier requests' second chunks. Returns the dispatch order.
 */
async function staggered(scheduler: SchedulerKind, n: number): Promise<DispatchedUnit[]> {
  const plan = await planOf();
  expect(plan.chunks).toHaveLength(CHUNKS);
  const order: DispatchedUnit[] = [];
  const runs: Promise<SynthesisSummary>[] = [];
  const start = (): void => {
    const id = `r${runs.length}`;
    runs.push(synthesizeSpeech(plan, engine, { emit: () => undefined, requestId: id }));
  };
  const engine: SpeechEngine = new SpeechEngine({
    workers: 1,
    scheduler,
    onDispatch: (unit) => {
      order.push(unit);
      if (unit.seq === 0 && runs.length < n) start();
    },
  });
  try {
    await engine.ready;
    start();
    // Every request is started from the observer, so wait until the last one exists.
    while (runs.length < n || order.length < n * CHUNKS) await Promise.all(runs);
    const summaries = await Promise.all(runs);
    for (const s of summaries) expect(s.chunks).toBe(CHUNKS);
  } finally {
    await engine.close();
  }
  return order;
}

describe('SpeechEngine scheduling', () => {
  it('fair: with requests arriving while others run, every first chunk is scheduled before any second chunk', async () => {
    const n = 6;
    const order = await staggered('fair', n);
    expect(order).toHaveLength(n * CHUNKS);
    const lastFirst = Math.max(...order.map((u, i) => (u.seq === 0 ? i : -1)));
    const firstSecond = order.findIndex((u) => u.seq === 1);
    expect(lastFirst).toBeLessThan(firstSecond);
    // More generally, chunk k of every request before chunk k + 1 of any, as they were waiting.
    expect(order.map((u) => u.seq)).toEqual([...order.map((u) => u.seq)].sort((a, b) => a - b));
    // And each request's own chunks in order.
    for (let r = 0; r < n; r++) expect(order.filter((u) => u.request === `r${r}`).map((u) => u.seq)).toEqual([0, 1, 2, 3]);
  }, 60_000);

  it("a cancelled request's waiting chunk leaves the queue and never reaches a worker", async () => {
    const plan = await planOf();
    const order: DispatchedUnit[] = [];
    const engine = new SpeechEngine({ workers: 1, onDispatch: (u) => order.push(u) });
    try {
      await engine.ready;
      const job = {
        ssml: '<speak>A long sentence that keeps the only worker busy for a while.</speak>',
        voice: plan.voice.espeak,
        rate: plan.voice.wpm,
        pitch: plan.voice.pitch,
        range: plan.voice.range,
      };
      const busy = engine.synthesize(job, () => undefined, { request: 'busy' });
      const abort = new AbortController();
      const cancelled = engine.synthesize(job, () => undefined, { request: 'cancelled', signal: abort.signal });
      const after = engine.synthesize(job, () => undefined, { request: 'after' });
      abort.abort();
      await expect(cancelled).rejects.toBeInstanceOf(AbortError);
      await expect(cancelled).rejects.toMatchObject({ code: 'ABORTED' });
      await Promise.all([busy, after]);
      expect(order.map((u) => u.request)).toEqual(['busy', 'after']);

      // Through synthesizeSpeech: a request aborted while its first chunk waits sends nothing.
      const hold = engine.synthesize(job, () => undefined, { request: 'hold' });
      const stop = new AbortController();
      let events = 0;
      const run = synthesizeSpeech(plan, engine, {
        emit: () => {
          events++;
        },
        signal: stop.signal,
        requestId: 'gone',
      });
      stop.abort();
      await run;
      await hold;
      expect(events).toBe(0);
      expect(order.some((u) => u.request === 'gone')).toBe(false);
    } finally {
      await engine.close();
    }
  }, 60_000);
});

describe('streams under concurrency', () => {
  const services: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    await Promise.all(services.map((s) => s.close()));
  });

  // espeak-ng's output for one text varies by a few samples from call to call, even in one engine
  // (four identical calls: 29244–29465 samples), so a stream is checked against itself: its own
  // alignment, its text's words, and every chunk present, not against another request's bytes.
  it('concurrent opus and pcm streams are each complete: every chunk, every word, and audio that decodes to the full length', async () => {
    const svc = await startLocalService({ workers: 2, platform: false });
    services.push(svc);
    const n = 8;
    const formats = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? ('opus' as const) : ('pcm' as const)));
    const responses = await Promise.all(formats.map((format) => postTts(svc, { text: TEXT, latency: 'low', min_chunk_length: 0, format })));
    for (const [i, r] of responses.entries()) {
      const format = formats[i]!;
      const rate = format === 'opus' ? 48000 : 44100;
      expect(r.status).toBe(200);
      expect(r.headers.get('x-voicewire-chunks')).toBe(String(CHUNKS));
      const timeline = finalTimeline(r.events);
      expect(timeline.map((w) => w.text)).toEqual(wordsOf(TEXT));
      expect(new Set(timeline.map((w) => w.chunkSeq))).toEqual(new Set([0, 1, 2, 3]));
      expect(r.events.at(-1)!.chunk_seq).toBe(CHUNKS - 1);
      const alignedSec = [0, 1, 2, 3].reduce(
        (sum, seq) => sum + r.events.filter((e) => e.chunk_seq === seq).at(-1)!.alignment!.audio_duration,
        0,
      );
      const decoded = await decodeWithEngine(new Blob([r.text]).stream(), format, rate);
      expect(Math.abs(decoded.samples / rate - alignedSec)).toBeLessThanOrEqual(CHUNKS * 0.001);
      if (format === 'pcm') expect(decoded.samples).toBe(r.audio.length / 2);
      expect(decoded.words.map((w) => w.text)).toEqual(wordsOf(TEXT));
    }
  }, 120_000);
});
