/**
 * Exotel's Voicebot applet (bidirectional stream) on the call core: `exotelMessages` parsing and
 * building, little-endian 16-bit PCM at 8 or 16 kHz straight from the engine, media batched to
 * Exotel's chunk rule (multiples of 320 bytes, 3.2 KB to 100 KB). With batching an
 * acknowledgement covers its whole batch, so the adapter declares coarse acknowledgements and the
 * core moves the playhead with the clock between them (`ClockedPlayhead`): words fire when the
 * phone plays them. Exotel returns waiting marks at once after `clear`; the core ignores them.
 *
 * @see docs/telephony.md#exotel
 */
import { TelephonyError } from '../../errors.js';
import { CallCore } from '../CallCore.js';
import type { CallOptions } from '../callOptions.js';
import type { LineFormat, LineSampleRate } from '../lineFormat.js';
import type { MediaSocket, MediaSocketData } from '../mediaSocket.js';
import { socketText, type CallStart, type OutboundChunking, type ProviderAdapter, type ProviderEvent } from '../providerAdapter.js';
import {
  EXOTEL_CHUNK_MULTIPLE,
  EXOTEL_L16_BYTE_ORDER,
  EXOTEL_MAX_ALIGNED_CHUNK,
  EXOTEL_MIN_CHUNK,
  checkExotelMediaFormat,
  exotelClearMessage,
  exotelMarkMessage,
  exotelMediaMessage,
  parseExotelMessage,
  type ExotelStart,
} from './exotelMessages.js';

const PROVIDER = 'Exotel';
/** The Exotel rates the call core serves (Exotel's 24 kHz is not a telephony line rate here). */
const LINE_RATES: readonly number[] = [8000, 16000];

/** The line format an Exotel start announces (after {@link checkExotelMediaFormat}). */
export function exotelLineFormat(start: ExotelStart): LineFormat {
  checkExotelMediaFormat(start.mediaFormat);
  const rate = start.mediaFormat.sampleRate;
  if (!LINE_RATES.includes(rate)) {
    throw new TelephonyError('TELEPHONY_FORMAT_UNSUPPORTED', `${PROVIDER}: ${rate} Hz streams are not served; use 8000 or 16000`, {
      field: 'start.media_format.sample_rate',
    });
  }
  return { encoding: 'l16', sampleRate: rate as LineSampleRate, byteOrder: EXOTEL_L16_BYTE_ORDER };
}

export class ExotelAdapter implements ProviderAdapter<ExotelStart> {
  readonly name = PROVIDER;
  /** A mark can only follow a whole batch (200 ms at 8 kHz). */
  readonly coarseAcknowledgements = true;
  private streamSidJson = '""';

  parse(data: MediaSocketData, isBinary: boolean): ProviderEvent<ExotelStart> {
    if (isBinary) throw new TelephonyError('TELEPHONY_PROTOCOL', `${PROVIDER}: binary frame ignored`, { field: 'message' });
    const m = parseExotelMessage(socketText(data));
    switch (m.event) {
      case 'connected':
        return { type: 'connected' };
      case 'start':
        return { type: 'start', info: m.start };
      case 'media':
        return m.timestamp >= 0
          ? { type: 'media', audio: Buffer.from(m.payload, 'base64'), timestamp: m.timestamp }
          : { type: 'media', audio: Buffer.from(m.payload, 'base64') };
      case 'dtmf':
        return { type: 'dtmf', digit: m.digit, track: 'inbound' };
      case 'mark':
        return { type: 'ack', name: m.name };
      case 'stop':
        return { type: 'stop' };
      case 'unknown':
        return { type: 'unknown', name: m.name };
    }
  }

  start(info: ExotelStart): CallStart {
    const format = exotelLineFormat(info);
    this.streamSidJson = JSON.stringify(info.streamSid);
    return { streamId: info.streamSid, callId: info.callSid, customParameters: info.customParameters, format };
  }

  /** Multiples of 320 bytes, from 3200 to 100 000 (Exotel's chunk rule, in bytes at any rate). */
  chunking(_format: LineFormat): OutboundChunking {
    return { quantumBytes: EXOTEL_CHUNK_MULTIPLE, minBatchBytes: EXOTEL_MIN_CHUNK, maxBatchBytes: EXOTEL_MAX_ALIGNED_CHUNK };
  }

  media(audio: Uint8Array): string {
    return exotelMediaMessage(this.streamSidJson, audio);
  }

  ackRequest(name: string): string {
    return exotelMarkMessage(this.streamSidJson, name);
  }

  clear(): string {
    return exotelClearMessage(this.streamSidJson);
  }
}

/** One Exotel Voicebot stream: the call core with the Exotel adapter. */
export class ExotelCall extends CallCore<ExotelStart> {
  constructor(socket: MediaSocket, options: CallOptions = {}) {
    super(socket, new ExotelAdapter(), options);
  }
}

/** Attaches a bridge to an Exotel Voicebot applet socket (bidirectional stream). */
export function attachExotelMediaStream(socket: MediaSocket, options?: CallOptions): ExotelCall {
  return new ExotelCall(socket, options);
}
