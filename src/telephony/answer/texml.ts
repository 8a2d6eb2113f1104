/**
 * Telnyx TeXML for a bidirectional media stream:
 * `<Response><Connect><Stream url bidirectionalMode="rtp" bidirectionalCodec codec …>`.
 *
 * From Telnyx's `<Stream>` page: `bidirectionalMode` is `mp3` (the default: media files) or `rtp`
 * (raw RTP payloads both ways, what a call core streams); `bidirectionalCodec` (used only with
 * `rtp`) is PCMU by default, PCMA, G722, OPUS or AMR-WB; `bidirectionalSamplingRate` is 8000 (the
 * default), 16000 or 24000; `codec` chooses the inbound stream's codec (transcoding only between
 * PCMU and PCMA). Only PCMU and PCMA at 8 kHz are offered here (G.722 and Opus are out of scope),
 * and the inbound codec is set to the same, so both directions carry one format.
 * `<Connect>` and the nested `<Parameter>` follow TeXML's TwiML compatibility.
 *
 * @see https://developers.telnyx.com/docs/voice/programmable-voice/texml-verbs/stream
 * @see https://developers.telnyx.com/docs/voice/programmable-voice/texml-twiml-compatibility
 */
import { InvalidOptionError } from '../../errors.js';
import { parameterElements } from './twiml.js';
import { XML_DECLARATION, checkWebSocketUrl, xmlAttribute } from './xml.js';

/** The G.711 codecs a call core sends natively at 8 kHz. */
export type TexmlCodec = 'PCMU' | 'PCMA';
export const TEXML_CODECS: readonly TexmlCodec[] = ['PCMU', 'PCMA'];
/** Telnyx's default, and G.711's only rate. */
export const TEXML_SAMPLING_RATE = 8000;

export interface TexmlStreamOptions {
  url: string;
  /** @defaultValue 'PCMU' */
  codec?: TexmlCodec;
  /** Custom parameters, delivered in the `start` message. */
  parameters?: Readonly<Record<string, string>>;
}

export function texmlConnectStream(options: TexmlStreamOptions): string {
  const url = xmlAttribute(checkWebSocketUrl(options.url), 'url');
  const codec = options.codec ?? 'PCMU';
  if (!TEXML_CODECS.includes(codec)) throw new InvalidOptionError('codec', `codec must be one of ${TEXML_CODECS.join(', ')}`);
  return (
    `${XML_DECLARATION}<Response><Connect><Stream url="${url}" track="inbound_track" codec="${codec}"` +
    ` bidirectionalMode="rtp" bidirectionalCodec="${codec}" bidirectionalSamplingRate="${TEXML_SAMPLING_RATE}">` +
    `${parameterElements(options.parameters)}</Stream></Connect></Response>`
  );
}
