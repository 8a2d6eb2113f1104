/**
 * The encoded audio of each speech event of an SSE body, read on the general path (SSE parser +
 * JSON.parse + the same validation as the engine): what `say --out x.mp3` writes as it arrives and
 * what `decode` looks at to tell the container when no `--format` is given. The engine's hot path
 * (SpeechEventScanner) keeps its audio inside its ring; these two CLI uses only need the bytes.
 */
import { parseSpeechEventData } from '../events/SpeechEvent.js';
import { createSseParser } from '../sse/SseParser.js';

export interface EventAudioReader {
  /**
   * Parses the next body bytes; `onAudio` runs for each complete event that carries audio.
   * @throws the typed error of the first invalid event (SSE framing or speech event); after that
   * the reader is done and ignores what follows.
   */
  feed(chunk: Uint8Array): void;
  /** End of the body: an unfinished last event is dropped, as the engine drops it. */
  end(): void;
}

export function createEventAudioReader(onAudio: (audio: Buffer, eventIndex: number) => void): EventAudioReader {
  let index = 0;
  let failed = false;
  const parser = createSseParser({
    onEvent(e) {
      if (e.event !== 'message') return;
      const event = parseSpeechEventData(e.data, index);
      if (event.audio_base64 !== '') onAudio(Buffer.from(event.audio_base64, 'base64'), index);
      index++;
    },
  });
  return {
    feed(chunk) {
      if (failed) return;
      try {
        parser.feed(chunk);
      } catch (err) {
        failed = true;
        throw err;
      }
    },
    end() {
      if (!failed) parser.end();
    },
  };
}
