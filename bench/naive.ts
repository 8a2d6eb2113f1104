/**
 * The naive event stage the issue compares against: TextDecoder → eventsource-parser v3
 * `createParser` → JSON.parse → `Buffer.from(b64, 'base64')`. Written the way a user would write
 * it, with no validation beyond what those calls do.
 */
import { createParser } from 'eventsource-parser';

export interface NaiveStage {
  feed(chunk: Uint8Array): void;
  /** Decoded audio bytes so far (the sink, so nothing is optimised away). */
  readonly audioBytes: number;
  readonly events: number;
}

export interface NaiveStageOptions {
  /** Where each event's decoded audio goes (e.g. a prism-media demuxer); default: counted only. */
  onAudio?(audio: Buffer): void;
}

export function createNaiveStage(options: NaiveStageOptions = {}): NaiveStage {
  const decoder = new TextDecoder();
  let audioBytes = 0;
  let events = 0;
  let checksum = 0;
  const parser = createParser({
    onEvent(ev) {
      if (ev.event !== undefined && ev.event !== 'message') return;
      const json = JSON.parse(ev.data) as { audio_base64: string };
      const audio = Buffer.from(json.audio_base64, 'base64');
      audioBytes += audio.length;
      options.onAudio?.(audio);
      checksum ^= audio[0] ?? 0;
      events++;
    },
  });
  return {
    feed(chunk) {
      parser.feed(decoder.decode(chunk, { stream: true }));
    },
    get audioBytes() {
      return audioBytes + (checksum & 0);
    },
    get events() {
      return events;
    },
  };
}
