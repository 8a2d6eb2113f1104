/**
 * Answer documents: what each provider's answer webhook returns to connect a call to the bridge's
 * WebSocket, with the per-call stream token where that provider carries custom data.
 */
export { twimlConnectStream, type TwimlStreamOptions } from './twiml.js';
export { texmlConnectStream, TEXML_CODECS, TEXML_SAMPLING_RATE, type TexmlCodec, type TexmlStreamOptions } from './texml.js';
export {
  plivoStreamXml,
  plivoExtraHeaders,
  PLIVO_CONTENT_TYPES,
  PLIVO_MAX_EXTRA_HEADERS_BYTES,
  type PlivoContentType,
  type PlivoStreamOptions,
} from './plivoXml.js';
export {
  vonageConnectNcco,
  vonageConnectNccoJson,
  VONAGE_RATES,
  type VonageConnectAction,
  type VonageConnectOptions,
  type VonageNcco,
  type VonageRate,
  type VonageWebSocketEndpoint,
} from './vonageNcco.js';
export { exotelStreamUrl, EXOTEL_MAX_PARAMETERS, EXOTEL_MAX_PARAMETERS_LENGTH, type ExotelStreamUrlOptions } from './exotel.js';
export { xmlAttribute, xmlText } from './xml.js';
