/**
 * Speech to memory (no HTTP): what the platform uses to speak an agent's first message, and a
 * convenience for tests. Same validation, plan and events as the endpoint.
 */
import { AbortError } from '../errors.js';
import type { SpeechEvent } from '../events/SpeechEvent.js';
import { validateTtsRequest, type TtsRequest } from '../protocol/ttsRequest.js';
import { buildSpeechPlan, type PlanContext } from './speech/SpeechPlan.js';
import type { SpeechEngine } from './speech/SpeechEngine.js';
import { synthesizeSpeech, type SynthesisSummary } from './stream/synthesizeSpeech.js';
import type { TimedWord } from './speech/WordTimer.js';

export interface SynthesisResult {
  /** The events exactly as the endpoint would send them. */
  events: SpeechEvent[];
  /** All audio bytes, concatenated (a complete file of the request's format). */
  audio: Uint8Array;
  /** Global word timeline (seconds from the start of the audio). */
  words: TimedWord[];
  summary: SynthesisSummary;
}

/**
 * Throws RequestValidationError for a bad request, and AbortError once `signal` aborted (synthesis
 * stops at the next chunk).
 */
export async function synthesizeToMemory(
  request: TtsRequest,
  engine: SpeechEngine,
  ctx: PlanContext,
  signal?: AbortSignal,
): Promise<SynthesisResult> {
  if (signal?.aborted) throw new AbortError('speech synthesis aborted', signal.reason);
  const plan = await buildSpeechPlan(validateTtsRequest(request), ctx);
  const events: SpeechEvent[] = [];
  const parts: Uint8Array[] = [];
  const finalSnapshot = new Map<number, { offset: number; words: TimedWord[] }>();
  const summary = await synthesizeSpeech(plan, engine, {
    emit: (ev) => {
      parts.push(ev.audio);
      events.push({
        audio_base64: Buffer.from(ev.audio).toString('base64'),
        content: ev.content,
        alignment: ev.alignment,
        chunk_seq: ev.chunk_seq,
        chunk_audio_offset_sec: ev.chunk_audio_offset_sec,
      });
      if (ev.alignment) finalSnapshot.set(ev.chunk_seq, { offset: ev.chunk_audio_offset_sec, words: ev.alignment.segments });
    },
    ...(signal !== undefined ? { signal } : {}),
  });
  // synthesizeSpeech ends early and quietly on an abort: what it made is not the whole text.
  if (signal?.aborted) throw new AbortError('speech synthesis aborted', signal.reason);
  const audio = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    audio.set(p, o);
    o += p.length;
  }
  const words = [...finalSnapshot.entries()]
    .sort((a, b) => a[0] - b[0])
    .flatMap(([, c]) => c.words.map((w) => ({ text: w.text, start: w.start + c.offset, end: w.end + c.offset })));
  return { events, audio, words, summary };
}
