/**
 * The caller's audio, for a speech recogniser: the line's inbound audio (Twilio: μ-law 8 kHz)
 * decoded to s16le PCM at the line's rate, mono, on a byte Readable. Decoding goes by the line
 * format ({@link decodeLineAudio}: μ-law and L16 today; an encoding without a decoder is a typed
 * error there).
 *
 * A provider cannot be paused, so the bound is a drop, not backpressure: when the reader falls more
 * than `maxBufferedBytes` behind, new audio is dropped and counted (memory stays flat).
 */
import { Readable } from 'node:stream';
import { bytesPerSample, decodeLineAudio, MULAW_8K, type LineFormat } from './lineFormat.js';
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
  /** What arrives: set by the call when its stream starts. */
  format: LineFormat = MULAW_8K;

  constructor(private readonly maxBufferedBytes = DEFAULT_INBOUND_BUFFER_BYTES) {
    super({ highWaterMark: maxBufferedBytes });
  }

  override _read(): void {
    // Push-driven: Twilio sends when the caller speaks.
  }

  /** Decodes one base64 payload in the line format; returns false when it was dropped. */
  pushPayload(payloadBase64: string): boolean {
    if (this.ended) return false;
    return this.pushLineAudio(Buffer.from(payloadBase64, 'base64'));
  }

  /**
   * Decodes line bytes (the {@link format}); returns false when they were dropped. Throws a
   * `TELEPHONY_FORMAT_UNSUPPORTED` TelephonyError for an encoding without a decoder.
   */
  pushLineAudio(audio: Uint8Array): boolean {
    if (this.ended) return false;
    const samples = Math.floor(audio.length / bytesPerSample(this.format));
    const pcmBytes = samples * S16_BYTES;
    if (pcmBytes === 0) return true;
    if (this.readableLength + pcmBytes > this.maxBufferedBytes) {
      this.droppedBytes += pcmBytes;
      return false;
    }
    const pcm = Buffer.allocUnsafe(pcmBytes);
    decodeLineAudio(
      audio.subarray(0, samples * bytesPerSample(this.format)),
      this.format,
      new Int16Array(pcm.buffer, pcm.byteOffset, samples),
    );
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
