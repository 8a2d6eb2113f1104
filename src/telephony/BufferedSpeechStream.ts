/**
 * Pre-rendered μ-law (a cached prompt, hold music, a recorded greeting) as a {@link SpeechStream}:
 * it plays through the same marks, playhead and barge-in machinery as synthesized speech, and its
 * words (if given) fire when the caller hears them.
 */
import { Readable } from 'node:stream';
import type { AudioFrame } from '../codec/types.js';
import { InvalidOptionError } from '../errors.js';
import { TELEPHONY_FRAME_MS, type SpeechSource, type SpeechStream, type SpeechWord } from './speechSource.js';
import { TWILIO_SAMPLE_RATE } from './twilioMessages.js';

const MS_PER_SECOND = 1000;
const FRAME_SAMPLES = (TWILIO_SAMPLE_RATE * TELEPHONY_FRAME_MS) / MS_PER_SECOND;
const READ_AHEAD_FRAMES = 4;

export class BufferedSpeechStream extends Readable implements SpeechStream {
  readonly playhead = { advanceTo: (sample: number): void => this.advanceTo(sample) };
  readonly alignment: { timeline(): readonly SpeechWord[] };
  readonly alignmentFinal = true;
  private offset = 0;
  private position = 0;
  private nextWord = 0;

  /** `mulaw`: headerless μ-law 8 kHz mono (not copied: frames are views of it). */
  constructor(
    private readonly mulaw: Uint8Array,
    private readonly words: readonly SpeechWord[] = [],
    signal?: AbortSignal,
  ) {
    super({ objectMode: true, highWaterMark: READ_AHEAD_FRAMES });
    this.alignment = { timeline: () => this.words };
    if (signal !== undefined) {
      if (signal.aborted) queueMicrotask(() => this.destroy());
      else signal.addEventListener('abort', () => this.destroy(), { once: true });
    }
  }

  override _read(): void {
    if (this.offset >= this.mulaw.length) {
      this.push(null);
      return;
    }
    const n = Math.min(FRAME_SAMPLES, this.mulaw.length - this.offset);
    const frame: AudioFrame = {
      samples: this.mulaw.subarray(this.offset, this.offset + n),
      encoding: 'mulaw',
      sampleRate: TWILIO_SAMPLE_RATE,
      channels: 1,
      startSample: this.offset,
      sampleCount: n,
    };
    this.offset += n;
    this.push(frame);
  }

  private advanceTo(sample: number): void {
    if (sample <= this.position) return;
    this.position = sample;
    const seconds = sample / TWILIO_SAMPLE_RATE;
    while (this.nextWord < this.words.length && this.words[this.nextWord]!.start < seconds) {
      const w = this.words[this.nextWord]!;
      this.emit('word', { text: w.text, start: w.start, end: w.end, index: this.nextWord, late: false });
      this.nextWord++;
    }
  }
}

/**
 * A source that plays pre-rendered prompts by text, falling back to `fallback` (e.g. the client
 * source) for anything else.
 */
export function createPromptSpeechSource(
  prompts: ReadonlyMap<string, { mulaw: Uint8Array; words?: readonly SpeechWord[] }>,
  fallback?: SpeechSource,
): SpeechSource {
  return async (request, context) => {
    const prompt = prompts.get(request.text);
    if (prompt !== undefined) return new BufferedSpeechStream(prompt.mulaw, prompt.words ?? [], context.signal);
    if (fallback === undefined)
      throw new InvalidOptionError('text', `no prompt for ${JSON.stringify(request.text.slice(0, 40))} and no fallback source`);
    return fallback(request, context);
  };
}
