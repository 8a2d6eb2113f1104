/**
 * The default speech source: the voicewire client, asked for frames a phone line can take
 * (μ-law 8 kHz mono, 20 ms) with an external playhead that only mark echoes move.
 */
import { createClient, type ClientOptions } from '../client/createClient.js';
import type { TtsApi, TtsStreamOptions } from '../client/tts.js';
import type { SpeechSource } from './speechSource.js';
import { TELEPHONY_OUTPUT } from './speechSource.js';

/** Per-request options passed through to `streamWithTimestamps` (model, headers, timeouts). */
export type ClientSpeechSourceOptions = Omit<TtsStreamOptions, 'signal' | 'output' | 'playhead'>;

/**
 * @param client a client (`createClient(...)`), or the options to make one
 *   (@defaultValue `createClient()` from `VOICEWIRE_BASE_URL` / `VOICEWIRE_API_KEY`).
 * @example
 * ```ts
 * const source = createClientSpeechSource(createClient({ baseUrl, apiKey }));
 * wss.on('connection', (ws) => attachTwilioMediaStream(ws, { source }));
 * ```
 */
export function createClientSpeechSource(
  client: { tts: TtsApi } | ClientOptions = {},
  options: ClientSpeechSourceOptions = {},
): SpeechSource {
  const tts = 'tts' in client ? client.tts : createClient(client).tts;
  return async (request, { signal }) => {
    const { stream } = await tts.streamWithTimestamps(request, {
      ...options,
      signal,
      output: TELEPHONY_OUTPUT,
      playhead: 'external',
    });
    return stream;
  };
}
