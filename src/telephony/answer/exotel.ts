/**
 * Exotel has **no answer document**: the Voicebot applet's WebSocket URL is set in the Exotel
 * dashboard (App Bazaar flow: Call Start → Voicebot → Hangup), either as a static ws(s):// URL or as
 * an https:// endpoint that returns one per call. Custom parameters travel in that URL's query:
 * at most 3 pairs, at most 256 characters together, and they come back in the stream's `start`
 * message. This builds such a URL (e.g. for the dynamic endpoint to return, with a stream token);
 * it refuses what Exotel would not accept.
 *
 * @see https://developer.exotel.com/docs/agentstream/stream-voicebot-applet (Configuration Parameters)
 * @see https://support.exotel.com/support/solutions/articles/3000112112-voicebot-faqs (custom params)
 */
import { InvalidOptionError } from '../../errors.js';
import { checkWebSocketUrl } from './xml.js';

/** Exotel: "The Maximum number of custom params that are allowed is 3." */
export const EXOTEL_MAX_PARAMETERS = 3;
/** Exotel: the params' total length "shouldn't be more than 256 characters". */
export const EXOTEL_MAX_PARAMETERS_LENGTH = 256;

export interface ExotelStreamUrlOptions {
  url: string;
  parameters?: Readonly<Record<string, string>>;
}

export function exotelStreamUrl(options: ExotelStreamUrlOptions): string {
  const url = new URL(checkWebSocketUrl(options.url));
  const entries = Object.entries(options.parameters ?? {});
  if (entries.length > EXOTEL_MAX_PARAMETERS) {
    throw new InvalidOptionError('parameters', `Exotel takes at most ${EXOTEL_MAX_PARAMETERS} custom parameters (got ${entries.length})`);
  }
  const query = new URLSearchParams();
  for (const [k, v] of entries) {
    if (typeof v !== 'string') throw new InvalidOptionError(`parameters.${k}`, `parameters.${k} must be a string`);
    query.append(k, v);
  }
  const text = query.toString();
  if (text.length > EXOTEL_MAX_PARAMETERS_LENGTH) {
    throw new InvalidOptionError(
      'parameters',
      `custom parameters are ${text.length} characters; Exotel allows ${EXOTEL_MAX_PARAMETERS_LENGTH}`,
    );
  }
  if (text === '') return url.toString();
  url.search = url.search === '' ? text : `${url.search.slice(1)}&${text}`;
  return url.toString();
}
