/**
 * Speaking an agent's messages with the local service's real speech engine: the same request a
 * telephony bridge would make (pcm at 8 kHz), so the usage reported is what was produced.
 */
import { RequestValidationError } from '../../errors.js';
import type { TtsRequest } from '../../protocol/ttsRequest.js';
import type { SynthesisResult } from '../synthesizeToMemory.js';
import type { SpeakFunction } from './options.js';

/** Output format of spoken agent messages: what a phone line needs. */
export const AGENT_SPEECH_FORMAT = { format: 'pcm', sample_rate: 8000 } as const;
/** Model name put on speech usage. */
export const LOCAL_SPEECH_MODEL = 'espeak-ng';

export type SynthesizeFunction = (request: TtsRequest, signal?: AbortSignal) => Promise<SynthesisResult>;

/**
 * A {@link SpeakFunction} over the service's `synthesize`. An agent voice the local service does
 * not know (real voice ids are model ids) is spoken with the default voice instead.
 */
export function speakWithSynthesize(synthesize: SynthesizeFunction): SpeakFunction {
  return async (text, voice, options) => {
    const signal = options?.signal;
    const request: TtsRequest = { text, ...AGENT_SPEECH_FORMAT, ...(voice.speed !== undefined ? { prosody: { speed: voice.speed } } : {}) };
    let result: SynthesisResult;
    try {
      result = await synthesize(voice.voiceId !== undefined ? { ...request, reference_id: voice.voiceId } : request, signal);
    } catch (err) {
      if (!(err instanceof RequestValidationError && err.field === 'reference_id')) throw err;
      result = await synthesize(request, signal);
    }
    return { characters: [...text].length, audioSeconds: result.summary.durationSec, model: LOCAL_SPEECH_MODEL };
  };
}
