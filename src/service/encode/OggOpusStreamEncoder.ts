/**
 * `opus`: Ogg Opus (RFC 7845). The encoder runs at the request's rate (8/12/16/24/48 kHz, written
 * as the OpusHead input rate); granule positions are always in 48 kHz samples.
 *
 * - Pre-skip = libopus's lookahead, 6.5 ms = 312 samples at 48 kHz (Fs/400 + Fs/250).
 * - The stream is padded with zeros past its end so the lookahead drains, and the last page's
 *   granule is pre-skip + the real sample count, so decoders trim the padding (RFC 7845 §4.4).
 * - Pages end at every transport event (`flush` via `encode` returning complete pages), never
 *   holding audio back by a page.
 */
import { OPUS_RATE, opusHeadPacket, opusTagsPacket } from '../../codec/opus/OpusHead.js';
import { U32_MAX } from '../../internal/u32.js';
import { OggPageWriter } from './OggPageWriter.js';
import { createOpusPacketEncoder, type OpusPacketEncoder } from './opusBackend.js';
import type { StreamEncoder } from './types.js';

/** The packet duration this encoder writes (its choice; Opus allows 2.5 to 60 ms). */
export const OPUS_FRAME_MS = 20;
const MS_PER_SECOND = 1000;
/** The local service speaks mono. */
const OPUS_CHANNELS = 1;
/** libopus lookahead in 48 kHz samples (OPUS_GET_LOOKAHEAD at 48 kHz, application audio). */
export const OPUS_PRESKIP_48K = 312;
const VENDOR = 'voicewire local service (libopus)';

export class OggOpusStreamEncoder implements StreamEncoder {
  private readonly frame: number;
  private readonly scale: number;
  private readonly ogg: OggPageWriter;
  private readonly enc: OpusPacketEncoder;
  private readonly buf: Int16Array;
  private fill = 0;
  /** Real input samples (at the input rate). */
  private inputSamples = 0;
  /** Samples (input rate) handed to the encoder, padding included. */
  private encoded = 0;

  constructor(
    private readonly rate: number,
    bitrate: number,
    serial = (Math.random() * U32_MAX) >>> 0,
  ) {
    this.frame = (rate * OPUS_FRAME_MS) / MS_PER_SECOND;
    this.scale = OPUS_RATE / rate; // granule positions count 48 kHz samples whatever the input rate
    this.buf = new Int16Array(this.frame);
    this.ogg = new OggPageWriter(serial);
    this.enc = createOpusPacketEncoder(rate, bitrate);
  }

  get backend(): 'native' | 'wasm' {
    return this.enc.backend;
  }

  start(): Uint8Array[] {
    const head = opusHeadPacket({
      channels: OPUS_CHANNELS,
      preSkip: OPUS_PRESKIP_48K,
      inputSampleRate: this.rate,
      outputGain: 0,
      mappingFamily: 0,
    });
    const tags = opusTagsPacket(VENDOR);
    return [...this.ogg.push(head, 0n), ...this.ogg.flush(), ...this.ogg.push(tags, 0n), ...this.ogg.flush()];
  }

  private packet(): Uint8Array[] {
    const packet = this.enc.encode(this.buf);
    this.encoded += this.frame;
    this.fill = 0;
    return this.ogg.push(packet, BigInt(this.encoded * this.scale));
  }

  encode(pcm: Int16Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    this.inputSamples += pcm.length;
    for (let i = 0; i < pcm.length;) {
      const n = Math.min(this.frame - this.fill, pcm.length - i);
      this.buf.set(pcm.subarray(i, i + n), this.fill);
      this.fill += n;
      i += n;
      if (this.fill === this.frame) out.push(...this.packet());
    }
    out.push(...this.ogg.flush());
    return out;
  }

  finish(): Uint8Array[] {
    const out: Uint8Array[] = [];
    const lookahead = OPUS_PRESKIP_48K / this.scale;
    // Zero-pad until every real sample has left the encoder's lookahead.
    while (this.encoded < this.inputSamples + lookahead) {
      this.buf.fill(0, this.fill);
      out.push(...this.packet());
    }
    const finalGranule = BigInt(OPUS_PRESKIP_48K + this.inputSamples * this.scale);
    // The last page's granule marks where the real audio ends (end trimming).
    this.ogg.setGranule(finalGranule);
    const pages = this.ogg.flush(true);
    this.enc.free();
    return [...out, ...pages];
  }
}
