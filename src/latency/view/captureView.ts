/**
 * A captured SSE body (or what `say` spoke) as the viewer shows it: mono 16-bit audio, the final
 * word timeline with late and revised words marked, and where each chunk of the stream begins.
 * `analyzeCapture` runs the real engine over the bytes, so a capture of the wrong format fails
 * here with the engine's typed error.
 */
import { createSpeechPipeline } from '../../engine/SpeechPipeline.js';
import type { AudioFormat, AudioFrame } from '../../codec/types.js';
import type { WordEvent, WordRevision } from '../../play/WordClock.js';

/** Audio in the page is resampled down to this (a page of speech, not a master). */
export const VIEW_MAX_SAMPLE_RATE = 24_000;

export interface ViewWord {
  text: string;
  start: number;
  end: number;
  chunkSeq: number;
  /** Its timing arrived after its audio had been decoded. */
  late: boolean;
  /** A later event changed its timing or text. */
  revised: boolean;
}

export interface CaptureView {
  format: AudioFormat;
  sampleRate: number;
  /** Mono s16 samples. */
  samples: Int16Array;
  durationSec: number;
  words: ViewWord[];
  /** Stream seconds where each chunk (`chunk_seq`) begins, after the first. */
  chunkStarts: number[];
}

/** Collects s16 mono frames into one array, growing by doubling. */
export class SampleCollector {
  private buf = new Int16Array(1 << 16);
  private length = 0;

  /** Takes an s16 frame; stereo is mixed down to mono. */
  push(frame: AudioFrame): void {
    const s = frame.channels === 1 ? (frame.samples as Int16Array) : downmix(frame.samples as Int16Array, frame.channels);
    if (this.length + s.length > this.buf.length) {
      const next = new Int16Array(Math.max(this.buf.length * 2, this.length + s.length));
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
    }
    this.buf.set(s, this.length);
    this.length += s.length;
  }

  samples(): Int16Array {
    return this.buf.slice(0, this.length);
  }
}

function downmix(interleaved: Int16Array, channels: number): Int16Array {
  const out = new Int16Array(Math.floor(interleaved.length / channels));
  for (let i = 0; i < out.length; i++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += interleaved[i * channels + c]!;
    out[i] = Math.round(sum / channels);
  }
  return out;
}

/** Tracks late and revised words from a pipeline's events, for the final timeline. */
export class WordMarks {
  private readonly late = new Set<string>();
  private readonly revised = new Set<string>();

  word(w: WordEvent): void {
    if (w.late) this.late.add(`${w.chunkSeq}:${w.index}`);
  }

  revision(r: WordRevision): void {
    this.revised.add(`${r.old.chunkSeq}:${r.old.index}`);
  }

  /** The final timeline (as `alignment.timeline()` gives it) with the marks. */
  mark(timeline: ReadonlyArray<{ text: string; start: number; end: number; chunkSeq: number; index: number }>): ViewWord[] {
    return timeline.map((w) => {
      const key = `${w.chunkSeq}:${w.index}`;
      return { text: w.text, start: w.start, end: w.end, chunkSeq: w.chunkSeq, late: this.late.has(key), revised: this.revised.has(key) };
    });
  }
}

/** Chunk starts from the final timeline: the first word of each chunk after the first. */
export function chunkStartsOf(words: readonly ViewWord[]): number[] {
  const starts: number[] = [];
  for (let i = 1; i < words.length; i++) if (words[i]!.chunkSeq !== words[i - 1]!.chunkSeq) starts.push(words[i]!.start);
  return starts;
}

const BASE64_HEAD_CHARS = 16;

/**
 * The format of a capture from its first audio bytes (RIFF → wav, OggS → opus, an MPEG frame
 * sync or ID3 → mp3); null when they say nothing (raw pcm, or no audio).
 */
export function detectCaptureFormat(body: Uint8Array): AudioFormat | null {
  const text = Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, 1 << 20)).toString('latin1');
  const m = /"audio_base64"\s*:\s*"([A-Za-z0-9+/]{16})/.exec(text);
  if (!m) return null;
  const head = Buffer.from(m[1]!.slice(0, BASE64_HEAD_CHARS), 'base64');
  const ascii = head.subarray(0, 4).toString('latin1');
  if (ascii === 'RIFF') return 'wav';
  if (ascii === 'OggS') return 'opus';
  if (ascii.startsWith('ID3') || (head[0] === 0xff && (head[1]! & 0xe0) === 0xe0)) return 'mp3';
  return null;
}

/**
 * Builds a {@link CaptureView} from a stream being read elsewhere (`say --html`): feed it the s16
 * frames and the pipeline's word events, then ask for the view with the final timeline.
 */
export function createViewRecorder(format: AudioFormat): {
  frame(frame: AudioFrame): void;
  word(w: WordEvent): void;
  revision(r: WordRevision): void;
  view(timeline: Parameters<WordMarks['mark']>[0]): CaptureView;
} {
  const collector = new SampleCollector();
  const marks = new WordMarks();
  let rate = 0;
  return {
    frame(frame) {
      rate = frame.sampleRate;
      collector.push(frame);
    },
    word: (w) => marks.word(w),
    revision: (r) => marks.revision(r),
    view(timeline) {
      const samples = downsample(collector.samples(), rate);
      const words = marks.mark(timeline);
      return {
        format,
        sampleRate: samples.rate,
        samples: samples.data,
        durationSec: samples.rate > 0 ? samples.data.length / samples.rate : 0,
        words,
        chunkStarts: chunkStartsOf(words),
      };
    },
  };
}

export async function analyzeCapture(body: Uint8Array, format: AudioFormat, sampleRate?: number): Promise<CaptureView> {
  const pipeline = createSpeechPipeline({
    format,
    ...(sampleRate !== undefined ? { sampleRate } : {}),
    output: { encoding: 's16le', channels: 1 },
  });
  const recorder = createViewRecorder(format);
  pipeline.on('word', (w: WordEvent) => recorder.word(w));
  pipeline.on('wordRevised', (r: WordRevision) => recorder.revision(r));
  const done = new Promise<void>((resolve, reject) => {
    pipeline.on('data', (frame: AudioFrame) => recorder.frame(frame));
    pipeline.once('end', resolve);
    pipeline.once('error', reject);
  });
  pipeline.end(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  await done;
  return recorder.view(pipeline.alignment.timeline());
}

/** Keeps every k-th sample's block average so the page stays small (speech, for listening along). */
export function downsample(data: Int16Array, rate: number): { data: Int16Array; rate: number } {
  const k = Math.ceil(rate / VIEW_MAX_SAMPLE_RATE);
  if (k <= 1 || rate === 0) return { data, rate };
  const out = new Int16Array(Math.floor(data.length / k));
  for (let i = 0; i < out.length; i++) {
    let sum = 0;
    for (let j = 0; j < k; j++) sum += data[i * k + j]!;
    out[i] = Math.round(sum / k);
  }
  return { data: out, rate: rate / k };
}
