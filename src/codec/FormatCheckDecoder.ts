import type { AudioDecoder, AudioFormat, DecodedAudio, DecodeHint, PcmFormat } from './types.js';
import { checkDeclaredFormat, SNIFF_BYTES } from './sniff.js';

/**
 * Runs the format check ({@link checkDeclaredFormat}) on the first bytes of the audio before the
 * real decoder sees anything, so a stream declared as one format but carrying another is a fatal
 * FORMAT_MISMATCH and never decoded into noise (mpg123 finds false frame syncs in Ogg data).
 * Bytes arriving in pieces smaller than the signature are held (copied) until it can decide.
 */
export class FormatCheckDecoder implements AudioDecoder {
  readonly inner: AudioDecoder;
  readonly declared: AudioFormat;
  private readonly held = new Uint8Array(SNIFF_BYTES);
  private heldLength = 0;
  private state: 'checking' | 'ok' | 'failed' = 'checking';

  constructor(inner: AudioDecoder, declared: AudioFormat = inner.kind) {
    this.inner = inner;
    this.declared = declared;
  }

  get kind(): AudioFormat {
    return this.inner.kind;
  }

  get format(): PcmFormat | null {
    return this.inner.format;
  }

  get sourceSampleRate(): number | null | undefined {
    return this.inner.sourceSampleRate;
  }

  get pending(): boolean {
    return this.inner.pending === true;
  }

  get ready(): Promise<void> | undefined {
    return this.inner.ready;
  }

  decode(bytes: Uint8Array, hint?: DecodeHint): DecodedAudio {
    if (this.state === 'ok') return this.inner.decode(bytes, hint);
    if (this.state === 'failed') return { pcm: [], errors: [] };
    if (this.heldLength === 0 && bytes.length >= SNIFF_BYTES) return this.decide(bytes, hint, bytes);
    const take = Math.min(SNIFF_BYTES - this.heldLength, bytes.length);
    this.held.set(bytes.subarray(0, take), this.heldLength);
    this.heldLength += take;
    if (this.heldLength < SNIFF_BYTES) return { pcm: [], errors: [] };
    const first = this.decide(this.held.slice(), hint, this.held.slice());
    if (!this.passing() || take === bytes.length) return first;
    // Blocks, and with `reuseOutput` the result and its arrays, are valid until the decoder's
    // next call (DecodedAudio): keep copies of both across it.
    const firstPcm = first.pcm.map((block) => block.slice());
    const firstErrors = [...first.errors];
    const rest = this.inner.decode(bytes.subarray(take));
    return { pcm: [...firstPcm, ...rest.pcm], errors: [...firstErrors, ...rest.errors] };
  }

  flush(): DecodedAudio {
    if (this.state === 'checking' && this.heldLength > 0) {
      // Fewer bytes than a signature in the whole stream: let the decoder judge (and report) them.
      this.state = 'ok';
      const head = this.inner.decode(this.held.slice(0, this.heldLength));
      // Valid until the next call (and the result itself, with `reuseOutput`): copy.
      const headPcm = head.pcm.map((block) => block.slice());
      const headErrors = [...head.errors];
      const tail = this.inner.flush();
      return { pcm: [...headPcm, ...tail.pcm], errors: [...headErrors, ...tail.errors] };
    }
    return this.state === 'failed' ? { pcm: [], errors: [] } : this.inner.flush();
  }

  reset(): void {
    this.state = 'checking';
    this.heldLength = 0;
    this.inner.reset();
  }

  free(): void {
    this.inner.free?.();
  }

  private passing(): boolean {
    return this.state === 'ok';
  }

  private decide(signature: Uint8Array, hint: DecodeHint | undefined, toDecode: Uint8Array): DecodedAudio {
    const error = checkDeclaredFormat(this.declared, signature);
    if (error) {
      this.state = 'failed';
      return { pcm: [], errors: [error] };
    }
    this.state = 'ok';
    return this.inner.decode(toDecode, hint);
  }
}
