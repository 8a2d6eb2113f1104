/**
 * Strict base64 decoded straight into a {@link RingBuffer}: all at once when the decoded audio
 * fits, else (already validated) piece by piece as the consumer drains the ring. The source bytes
 * are not copied: a paused write keeps a view of them, which the caller keeps intact until
 * {@link RingBase64Writer.resume} reports it done.
 */
import type { RingBuffer } from '../buffer/RingBuffer.js';
import { DECODE_NEED_INPUT, DECODE_NEED_OUTPUT, StrictBase64Decoder } from './base64.js';

const NO_SOURCE = new Uint8Array(0);

export class RingBase64Writer {
  private readonly ring: RingBuffer;
  private readonly decoder = new StrictBase64Decoder();
  private src: Uint8Array = NO_SOURCE;
  private pos = 0;
  private end = 0;

  constructor(ring: RingBuffer) {
    this.ring = ring;
  }

  /**
   * Decodes `src[a..b)` into the ring, which must have room for all of it. False, with nothing
   * kept (`ring.uncommit`), when it is not strict base64: no reader ever sees invalid audio.
   */
  writeAll(src: Uint8Array, a: number, b: number): boolean {
    const ring = this.ring;
    const dec = this.decoder;
    dec.reset();
    const before = ring.totalWritten;
    let pos = a;
    for (;;) {
      const wi = ring.writeIndex;
      const status = dec.decode(src, pos, b, ring.buffer, wi, wi + ring.writeSpanLength);
      ring.commitWrite(dec.dstPos - wi);
      pos = dec.srcPos;
      if (status === DECODE_NEED_INPUT) break;
      if (status !== DECODE_NEED_OUTPUT || ring.free === 0) {
        ring.uncommit(ring.totalWritten - before);
        return false;
      }
    }
    if (!dec.complete) {
      ring.uncommit(ring.totalWritten - before);
      return false;
    }
    return true;
  }

  /** Starts writing validated base64 that may not fit; true when all of it is in already. */
  begin(src: Uint8Array, a: number, b: number): boolean {
    this.src = src;
    this.pos = a;
    this.end = b;
    this.decoder.reset();
    return this.resume();
  }

  /** Writes what fits of the waiting base64; true when all of it is in. */
  resume(): boolean {
    const ring = this.ring;
    const dec = this.decoder;
    while (ring.free > 0) {
      const wi = ring.writeIndex;
      const status = dec.decode(this.src, this.pos, this.end, ring.buffer, wi, wi + ring.writeSpanLength);
      ring.commitWrite(dec.dstPos - wi);
      this.pos = dec.srcPos;
      if (status === DECODE_NEED_INPUT) {
        this.src = NO_SOURCE;
        return true;
      }
      if (status !== DECODE_NEED_OUTPUT) throw new Error('voicewire internal: validated base64 failed to decode');
    }
    return false;
  }
}
