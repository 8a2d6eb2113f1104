/**
 * Telnyx media streaming (bidirectional, RTP mode) on the call core: `telnyxMessages` parsing and
 * building, PCMU/PCMA at 8 kHz or big-endian L16 at 8/16 kHz straight from the engine, and media
 * cut to whole 20 ms chunks (Telnyx plays chunks of 20 ms to 30 s). Telnyx returns pending marks
 * at once after `clear`; the core ignores them (the acknowledgement contract in `providerAdapter`).
 *
 * @see docs/telephony.md#telnyx
 */
import { TelephonyError } from '../../errors.js';
import { CallCore } from '../CallCore.js';
import type { CallOptions } from '../callOptions.js';
import { bytesPerSample, samplesPerMs, type LineFormat } from '../lineFormat.js';
import type { MediaSocket, MediaSocketData } from '../mediaSocket.js';
import { socketText, type CallStart, type OutboundChunking, type ProviderAdapter, type ProviderEvent } from '../providerAdapter.js';
import {
  TELNYX_L16_BYTE_ORDER,
  TELNYX_MAX_CHUNK_MS,
  TELNYX_MIN_CHUNK_MS,
  checkTelnyxMediaFormat,
  parseTelnyxMessage,
  telnyxClearMessage,
  telnyxMarkMessage,
  telnyxMediaMessage,
  type TelnyxStart,
} from './telnyxMessages.js';

const PROVIDER = 'Telnyx';

/** The line format a Telnyx start announces (after {@link checkTelnyxMediaFormat}). */
export function telnyxLineFormat(start: TelnyxStart): LineFormat {
  const encoding = checkTelnyxMediaFormat(start.mediaFormat);
  const sampleRate = start.mediaFormat.sampleRate as 8000 | 16000; // checked above
  if (encoding === 'PCMU') return { encoding: 'mulaw', sampleRate };
  if (encoding === 'PCMA') return { encoding: 'alaw', sampleRate };
  return { encoding: 'l16', sampleRate, byteOrder: TELNYX_L16_BYTE_ORDER };
}

export class TelnyxAdapter implements ProviderAdapter<TelnyxStart> {
  readonly name = PROVIDER;

  parse(data: MediaSocketData, isBinary: boolean): ProviderEvent<TelnyxStart> {
    if (isBinary) throw new TelephonyError('TELEPHONY_PROTOCOL', `${PROVIDER}: binary frame ignored`, { field: 'message' });
    const m = parseTelnyxMessage(socketText(data));
    switch (m.event) {
      case 'connected':
        return { type: 'connected' };
      case 'start':
        return { type: 'start', info: m.start };
      case 'media':
        if (m.track !== 'inbound') return { type: 'unknown', name: `media (${m.track} track)` };
        return m.timestamp >= 0
          ? { type: 'media', audio: Buffer.from(m.payload, 'base64'), timestamp: m.timestamp }
          : { type: 'media', audio: Buffer.from(m.payload, 'base64') };
      case 'dtmf':
        return { type: 'dtmf', digit: m.digit, track: 'inbound' };
      case 'mark':
        return { type: 'ack', name: m.name };
      case 'stop':
        return { type: 'stop' };
      case 'error':
        // Telnyx reports a fault in what we sent; the call goes on, so it is a warning.
        throw new TelephonyError('TELEPHONY_PROTOCOL', `${PROVIDER} error ${m.error.code}: ${m.error.title} ${m.error.detail}`.trim(), {
          field: 'error',
        });
      case 'unknown':
        return { type: 'unknown', name: m.name };
    }
  }

  start(info: TelnyxStart): CallStart {
    return { streamId: info.streamId, callId: info.callControlId, customParameters: info.customParameters, format: telnyxLineFormat(info) };
  }

  /** Whole samples, at least 20 ms a message, at most 30 s. */
  chunking(format: LineFormat): OutboundChunking {
    const bytesPerMs = bytesPerSample(format) * samplesPerMs(format);
    return {
      quantumBytes: bytesPerSample(format),
      minBatchBytes: TELNYX_MIN_CHUNK_MS * bytesPerMs,
      maxBatchBytes: TELNYX_MAX_CHUNK_MS * bytesPerMs,
    };
  }

  media(audio: Uint8Array): string {
    return telnyxMediaMessage(audio);
  }

  ackRequest(name: string): string {
    return telnyxMarkMessage(name);
  }

  clear(): string {
    return telnyxClearMessage();
  }
}

/** One Telnyx bidirectional media stream: the call core with the Telnyx adapter. */
export class TelnyxCall extends CallCore<TelnyxStart> {
  constructor(socket: MediaSocket, options: CallOptions = {}) {
    super(socket, new TelnyxAdapter(), options);
  }
}

/**
 * Attaches a bridge to a Telnyx media stream socket (Call Control `stream_url` with
 * `stream_bidirectional_mode: "rtp"`, or TeXML `<Stream bidirectionalMode="rtp">`).
 * @example attachTelnyxMediaStream(ws, { source }).on('start', (s) => void call.speak('Hello!'));
 */
export function attachTelnyxMediaStream(socket: MediaSocket, options?: CallOptions): TelnyxCall {
  return new TelnyxCall(socket, options);
}
