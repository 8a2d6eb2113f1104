/**
 * One utterance on a call: reads frames in the line's format from its speech source, decides where marks go
 * (exactly at known word starts, split inside a frame if need be, plus every N frames and at the
 * end), and moves the source's playhead only when a mark comes back played. It never touches the
 * socket or the clock: the call hands it a sink and decides when to send.
 */
import type { AudioFrame } from '../codec/types.js';
import { TelephonyError, VoicewireError } from '../errors.js';
import type { TtsRequest } from '../protocol/ttsRequest.js';
import type { SpeechStream, SpeechWord, SpeechWordEvent } from './speechSource.js';
import { bytesPerSample, describeLineFormat, frameEncodingFor, frameLineBytes, MULAW_8K, type LineFormat } from './lineFormat.js';

/** Prefix of every mark name the bridge sends; echoes of other names belong to the user. */
export const MARK_PREFIX = 'vw:';

export interface UtteranceSink {
  /** Line bytes (μ-law, A-law or L16 in the line's byte order). */
  sendMedia(audio: Uint8Array): void;
  sendMark(name: string): void;
}

export interface UtteranceMarkOptions {
  /** A mark after every N frames, so the playhead moves even between words. */
  markEveryFrames: number;
  /** Marks exactly at each known word start. */
  wordMarks: boolean;
}

export type UtteranceStatus = 'completed' | 'interrupted' | 'aborted' | 'failed' | 'cancelled';

/** What became of an utterance, from what the caller actually heard (mark echoes). */
export interface UtteranceResult {
  id: number;
  status: UtteranceStatus;
  /** Words whose start the caller heard, joined by spaces. */
  heardText: string;
  heard: SpeechWord[];
  /** Known words the caller never heard (cleared, or never sent). */
  cut: SpeechWord[];
  /** Seconds of this utterance the caller heard (the playhead). */
  playedSec: number;
  /** Seconds of audio sent to the phone. */
  sentSec: number;
  error?: VoicewireError;
}

interface PendingMark {
  sample: number;
  end: boolean;
}

/**
 * Where the mark for a word starting at `sec` goes: just after the sample holding its start. The
 * engine's word clock counts a word as reached when `start < position`, so advancing the playhead
 * here fires it, and not a sample earlier.
 */
export function wordMarkSample(sec: number, sampleRate: number = MULAW_8K.sampleRate): number {
  return Math.floor(sec * sampleRate) + 1;
}

/**
 * A source that hands out frames without the Readable's per-frame buffering (SpeechPipeline's
 * `readFrame()`, with `read()`'s contract: null, then `'readable'` once a frame is ready).
 */
interface FramePuller {
  readFrame(): AudioFrame | null;
}

function canPull(stream: SpeechStream): stream is SpeechStream & FramePuller {
  return typeof (stream as Partial<FramePuller>).readFrame === 'function';
}

function reached(word: SpeechWord, playedSamples: number, sampleRate: number): boolean {
  return word.start < playedSamples / sampleRate;
}

export class Utterance {
  stream: SpeechStream | null = null;
  /** No more frames will come (the stream ended or failed). */
  sourceDone = false;
  error: VoicewireError | undefined;
  sentSamples = 0;
  playedSamples = 0;
  /** The end mark has been sent: waiting for it to come back played. */
  endMarkSent = false;
  readonly heard: SpeechWordEvent[] = [];
  private readonly marks = new Map<string, PendingMark>();
  private markSeq = 0;
  private framesSent = 0;
  private lastMarkSample = -1;
  private wordCursor = 0;
  private detachStream: (() => void) | null = null;
  /**
   * Takes the next frame from the stream: `readFrame()` when the stream has it (the engine's
   * pull API: no push, buffer shift and queued tick per 20 ms frame; native-notes/
   * engine-performance.md, tenth and eleventh passes), else `read()`.
   */
  private take: () => AudioFrame | null = () => null;
  readonly abort = new AbortController();
  readonly markPrefix: string;

  constructor(
    readonly id: number,
    readonly request: TtsRequest,
    private readonly options: UtteranceMarkOptions,
    readonly settle: (result: UtteranceResult) => void,
    /** The line's format: what frames must be, and the rate every sample count is at. */
    readonly line: LineFormat = MULAW_8K,
  ) {
    this.markPrefix = `${MARK_PREFIX}${id}:`;
  }

  /**
   * Wires the stream. `wake` is called whenever frames, the end or an error may be available;
   * `word` when the playhead reaches a word; `warning` for the source's non-fatal faults.
   */
  attach(stream: SpeechStream, on: { wake(): void; word(w: SpeechWordEvent): void; warning(w: VoicewireError): void }): void {
    this.stream = stream;
    this.take = canPull(stream) ? () => stream.readFrame() : () => stream.read() as AudioFrame | null;
    const wake = (): void => on.wake();
    const onWarning = (w: VoicewireError): void => on.warning(w);
    const onReadable = (): void => wake();
    const onEnd = (): void => {
      this.sourceDone = true;
      wake();
    };
    const onError = (err: unknown): void => {
      this.fail(err);
      wake();
    };
    const onWordEvent = (w: SpeechWordEvent): void => {
      this.heard.push(w);
      on.word(w);
    };
    stream.on('readable', onReadable);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('word', onWordEvent);
    stream.on('warning', onWarning);
    this.detachStream = () => {
      stream.off('warning', onWarning);
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('word', onWordEvent);
      // Keep a no-op error listener: a destroyed stream may still emit one late.
      stream.off('error', onError);
      stream.on('error', noop);
    };
  }

  fail(err: unknown): void {
    if (this.error === undefined) {
      this.error =
        err instanceof VoicewireError
          ? err
          : new TelephonyError('TELEPHONY_PROTOCOL', `speech source failed: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    }
    this.sourceDone = true;
  }

  /** The next frame, or null when none is ready. A frame in the wrong format fails the utterance. */
  nextFrame(): AudioFrame | null {
    const stream = this.stream;
    if (stream === null || this.sourceDone) return null;
    const frame = this.take();
    if (frame === null) return null;
    const line = this.line;
    if ((frame.encoding as string) !== frameEncodingFor(line) || frame.sampleRate !== line.sampleRate || frame.channels !== 1) {
      const needs = line.encoding === 'mulaw' ? 'mulaw 8000 Hz mono' : `${frameEncodingFor(line)} frames for ${describeLineFormat(line)}`;
      this.fail(
        new TelephonyError(
          'FORMAT_MISMATCH',
          `speech source gave ${frame.encoding} ${frame.sampleRate} Hz ×${frame.channels}; a phone line needs ${needs}`,
          { field: 'frame.encoding' },
        ),
      );
      return null;
    }
    return frame;
  }

  /** Sends one frame, split at known word starts with a mark at each; returns its samples. */
  sendFrame(frame: AudioFrame, sink: UtteranceSink): number {
    const bytes = frameLineBytes(frame, this.line);
    const bps = bytesPerSample(this.line);
    const rate = this.line.sampleRate;
    const n = Math.min(frame.sampleCount, Math.floor(bytes.length / bps));
    const a = this.sentSamples;
    const b = a + n;
    let cur = a;
    let uncovered = false;
    if (this.options.wordMarks) {
      const words = this.stream?.alignment?.timeline() ?? NO_WORDS;
      // Audio past the last known word may hold words whose timing has not arrived yet: mark
      // each such frame, so a late word is still heard within one frame.
      const last = words[words.length - 1];
      uncovered = this.stream?.alignmentFinal !== true && (last === undefined || wordMarkSample(last.end, rate) < b);
      if (this.wordCursor > words.length) this.wordCursor = 0; // timeline revised shorter
      while (this.wordCursor < words.length) {
        const p = wordMarkSample(words[this.wordCursor]!.start, rate);
        if (p > b) break;
        this.wordCursor++;
        if (p < cur || p <= this.lastMarkSample) continue; // already sent: a later mark covers it
        if (p > cur) sink.sendMedia(bytes.subarray((cur - a) * bps, (p - a) * bps));
        cur = p;
        this.mark(sink, p, false);
      }
    }
    if (cur < b) sink.sendMedia(bytes.subarray((cur - a) * bps, n * bps));
    this.sentSamples = b;
    this.framesSent++;
    const every = this.options.markEveryFrames;
    if ((uncovered || (every > 0 && this.framesSent % every === 0)) && this.lastMarkSample !== b) {
      this.mark(sink, b, false);
    }
    return n;
  }

  /** All audio is sent: one last mark, whose echo means the caller heard everything. */
  sendEndMark(sink: UtteranceSink): void {
    this.endMarkSent = true;
    this.mark(sink, this.sentSamples, true);
  }

  private mark(sink: UtteranceSink, sample: number, end: boolean): void {
    const name = `${this.markPrefix}${this.markSeq++}`;
    this.marks.set(name, { sample, end });
    this.lastMarkSample = sample;
    sink.sendMark(name);
  }

  /**
   * A mark of this utterance came back played: move the playhead there (the source emits the
   * words it reaches). Returns true when it was the end mark.
   */
  onMarkPlayed(name: string): boolean {
    const mark = this.marks.get(name);
    if (mark === undefined) return false;
    this.marks.delete(name);
    this.advancePlayhead(mark.sample);
    return mark.end;
  }

  /**
   * The phone has played up to `sample` (never moves back): the source emits the words it
   * reaches. Acknowledgements move it; so does the clock between coarse ones (`ClockedPlayhead`).
   */
  advancePlayhead(sample: number): void {
    if (sample <= this.playedSamples) return;
    this.playedSamples = sample;
    this.stream?.playhead.advanceTo(sample);
  }

  /** Samples sent that no echo has confirmed yet. */
  get unacknowledgedSamples(): number {
    return this.sentSamples - this.playedSamples;
  }

  /**
   * Stops everything: later echoes are ignored (marks returned by a `clear` are cleared, not
   * played), synthesis and the network read are aborted, the stream is destroyed.
   */
  dispose(): void {
    this.marks.clear();
    this.detachStream?.();
    this.detachStream = null;
    // A source that ended cleanly has nothing left to stop; anything else is cut off here.
    const endedCleanly = this.sourceDone && this.error === undefined;
    if (!endedCleanly && !this.abort.signal.aborted) this.abort.abort();
    if (this.stream !== null && !this.stream.destroyed) this.stream.destroy();
  }

  /** What the caller heard: the words the playhead reached, and the known words it did not. */
  result(status: UtteranceStatus): UtteranceResult {
    const played = this.playedSamples;
    const rate = this.line.sampleRate;
    const heard = this.heard
      .filter((w) => reached(w, played, rate))
      .map(({ text, start, end }) => ({ text, start, end }))
      .sort((x, y) => x.start - y.start);
    const timeline = this.stream?.alignment?.timeline() ?? NO_WORDS;
    const cut = timeline.filter((w) => !reached(w, played, rate)).map(({ text, start, end }) => ({ text, start, end }));
    const result: UtteranceResult = {
      id: this.id,
      status,
      heardText: heard.map((w) => w.text).join(' '),
      heard,
      cut,
      playedSec: played / rate,
      sentSec: this.sentSamples / rate,
    };
    if (this.error !== undefined) result.error = this.error;
    return result;
  }
}

/**
 * The result of an utterance that never reached the phone (dropped from the queue, or refused
 * by `speak()`): nothing was sent or heard, and no words are known to be cut.
 */
export function unspokenResult(id: number, status: UtteranceStatus, error?: VoicewireError): UtteranceResult {
  const r: UtteranceResult = { id, status, heardText: '', heard: [], cut: [], playedSec: 0, sentSec: 0 };
  if (error !== undefined) r.error = error;
  return r;
}

const NO_WORDS: readonly SpeechWord[] = [];
function noop(): void {}
