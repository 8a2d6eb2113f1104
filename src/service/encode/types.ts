/** One streaming audio encoder of the local service: s16 mono at the request's rate in, bytes out. */
export interface StreamEncoder {
  /** Bytes that precede any audio (a WAV header, the Ogg Opus header pages, the MP3 Info frame). */
  start(): Uint8Array[];
  /** Encodes more samples; returns whatever bytes are complete (possibly none). */
  encode(pcm: Int16Array): Uint8Array[];
  /** End of audio: the rest, with the container's end marks. */
  finish(): Uint8Array[];
}
