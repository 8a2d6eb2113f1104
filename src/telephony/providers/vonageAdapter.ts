/**
 * The Vonage Voice API WebSocket on the call core: the first text frame `websocket:connected`
 * is the stream's start (its content type gives the rate, its other fields are the NCCO
 * endpoint's headers), audio is binary little-endian L16 in exactly 20 ms frames both ways, a
 * `notify` is answered by `websocket:notify` once the audio before it has played, and `clear`
 * is confirmed by `websocket:cleared` (reported as `cleared`). Vonage sends no stop: the call
 * ends when the socket closes.
 *
 * @see docs/telephony.md#vonage
 */
import { TelephonyError } from '../../errors.js';
import { CallCore } from '../CallCore.js';
import type { CallOptions } from '../callOptions.js';
import type { LineFormat } from '../lineFormat.js';
import type { MediaSocket, MediaSocketData } from '../mediaSocket.js';
import {
  socketBytes,
  socketText,
  type CallStart,
  type OutboundChunking,
  type ProviderAdapter,
  type ProviderEvent,
} from '../providerAdapter.js';
import {
  VONAGE_L16_BYTE_ORDER,
  checkVonageAudioFrame,
  parseVonageMessage,
  vonageClearMessage,
  vonageFrameBytes,
  vonageNotifyMessage,
  type VonageConnected,
} from './vonageMessages.js';

const PROVIDER = 'Vonage';

/** The line format `websocket:connected` announces. */
export function vonageLineFormat(connected: VonageConnected): LineFormat {
  return { encoding: 'l16', sampleRate: connected.sampleRate as 8000 | 16000, byteOrder: VONAGE_L16_BYTE_ORDER };
}

export class VonageAdapter implements ProviderAdapter<VonageConnected> {
  readonly name = PROVIDER;
  /** Known once `websocket:connected` has come; audio before it is refused. */
  private sampleRate = 0;

  parse(data: MediaSocketData, isBinary: boolean): ProviderEvent<VonageConnected> {
    if (isBinary) {
      const audio = socketBytes(data);
      if (this.sampleRate === 0) {
        throw new TelephonyError('TELEPHONY_PROTOCOL', `${PROVIDER}: audio before websocket:connected ignored`, { field: 'audio' });
      }
      checkVonageAudioFrame(audio, this.sampleRate, false); // whole samples; a short last frame is kept
      return { type: 'media', audio };
    }
    const m = parseVonageMessage(socketText(data));
    switch (m.event) {
      case 'websocket:connected':
        if (this.sampleRate === 0) this.sampleRate = m.sampleRate;
        return { type: 'start', info: { contentType: m.contentType, sampleRate: m.sampleRate, headers: m.headers } };
      case 'websocket:notify':
        return { type: 'ack', name: m.name };
      case 'websocket:cleared':
        return { type: 'cleared' };
      case 'websocket:dtmf':
        return { type: 'dtmf', digit: m.digit, track: 'inbound' };
      case 'unknown':
        return { type: 'unknown', name: m.name };
    }
  }

  start(info: VonageConnected): CallStart {
    const headers = info.headers;
    return {
      streamId: '',
      callId: headers['call_uuid'] ?? headers['uuid'] ?? '',
      customParameters: headers,
      format: vonageLineFormat(info),
    };
  }

  /** Exactly one 20 ms frame a binary message. */
  chunking(format: LineFormat): OutboundChunking {
    const frame = vonageFrameBytes(format.sampleRate);
    return { quantumBytes: frame, minBatchBytes: frame, maxBatchBytes: frame };
  }

  /**
   * Audio goes out raw, as a binary frame: a copy, since the socket may hold the bytes until
   * they are written and `audio` is a view the caller reuses.
   */
  media(audio: Uint8Array): Uint8Array {
    return audio.slice();
  }

  ackRequest(name: string): string {
    return vonageNotifyMessage(name);
  }

  clear(): string {
    return vonageClearMessage();
  }
}

/** One Vonage Voice WebSocket: the call core with the Vonage adapter. */
export class VonageCall extends CallCore<VonageConnected> {
  constructor(socket: MediaSocket, options: CallOptions = {}) {
    super(socket, new VonageAdapter(), options);
  }
}

/**
 * Attaches a bridge to a Vonage Voice WebSocket (an NCCO `connect` to a `websocket` endpoint).
 * The endpoint's `headers` are the call's custom parameters.
 */
export function attachVonageMediaStream(socket: MediaSocket, options?: CallOptions): VonageCall {
  return new VonageCall(socket, options);
}
