/**
 * A Vonage NCCO that connects the call to a WebSocket:
 * `[{action: 'connect', endpoint: [{type: 'websocket', uri, 'content-type': 'audio/l16;rate=16000', headers}]}]`.
 *
 * From Vonage's Voice API pages: the `content-type` is `audio/l16;rate=8000`, `;rate=16000` (or
 * `;rate=24000`, not offered here); `headers` are sent to the WebSocket in its first text message
 * (`websocket:connected`), which is where a stream token travels. The answer webhook returns the
 * NCCO as JSON (`application/json`).
 *
 * @see https://developer.vonage.com/en/voice/voice-api/ncco-reference#connect
 * @see https://developer.vonage.com/en/voice/voice-api/concepts/websockets
 */
import { InvalidOptionError } from '../../errors.js';
import { checkWebSocketUrl } from './xml.js';

export type VonageRate = 8000 | 16000;
export const VONAGE_RATES: readonly VonageRate[] = [8000, 16000];

export interface VonageWebSocketEndpoint {
  type: 'websocket';
  uri: string;
  'content-type': `audio/l16;rate=${VonageRate}`;
  headers?: Record<string, string>;
}
export interface VonageConnectAction {
  action: 'connect';
  endpoint: [VonageWebSocketEndpoint];
}
export type VonageNcco = [VonageConnectAction];

export interface VonageConnectOptions {
  uri: string;
  /** @defaultValue 16000 */
  rate?: VonageRate;
  /** Sent to the WebSocket in `websocket:connected`. */
  headers?: Readonly<Record<string, string>>;
}

export function vonageConnectNcco(options: VonageConnectOptions): VonageNcco {
  const uri = checkWebSocketUrl(options.uri, 'uri');
  const rate = options.rate ?? 16000;
  if (!VONAGE_RATES.includes(rate)) throw new InvalidOptionError('rate', `rate must be one of ${VONAGE_RATES.join(', ')}`);
  const endpoint: VonageWebSocketEndpoint = { type: 'websocket', uri, 'content-type': `audio/l16;rate=${rate}` };
  if (options.headers !== undefined) {
    const entries = Object.entries(options.headers);
    for (const [k, v] of entries) {
      if (typeof v !== 'string') throw new InvalidOptionError(`headers.${k}`, `headers.${k} must be a string`);
    }
    // fromEntries defines own properties, so a header named `__proto__` stays a header.
    endpoint.headers = Object.fromEntries(entries);
  }
  return [{ action: 'connect', endpoint: [endpoint] }];
}

/** The NCCO as the answer webhook's JSON body (JSON.stringify escapes every value). */
export function vonageConnectNccoJson(options: VonageConnectOptions): string {
  return JSON.stringify(vonageConnectNcco(options));
}
