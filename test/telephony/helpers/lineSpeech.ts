/**
 * The committed greeting (real speech, μ-law 8 kHz, with its word timeline) in any line format a
 * test needs: μ-law 8 kHz as committed, or decoded to s16 at 8 kHz or 16 kHz (each sample
 * repeated: the same speech, the same word times). A speech source over it with the external
 * playhead contract (`word` fires when `advanceTo()` passes a word's start).
 */
import { Readable } from 'node:stream';
import type { AudioFrame } from '../../../src/codec/types.js';
import { alawEncode } from '../../../src/dsp/alaw.js';
import { mulawDecode } from '../../../src/dsp/mulaw.js';
import type { LineFormat } from '../../../src/telephony/lineFormat.js';
import type { SpeechSource, SpeechSourceContext, SpeechStream, SpeechWord } from '../../../src/telephony/speechSource.js';
import { greeting } from './fixtureSource.js';

const FRAME_MS = 20;
const GREETING_RATE = 8000;

/** The greeting's samples for `format`: μ-law or A-law codes at 8 kHz, or s16 at the line rate. */
export function greetingSamples(format: LineFormat): Uint8Array | Int16Array {
  if (format.encoding === 'mulaw' && format.sampleRate === GREETING_RATE) return greeting.mulaw;
  if (format.encoding === 'alaw' && format.sampleRate === GREETING_RATE) return alawEncode(mulawDecode(greeting.mulaw));
  if (format.encoding !== 'l16') throw new Error(`no greeting in ${format.encoding} at ${format.sampleRate} Hz`);
  const pcm8 = mulawDecode(greeting.mulaw);
  const factor = format.sampleRate / GREETING_RATE;
  const out = new Int16Array(pcm8.length * factor);
  for (let i = 0; i < out.length; i++) out[i] = pcm8[Math.floor(i / factor)]!;
  return out;
}

export class LineSpeechStream extends Readable implements SpeechStream {
  position = 0;
  aborted = false;
  private offset = 0;
  private emitted = 0;
  readonly playhead = { advanceTo: (sample: number): void => this.advanceTo(sample) };
  readonly alignment: { timeline(): readonly SpeechWord[] };
  readonly alignmentFinal = true;

  constructor(
    private readonly samples: Uint8Array | Int16Array,
    private readonly rate: number,
    private readonly words: readonly SpeechWord[],
    signal: AbortSignal,
    /** The frames' encoding: the G.711 law of the codes, or s16le. */
    private readonly encoding: 'mulaw' | 'alaw' | 's16le' = samples instanceof Int16Array ? 's16le' : 'mulaw',
  ) {
    super({ objectMode: true, highWaterMark: 4 });
    this.alignment = { timeline: () => this.words };
    signal.addEventListener(
      'abort',
      () => {
        this.aborted = true;
        this.destroy();
      },
      { once: true },
    );
  }

  override _read(): void {
    if (this.offset >= this.samples.length) {
      this.push(null);
      return;
    }
    const n = Math.min((this.rate * FRAME_MS) / 1000, this.samples.length - this.offset);
    const frame: AudioFrame = {
      samples: this.samples.slice(this.offset, this.offset + n),
      encoding: this.encoding,
      sampleRate: this.rate,
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
    while (this.emitted < this.words.length && this.words[this.emitted]!.start < sample / this.rate) {
      const w = this.words[this.emitted]!;
      this.emit('word', { ...w, index: this.emitted, late: false });
      this.emitted++;
    }
  }
}

/** A source that speaks the greeting in whatever format the call asks for, recording each ask. */
export function lineGreetingSource(): SpeechSource & { streams: LineSpeechStream[]; contexts: SpeechSourceContext[] } {
  const streams: LineSpeechStream[] = [];
  const contexts: SpeechSourceContext[] = [];
  const source: SpeechSource = async (_request, context) => {
    contexts.push(context);
    const format = context.format!;
    const samples = greetingSamples(format);
    const encoding = format.encoding === 'alaw' ? 'alaw' : samples instanceof Int16Array ? 's16le' : 'mulaw';
    const s = new LineSpeechStream(samples, format.sampleRate, greeting.words, context.signal, encoding);
    streams.push(s);
    return s;
  };
  return Object.assign(source, { streams, contexts });
}
