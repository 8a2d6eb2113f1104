/**
 * Everything decided about a request before the response starts (so that a bad voice or
 * dictionary is a 4xx, not a broken stream): text chunks, the espeak voice, the dictionary
 * entries, the output format.
 */
import { RequestValidationError } from '../../errors.js';
import type { NormalizedTtsRequest } from '../../protocol/ttsRequest.js';
import type { CompiledEntry } from './ssml.js';
import { stripPunctuation } from './ssml.js';
import { splitTextIntoChunks } from './textChunks.js';
import { DEFAULT_VOICE_ID, resolveVoice, takeEmotionTag, type ResolvedVoice, type VoiceSpec } from './voices.js';
import type { DictionaryStore } from './dictionaries.js';

export interface SpeechPlan {
  chunks: string[];
  voice: ResolvedVoice;
  /** The emotion tag removed from the text, if any. */
  emotion: string | null;
  entries: CompiledEntry[];
  request: NormalizedTtsRequest;
}

export interface PlanContext {
  voices: Readonly<Record<string, VoiceSpec>>;
  dictionaries: DictionaryStore;
}

/** Characters that would let dictionary phonemes escape espeak's `[[...]]` / SSML. */
const UNSAFE_PHONEMES = /\]\]|\[\[|[<>&]/;

export async function buildSpeechPlan(request: NormalizedTtsRequest, ctx: PlanContext): Promise<SpeechPlan> {
  const voiceId = request.reference_id ?? DEFAULT_VOICE_ID;
  const spec = ctx.voices[voiceId];
  if (!spec) {
    throw new RequestValidationError(
      'reference_id',
      'unknown_voice',
      `reference_id: unknown voice ${JSON.stringify(voiceId)}; this service has: ${Object.keys(ctx.voices).join(', ')}`,
    );
  }
  const { text, tag, style } = takeEmotionTag(request.text);
  const voice = resolveVoice(spec, style, request.prosody.speed);

  const entries: CompiledEntry[] = [];
  for (const [i, item] of request.pronunciation_dictionary.entries()) {
    const inline = 'entries' in item ? item : await ctx.dictionaries.resolve(item.id, item.version, `pronunciation_dictionary[${i}]`);
    for (const [j, e] of inline.entries.entries()) {
      if (e.phonemes !== undefined && UNSAFE_PHONEMES.test(e.phonemes)) {
        const field = `pronunciation_dictionary[${i}].entries[${j}].phonemes`;
        throw new RequestValidationError(field, 'phonemes', `${field}: must not contain [[, ]], <, > or &`);
      }
      const words = e.text
        .split(/\s+/)
        .map((w) => stripPunctuation(w).toLowerCase())
        .filter((w) => w !== '');
      if (words.length === 0) continue;
      entries.push({ words, ...(e.alias !== undefined ? { alias: e.alias } : { phonemes: e.phonemes! }) });
    }
  }

  const chunks = splitTextIntoChunks(text, {
    chunkLength: request.chunk_length,
    minChunkLength: request.min_chunk_length,
    latency: request.latency,
  });
  if (chunks.length === 0) {
    throw new RequestValidationError('text', 'non_empty', 'text: nothing to speak once the emotion tag is removed');
  }
  return { chunks, voice, emotion: tag, entries, request };
}
