/**
 * One request's speech, as speech stream events (transport-agnostic: the HTTP responder, the
 * platform's first messages and tests all consume it).
 *
 * Per text chunk: SSML with word marks → espeak worker (~100 ms pieces) → gain / loudness at
 * 22050 Hz → speex resampler to `sample_rate` → encoder. One event per piece that produced bytes
 * or a new snapshot, so audio leaves while synthesis runs. Snapshots are cumulative per chunk:
 * null until the chunk's first word has ended, the same object repeated while no word ends,
 * replaced when one does, and a final one (full `audio_duration`) on the chunk's last event.
 */
import { S16_MAX, S16_MIN, S16_SCALE } from '../../internal/s16.js';
import type { Alignment, AlignmentSegment } from '../../events/SpeechEvent.js';
import { LoudnessStage } from '../audio/LoudnessStage.js';
import { loadResampler, Resampler } from '../../dsp/Resampler.js';
import { createStreamEncoder } from '../encode/createStreamEncoder.js';
import type { StreamEncoder } from '../encode/types.js';
import { buildChunkSsml } from '../speech/ssml.js';
import { ESPEAK_SAMPLE_RATE, type SpeechEngine, type SynthPiece } from '../speech/SpeechEngine.js';

import type { SpeechPlan } from '../speech/SpeechPlan.js';
import type { SchedulerKind } from '../speech/UnitQueue.js';
import { arrivalOrderTurns, sharedFairTurns } from './FairTurns.js';
import { WordTimer, type TimedWord } from '../speech/WordTimer.js';

/**
 * What synthesis needs of the engine: only `synthesize`, so any engine with it will do. Each text
 * chunk is one unit of the engine's schedule (`seq` = its chunk_seq), queued when the chunk before
 * it has been synthesized and sent.
 */
export type Synthesizer = Pick<SpeechEngine, 'synthesize'> & { readonly scheduler?: SchedulerKind };

/** One event before serialisation (`audio` becomes `audio_base64`). */
export interface SynthesisEvent {
  audio: Uint8Array;
  content: string;
  alignment: Alignment | null;
  chunk_seq: number;
  chunk_audio_offset_sec: number;
  /** Not on the wire: seconds of audio in the stream once this event's audio is played. */
  audioEndSec: number;
}

export interface SynthesisSummary {
  events: number;
  chunks: number;
  audioBytes: number;
  /** Seconds of audio (exact: resampler and encoders keep the sample count). */
  durationSec: number;
  words: number;
}

export interface SynthesizeOptions {
  /** Called per event; a returned promise is awaited before the next text chunk is synthesized. */
  emit(event: SynthesisEvent): void | Promise<void>;
  /** Stops synthesis: a chunk waiting for a worker leaves the engine's queue at once. */
  signal?: AbortSignal;
  /** Names the request's units in the engine's schedule (its dispatch observer sees it). */
  requestId?: string;
}

const MS = 1000;
const yieldTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const round3 = (x: number): number => Math.round(x * MS) / MS;
const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

function toFloat(samples: Int16Array): Float32Array {
  const out = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = samples[i]! / S16_SCALE;
  return out;
}

function toInt16(x: Float32Array): Int16Array {
  const out = new Int16Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const v = Math.round(x[i]! * S16_SCALE);
    out[i] = v > S16_MAX ? S16_MAX : v < S16_MIN ? S16_MIN : v;
  }
  return out;
}

function joinBytes(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function snapshot(words: readonly TimedWord[], durationSec: number): Alignment {
  const segments: AlignmentSegment[] = words.map((w) => ({ text: w.text, start: round3(w.start), end: round3(w.end) }));
  return { audio_duration: round3(durationSec), segments };
}

export async function synthesizeSpeech(plan: SpeechPlan, engine: Synthesizer, options: SynthesizeOptions): Promise<SynthesisSummary> {
  const req = plan.request;
  const rate = req.sample_rate;
  const turns = engine.scheduler === 'fifo' ? arrivalOrderTurns : sharedFairTurns;
  /** Pieces this request has handled: its level in the main thread's fair turns. */
  let piecesHandled = 0;
  // Built once the first chunk's synthesis is under way (lamejs builds tables for tens of ms).
  let encoder: StreamEncoder | null = null;
  let resampler: Resampler | null = null;
  if (rate !== ESPEAK_SAMPLE_RATE) {
    await loadResampler();
    resampler = new Resampler(1, ESPEAK_SAMPLE_RATE, rate);
  }
  const loudness = new LoudnessStage({
    sampleRate: ESPEAK_SAMPLE_RATE,
    gainDb: req.prosody.volume + plan.voice.gainDb,
    normalize: req.prosody.normalize_loudness,
  });
  const summary: SynthesisSummary = { events: 0, chunks: plan.chunks.length, audioBytes: 0, durationSec: 0, words: 0 };
  let pending: Uint8Array[] = [];
  const startEncoder = (): StreamEncoder => {
    const e = createStreamEncoder({ format: req.format, sampleRate: rate, mp3Kbps: req.mp3_bitrate, opusBitrate: req.opus_bitrate });
    pending.push(...e.start());
    return e;
  };
  let totalSamples = 0;
  let emitFailure: unknown = null;

  const encodeFloat = (f: Float32Array): void => {
    if (f.length > 0) pending.push(...(encoder ??= startEncoder()).encode(toInt16(f)));
  };
  const encodePiece = (samples: Int16Array, last: boolean): void => {
    const f = toFloat(samples);
    loudness.process(f);
    if (resampler) {
      resampler.process(f, encodeFloat);
      if (last) resampler.flush(encodeFloat);
    } else {
      encodeFloat(f);
    }
    if (last) pending.push(...(encoder ??= startEncoder()).finish());
  };

  const send = async (ev: Omit<SynthesisEvent, 'audio' | 'audioEndSec'>, endSamples: number): Promise<void> => {
    const audio = joinBytes(pending.filter((p) => p.length > 0));
    pending = [];
    summary.events++;
    summary.audioBytes += audio.length;
    await options.emit({ audio, ...ev, audioEndSec: endSamples / ESPEAK_SAMPLE_RATE });
  };

  try {
    for (let seq = 0; seq < plan.chunks.length; seq++) {
      if (options.signal?.aborted) break;
      const content = plan.chunks[seq]!;
      const { ssml, groups, ranges } = buildChunkSsml(content, plan.entries);
      const timer = new WordTimer(groups, ranges);
      const offsetSec = totalSamples / ESPEAK_SAMPLE_RATE;
      const isLastChunk = seq === plan.chunks.length - 1;
      let chunkSamples = 0;
      let current: Alignment | null = null;
      let wordsInSnapshot = 0;
      const sendPiece = (piece: SynthPiece): void => {
        timer.push(piece.events);
        chunkSamples += piece.samples.length;
        encodePiece(piece.samples, false);
        if (timer.words.length > wordsInSnapshot) {
          wordsInSnapshot = timer.words.length;
          current = snapshot(timer.words, chunkSamples / ESPEAK_SAMPLE_RATE);
        }
        if (pending.some((p) => p.length > 0)) {
          send(
            { content, alignment: current, chunk_seq: seq, chunk_audio_offset_sec: round6(offsetSec) },
            totalSamples + chunkSamples,
          ).catch((err: unknown) => {
            emitFailure ??= err;
          });
        }
      };
      // Pieces are handled as they arrive, one per main-thread turn (so that sockets, including an
      // in-process client's, are served between them, and under load every request's earlier
      // pieces go before any request's later ones: FairTurns); the last one is held back so that
      // the chunk's final snapshot and the stream's tail travel on it.
      const queue: SynthPiece[] = [];
      let synthDone = false;
      let synthError: unknown = null;
      let wake: (() => void) | null = null;
      const poke = (): void => {
        const w = wake;
        wake = null;
        w?.();
      };
      // Until this request's first piece is here, other requests' later pieces wait (FairTurns).
      const releaseHold = seq === 0 ? turns.holdForFirstAudio() : (): void => undefined;
      const onAbort = (): void => releaseHold();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const settled = (): void => {
        releaseHold();
        options.signal?.removeEventListener('abort', onAbort);
      };
      engine
        .synthesize(
          { ssml, voice: plan.voice.espeak, rate: plan.voice.wpm, pitch: plan.voice.pitch, range: plan.voice.range },
          (piece) => {
            releaseHold();
            queue.push(piece);
            poke();
          },
          { request: options.requestId ?? '', seq, ...(options.signal ? { signal: options.signal } : {}) },
        )
        .then(
          () => {
            settled();
            synthDone = true;
            poke();
          },
          (err: unknown) => {
            settled();
            synthError = err;
            synthDone = true;
            poke();
          },
        );
      if (encoder === null) {
        await yieldTurn(); // the job is posted to the worker; build the encoder meanwhile
        encoder = startEncoder();
      }
      for (;;) {
        if (options.signal?.aborted) break;
        if (synthError !== null) throw synthError;
        if (emitFailure !== null) throw emitFailure;
        if (queue.length > 1) {
          // Only this loop takes from the queue, so the piece is still there after the turn.
          await turns.turn(piecesHandled++);
          if (options.signal?.aborted) break;
          sendPiece(queue.shift()!);
        } else if (synthDone) {
          break;
        } else {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
      }
      if (emitFailure !== null) throw emitFailure;
      if (!options.signal?.aborted) await turns.turn(piecesHandled++);
      // Cancelled (the unit left the queue, or its pieces are no longer wanted): nothing more is sent.
      if (options.signal?.aborted) break;
      const lastPiece = queue.shift() ?? { samples: new Int16Array(0), events: [] };
      timer.push(lastPiece.events);
      chunkSamples += lastPiece.samples.length;
      encodePiece(lastPiece.samples, isLastChunk);
      const words = timer.finish((chunkSamples / ESPEAK_SAMPLE_RATE) * MS);
      summary.words += words.length;
      await send(
        {
          content,
          alignment: snapshot(words, chunkSamples / ESPEAK_SAMPLE_RATE),
          chunk_seq: seq,
          chunk_audio_offset_sec: round6(offsetSec),
        },
        totalSamples + chunkSamples,
      );
      totalSamples += chunkSamples;
    }
  } finally {
    resampler?.free();
  }
  summary.durationSec = totalSamples / ESPEAK_SAMPLE_RATE;
  return summary;
}
