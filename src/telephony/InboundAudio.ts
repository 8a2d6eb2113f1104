/**
 * The caller's audio, for a speech recogniser: Twilio's inbound μ-law 8 kHz payloads decoded to
 * s16le PCM (8 kHz mono) on a byte Readable.
 *
 * Twilio cannot be paused, so the bound is a drop, not backpressure: when the reader falls more
 * than `maxBufferedBytes` behind, new audio is dropped and counted (memory stays flat).
 */
import { Readable } from 'node:stream';
import { mulawDecode } from '../dsp/mulaw.js';
import { TWILIO_SAMPLE_RATE } from './twilioMessages.js';
import { S16_BYTES } from '../internal/s16.js';

const DEFAULT_INBOUND_BUFFER_SECONDS = 5;

/** @defaultValue 5 s of s16le at 8 kHz. */
export const DEFAULT_INBOUND_BUFFER_BYTES = DEFAULT_INBOUND_BUFFER_SECONDS * TWILIO_SAMPLE_RATE * S16_BYTES;

export class InboundAudio extends Readable {
  /** Bytes of PCM dropped because the reader fell behind. */
  droppedBytes = 0;
  /** Bytes of PCM delivered to the buffer. */
  pushedBytes = 0;
  private ended = false;

  constructor(private readonly maxBufferedBytes = DEFAULT_INBOUND_BUFFER_BYTES) {
    super({ highWaterMark: maxBufferedBytes });
  }

  override _read(): void {
    // Push-driven: Twilio sends when the caller speaks.
  }

  /** Decodes one base64 μ-law payload; returns false when it was dropped. */
  pushPayload(payloadBase64: string): boolean {
    if (this.ended) return false;
    const mulaw = Buffer.from(payloadBase64, 'base64');
    const pcmBytes = mulaw.length * 2;
    if (pcmBytes === 0) return true;
    if (this.readableLength + pcmBytes > this.maxBufferedBytes) {
      this.droppedBytes += pcmBytes;
      return false;
    }
    const pcm = Buffer.allocUnsafe(pcmBytes);
    mulawDecode(mulaw, new Int16Array(pcm.buffer, pcm.byteOffset, mulaw.length));
    this.pushedBytes += pcmBytes;
    this.push(pcm);
    return true;
  }

  /** The stream is over (`stop` or socket close). */
  finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.push(null);
  }
}
