/**
 * The default speech source: the voicewire client, asked for frames the call's line takes
 * (`context.format`: μ-law 8 kHz mono when absent; 20 ms frames) through the engine's conversion
 * stage, with an external playhead that only acknowledgements move. A line encoding the engine
 * cannot output yet rejects with a `TELEPHONY_FORMAT_UNSUPPORTED` TelephonyError.
 */
import { createClient, type ClientOptions } from '../client/createClient.js';
import type { TtsApi, TtsStreamOptions } from '../client/tts.js';
import type { SpeechSource } from './speechSource.js';
import { TELEPHONY_OUTPUT, telephonyOutputFor } from './speechSource.js';

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
  return async (request, { signal, format }) => {
    const output = format === undefined ? TELEPHONY_OUTPUT : telephonyOutputFor(format);
    const { stream } = await tts.streamWithTimestamps(request, {
      ...options,
      signal,
      output,
      playhead: 'external',
    });
    return stream;
  };
}
