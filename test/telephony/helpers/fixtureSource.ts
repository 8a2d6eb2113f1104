/**
 * A speech source over committed real speech (μ-law 8 kHz, made with espeak-ng + sox) and its
 * word timeline, with the same external-playhead contract as the engine's pipeline: `word` fires
 * when `playhead.advanceTo()` passes a word's start (`start < position`).
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { AudioFrame } from '../../../src/codec/types.js';
import type { SpeechSource, SpeechStream, SpeechWord } from '../../../src/telephony/speechSource.js';

const FIXTURE_DIR = new URL('../../fixtures/telephony/', import.meta.url);
const RATE = 8000;
const FRAME_SAMPLES = 160;

export const greeting = {
  mulaw: new Uint8Array(readFileSync(new URL('greeting.ulaw', FIXTURE_DIR))),
  ...(JSON.parse(readFileSync(new URL('greeting.words.json', FIXTURE_DIR), 'utf8')) as { text: string; words: SpeechWord[] }),
};

export interface FixtureOptions {
  mulaw?: Uint8Array;
  words?: SpeechWord[];
  /** Fail with this error after N frames. */
  failAfterFrames?: number;
  failWith?: Error;
  /** Frames in another format (to check the bridge refuses them). */
  encoding?: AudioFrame['encoding'];
  /** The timeline only shows words ending this many ms before the audio read so far (late alignment). */
  alignmentLagMs?: number;
  sampleRate?: number;
}

export class FixtureSpeechStream extends Readable implements SpeechStream {
  framesRead = 0;
  position = 0;
  aborted = false;
  private emitted = 0;
  private offset = 0;
  readonly playhead = { advanceTo: (sample: number): void => this.advanceTo(sample) };
  readonly alignment: { timeline(): readonly SpeechWord[] };

  constructor(
    private readonly opts: Required<Pick<FixtureOptions, 'mulaw' | 'words'>> & FixtureOptions,
    signal?: AbortSignal,
  ) {
    super({ objectMode: true, highWaterMark: 4 });
    const words = opts.words;
    const lag = opts.alignmentLagMs;
    this.alignment = {
      timeline: () => (lag === undefined ? words : words.filter((w) => w.end <= this.offset / RATE - lag / 1000)),
    };
    signal?.addEventListener(
      'abort',
      () => {
        this.aborted = true;
        this.destroy();
      },
      { once: true },
    );
  }

  override _read(): void {
    const bytes = this.opts.mulaw;
    if (this.opts.failAfterFrames !== undefined && this.framesRead >= this.opts.failAfterFrames) {
      this.destroy(this.opts.failWith ?? new Error('source failed'));
      return;
    }
    if (this.offset >= bytes.length) {
      this.push(null);
      return;
    }
    const n = Math.min(FRAME_SAMPLES, bytes.length - this.offset);
    const frame: AudioFrame = {
      samples: bytes.slice(this.offset, this.offset + n),
      encoding: this.opts.encoding ?? 'mulaw',
      sampleRate: this.opts.sampleRate ?? RATE,
      channels: 1,
      startSample: this.offset,
      sampleCount: n,
    };
    this.offset += n;
    this.framesRead++;
    this.push(frame);
  }

  private advanceTo(sample: number): void {
    if (sample <= this.position) return;
    this.position = sample;
    const words = this.opts.words;
    while (this.emitted < words.length && words[this.emitted]!.start < sample / RATE) {
      const w = words[this.emitted]!;
      this.emit('word', { ...w, index: this.emitted, chunkSeq: 0, late: false });
      this.emitted++;
    }
  }
}

/** A source that records every stream it made. */
export function fixtureSource(options: FixtureOptions = {}): SpeechSource & { streams: FixtureSpeechStream[]; requests: unknown[] } {
  const streams: FixtureSpeechStream[] = [];
  const requests: unknown[] = [];
  const source = async (request: unknown, ctx: { signal: AbortSignal }): Promise<SpeechStream> => {
    requests.push(request);
    const s = new FixtureSpeechStream({ mulaw: greeting.mulaw, words: greeting.words, ...options }, ctx.signal);
    streams.push(s);
    return s;
  };
  return Object.assign(source, { streams, requests });
}
