/**
 * Twilio Media Streams on the call core: `twilioMessages` parsing and building, plus the one
 * stream sid every outbound message carries. Twilio returns every pending mark at once after a
 * `clear`; the core ignores them (see the acknowledgement contract in `providerAdapter`).
 *
 * @see docs/service-interface.md#twilio-media-streams
 */
import { TelephonyError } from '../errors.js';
import { MULAW_8K, type LineFormat } from './lineFormat.js';
import type { MediaSocketData } from './mediaSocket.js';
import {
  socketText,
  UNBATCHED,
  type CallStart,
  type OutboundChunking,
  type ProviderAdapter,
  type ProviderEvent,
} from './providerAdapter.js';
import { checkMediaFormat, clearMessage, markMessage, mediaMessage, parseInboundMessage, type StartInfo } from './twilioMessages.js';

export class TwilioAdapter implements ProviderAdapter<StartInfo> {
  readonly name = 'Twilio';
  /** Before `start` the stream has no sid; nothing is sent then but a user's mark. */
  private streamSidJson = '""';

  parse(data: MediaSocketData, isBinary: boolean): ProviderEvent<StartInfo> {
    if (isBinary) throw new TelephonyError('TELEPHONY_PROTOCOL', 'binary frame from Twilio ignored', { field: 'message' });
    const message = parseInboundMessage(socketText(data));
    switch (message.event) {
      case 'connected':
        return { type: 'connected' };
      case 'start':
        return { type: 'start', info: message.start };
      case 'media':
        if (message.track === 'outbound') return { type: 'unknown', name: 'media (outbound track)' };
        return { type: 'media', audio: Buffer.from(message.payload, 'base64'), timestamp: message.timestamp };
      case 'dtmf':
        return { type: 'dtmf', digit: message.digit, track: message.track };
      case 'mark':
        return { type: 'ack', name: message.name };
      case 'stop':
        return { type: 'stop' };
      case 'unknown':
        return { type: 'unknown', name: message.name };
    }
  }

  start(info: StartInfo): CallStart {
    checkMediaFormat(info.mediaFormat);
    this.streamSidJson = JSON.stringify(info.streamSid);
    return { streamId: info.streamSid, callId: info.callSid, customParameters: info.customParameters, format: MULAW_8K };
  }

  chunking(_format: LineFormat): OutboundChunking {
    return UNBATCHED;
  }

  media(audio: Uint8Array): string {
    return mediaMessage(this.streamSidJson, audio);
  }

  ackRequest(name: string): string {
    return markMessage(this.streamSidJson, name);
  }

  clear(): string {
    return clearMessage(this.streamSidJson);
  }
}
