/**
 * TwiML that connects a call to a bidirectional Media Stream:
 * `<Response><Connect><Stream url="wss://…"><Parameter name value/>…</Stream></Connect></Response>`.
 * `<Connect><Stream>` (not `<Start><Stream>`) is the bidirectional form; each `<Parameter>` comes
 * back in the stream's `start` message as `start.customParameters[name]`, which is where a per-call
 * stream token travels.
 *
 * @see https://www.twilio.com/docs/voice/twiml/stream (attributes, `<Parameter>`)
 * @see https://www.twilio.com/docs/voice/media-streams/websocket-messages (the `start` message)
 */
import { XML_DECLARATION, checkWebSocketUrl, xmlAttribute } from './xml.js';

export interface TwimlStreamOptions {
  /** The WebSocket the stream connects to (wss:// for a real number). */
  url: string;
  /** Custom parameters, delivered in `start.customParameters`. */
  parameters?: Readonly<Record<string, string>>;
}

/** `<Parameter>` elements, shared with TeXML (the same shape). */
export function parameterElements(parameters: Readonly<Record<string, string>> | undefined): string {
  let out = '';
  for (const [name, value] of Object.entries(parameters ?? {})) {
    out += `<Parameter name="${xmlAttribute(name, 'parameters')}" value="${xmlAttribute(value, `parameters.${name}`)}"/>`;
  }
  return out;
}

/**
 * @example
 * res.end(twimlConnectStream({ url: 'wss://voice.example.com/media', parameters: { vw_token: token } }));
 */
export function twimlConnectStream(options: TwimlStreamOptions): string {
  const url = xmlAttribute(checkWebSocketUrl(options.url), 'url');
  return `${XML_DECLARATION}<Response><Connect><Stream url="${url}">${parameterElements(options.parameters)}</Stream></Connect></Response>`;
}
