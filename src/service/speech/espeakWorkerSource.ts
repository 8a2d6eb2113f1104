/**
 * The source of the speech worker thread, run with `new Worker(source, { eval: true })`.
 *
 * Why a string and not a worker file: the same code must start from `src/` under vitest/tsx (where
 * a `.ts` worker file would need a loader inside the worker) and from the built `dist/` under plain
 * node. The worker only needs the espeak-ng wasm module (plain ESM JavaScript), whose absolute URL
 * the main thread resolves and passes in `workerData`, so a small plain-JS body is enough.
 *
 * Protocol (main → worker): `{ id, ssml, voice, rate, pitch, range }`.
 * Worker → main: `{ kind: 'ready' }` once, then per job any number of
 * `{ kind: 'audio', id, samples: Int16Array (transferred), events: [[type, ms, name, textPos]] }` and one
 * `{ kind: 'done', id }` or `{ kind: 'error', id, message }`. `{ kind: 'fatal', message }` if the
 * engine cannot start.
 *
 * espeak-ng's `synthesize` is synchronous and calls back every ~100 ms of audio (2206 samples at
 * 22050 Hz); posting inside the callback streams audio to the main thread while synthesis runs.
 */
export const ESPEAK_WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const KEEP = new Set(['mark', 'phoneme', 'word', 'end']);
(async () => {
  let engine;
  try {
    const mod = await import(workerData.espeakUrl);
    const m = await mod.default();
    engine = new m.eSpeakNGWorker();
  } catch (err) {
    parentPort.postMessage({ kind: 'fatal', message: String(err && err.stack || err) });
    return;
  }
  parentPort.on('message', (job) => {
    try {
      engine.set_voice(job.voice);
      engine.set_rate(job.rate);
      engine.set_pitch(job.pitch);
      engine.set_range(job.range);
      engine.synthesize(job.ssml, (samples, events) => {
        const out = [];
        for (const e of events) {
          if (KEEP.has(e.type)) out.push([e.type, e.audio_position, typeof e.id === 'string' ? e.id : '', e.text_position]);
        }
        const copy = samples && samples.length > 0 ? new Int16Array(samples) : new Int16Array(0);
        parentPort.postMessage({ kind: 'audio', id: job.id, samples: copy, events: out }, [copy.buffer]);
      });
      parentPort.postMessage({ kind: 'done', id: job.id });
    } catch (err) {
      parentPort.postMessage({ kind: 'error', id: job.id, message: String(err && err.message || err) });
    }
  });
  parentPort.postMessage({ kind: 'ready' });
})();
`;
