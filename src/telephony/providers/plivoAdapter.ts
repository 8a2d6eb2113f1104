/**
 * Plivo audio streams (`<Stream bidirectional="true">`) on the call core: `plivoMessages` parsing
 * and building, μ-law 8 kHz or L16 8/16 kHz (little-endian, see docs/telephony.md#plivo) straight
 * from the engine. Plivo answers a `checkpoint` with `playedStream` (or `played`) once the audio
 * before it has played, and confirms `clearAudio` with `clearedAudio` (reported as `cleared`);
 * checkpoints waiting at a clear are never answered, which the core does not need.
 *
 * @see docs/telephony.md#plivo
 */
import { TelephonyError } from '../../errors.js';
import { CallCore } from '../CallCore.js';
import type { CallOptions } from '../callOptions.js';
import { MULAW_8K, type LineFormat } from '../lineFormat.js';
import type { MediaSocket, MediaSocketData } from '../mediaSocket.js';
import {
  socketText,
  UNBATCHED,
  type CallStart,
  type OutboundChunking,
  type ProviderAdapter,
  type ProviderEvent,
} from '../providerAdapter.js';
import {
  PLIVO_L16_BYTE_ORDER,
  PLIVO_MULAW,
  checkPlivoMediaFormat,
  parsePlivoMessage,
  plivoCheckpointMessage,
  plivoClearAudioMessage,
  plivoPlayAudioMessage,
  type PlivoContentType,
  type PlivoStart,
} from './plivoMessages.js';

const PROVIDER = 'Plivo';

/** The line format a Plivo start announces (after {@link checkPlivoMediaFormat}). */
export function plivoLineFormat(start: PlivoStart): LineFormat {
  const contentType = checkPlivoMediaFormat(start.mediaFormat);
  if (contentType === PLIVO_MULAW) return MULAW_8K;
  return { encoding: 'l16', sampleRate: start.mediaFormat.sampleRate as 8000 | 16000, byteOrder: PLIVO_L16_BYTE_ORDER };
}

export class PlivoAdapter implements ProviderAdapter<PlivoStart> {
  readonly name = PROVIDER;
  private streamIdJson = '""';
  private contentType: PlivoContentType = PLIVO_MULAW;
  private sampleRate: number = MULAW_8K.sampleRate;

  parse(data: MediaSocketData, isBinary: boolean): ProviderEvent<PlivoStart> {
    if (isBinary) throw new TelephonyError('TELEPHONY_PROTOCOL', `${PROVIDER}: binary frame ignored`, { field: 'message' });
    const m = parsePlivoMessage(socketText(data));
    switch (m.event) {
      case 'start':
        return { type: 'start', info: m.start };
      case 'media':
        if (m.track !== 'inbound') return { type: 'unknown', name: `media (${m.track} track)` };
        return m.timestamp >= 0
          ? { type: 'media', audio: Buffer.from(m.payload, 'base64'), timestamp: m.timestamp }
          : { type: 'media', audio: Buffer.from(m.payload, 'base64') };
      case 'dtmf':
        return { type: 'dtmf', digit: m.digit, track: 'inbound' };
      case 'playedStream':
        return { type: 'ack', name: m.name };
      case 'clearedAudio':
        return { type: 'cleared' };
      case 'unknown':
        return { type: 'unknown', name: m.name };
    }
  }

  start(info: PlivoStart): CallStart {
    const format = plivoLineFormat(info);
    this.contentType = checkPlivoMediaFormat(info.mediaFormat);
    this.sampleRate = format.sampleRate;
    this.streamIdJson = JSON.stringify(info.streamId);
    return { streamId: info.streamId, callId: info.callId, customParameters: info.headers, format };
  }

  chunking(_format: LineFormat): OutboundChunking {
    return UNBATCHED;
  }

  media(audio: Uint8Array): string {
    return plivoPlayAudioMessage(this.contentType, this.sampleRate, audio);
  }

  ackRequest(name: string): string {
    return plivoCheckpointMessage(this.streamIdJson, name);
  }

  clear(): string {
    return plivoClearAudioMessage(this.streamIdJson);
  }
}

/** One Plivo bidirectional audio stream: the call core with the Plivo adapter. */
export class PlivoCall extends CallCore<PlivoStart> {
  constructor(socket: MediaSocket, options: CallOptions = {}) {
    super(socket, new PlivoAdapter(), options);
  }
}

/**
 * Attaches a bridge to a Plivo audio stream socket (`<Stream bidirectional="true">`). The
 * stream's `extra_headers` are the call's custom parameters.
 */
export function attachPlivoMediaStream(socket: MediaSocket, options?: CallOptions): PlivoCall {
  return new PlivoCall(socket, options);
}
