/**
 * `voicewire decode` without `--format`: the container is told from the signature of the first
 * audio bytes in the capture (the engine's sniffer, sniff.ts). The probe reads the head of the
 * input until it has those bytes, and keeps what it read so the decoder then gets every byte.
 *
 * Bounded: it stops at {@link PROBE_MAX_BYTES} (the engine's own event size limit), at the end of
 * the input, or at the first invalid event; then no format is known, and the engine, fed the head,
 * reports that event's typed error (or decodes a capture that holds no audio at all).
 */
import type { Readable } from 'node:stream';
import { SNIFF_BYTES, sniffContainer, type SniffedContainer } from '../codec/sniff.js';
import type { AudioFormat } from '../codec/types.js';
import { DEFAULT_MAX_SSE_BYTES } from '../sse/SseParser.js';
import { createEventAudioReader } from './eventAudio.js';

export const PROBE_MAX_BYTES = DEFAULT_MAX_SSE_BYTES;

/** The request format each signature belongs to (raw pcm has none). */
const FORMAT_OF: Readonly<Record<SniffedContainer, AudioFormat | null>> = { ogg: 'opus', mp3: 'mp3', wav: 'wav', unknown: null };

export interface ProbeResult {
  /** What the first audio bytes are; null when no audio was found (see above). */
  container: SniffedContainer | null;
  /** The request format of that container; null for `unknown` (no signature: raw pcm?) and no audio. */
  format: AudioFormat | null;
  /** Every chunk read, in order, for the decoder. */
  head: Buffer[];
  /** The input ended during the probe. */
  ended: boolean;
  /** The input failed during the probe. */
  error: Error | null;
}

/** Reads the head of `input` (left paused) until its audio's container is known. */
export function probeFormat(input: Readable): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const head: Buffer[] = [];
    let bytes = 0;
    let audio = Buffer.alloc(0);
    let container: SniffedContainer | null = null;
    const reader = createEventAudioReader((chunk) => {
      if (container !== null) return;
      audio = Buffer.concat([audio, chunk.subarray(0, SNIFF_BYTES - audio.length)]);
      container = sniffContainer(audio) ?? null;
    });
    const finish = (ended: boolean, error: Error | null): void => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', onError);
      input.pause();
      resolve({ container, format: container === null ? null : FORMAT_OF[container], head, ended, error });
    };
    const onData = (chunk: Buffer | string): void => {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      head.push(b);
      bytes += b.length;
      try {
        reader.feed(b);
      } catch {
        finish(false, null); // an invalid event: the engine reports it
        return;
      }
      if (container !== null || bytes >= PROBE_MAX_BYTES) finish(false, null);
    };
    const onEnd = (): void => {
      try {
        reader.end();
      } catch {
        // reported by the engine
      }
      finish(true, null);
    };
    const onError = (err: Error): void => finish(false, err);
    input.on('data', onData);
    input.once('end', onEnd);
    input.once('error', onError);
  });
}
