/**
 * The playhead between coarse acknowledgements: on a provider whose acknowledgement can only
 * follow a whole media message longer than a frame (Exotel's 3.2 KB batches, 200 ms at 8 kHz),
 * acknowledgements alone would move the playhead, and fire words, up to one message late. This
 * stage moves it with the clock in between, by one rule:
 *
 * - An acknowledgement says the phone has played everything sent before its request, at the
 *   moment it arrives. If more audio had been sent by then, the phone is playing it from that
 *   moment (one playhead, no gap while audio is buffered), so the playhead runs on with the
 *   clock from there.
 * - When every request sent so far has been acknowledged, the phone has nothing left: the next
 *   media message starts playing when it is sent.
 * - It never runs past the audio of the next request still waiting for its acknowledgement (nor
 *   past what was sent when it started running): if that acknowledgement is late, the playhead
 *   waits for it. Each acknowledgement re-anchors it; it never moves back.
 *
 * Anchored on an acknowledgement, the estimate trails the phone by the acknowledgement's network
 * delay (it only ever reports audio already played). Anchored on a send to an idle phone, it is
 * ahead of the phone by the one-way delay until that message's acknowledgement re-anchors it: at
 * most one message at the start of an utterance or after an underrun.
 *
 * It sees the wire order of media and requests by wrapping the adapter's message builders (what
 * the adapter builds is sent at once, in order), and moves the utterance's playhead through
 * {@link Utterance.advancePlayhead}, so words fire from its clock timer as the phone reaches them.
 */
import type { TelephonyClock } from './clock.js';
import type { SpeechWord } from './speechSource.js';
import { bytesPerSample, MULAW_8K, samplesPerMs, type LineFormat } from './lineFormat.js';
import type { OutboundAdapter } from './OutboundMedia.js';
import { MARK_PREFIX, wordMarkSample, type Utterance } from './Utterance.js';

/** Float slack when a clock time is turned into whole samples played (as the phone counts them). */
const SAMPLE_EPSILON = 1e-9;
const NO_WORDS: readonly SpeechWord[] = [];

export class ClockedPlayhead {
  private line: LineFormat = MULAW_8K;
  private utterance: Utterance | null = null;
  /** Line samples given to the phone on this call (media messages built). */
  private delivered = 0;
  /** `delivered` when the current utterance began (the batcher holds nothing then). */
  private base = 0;
  /** Request name → `delivered` when it was built. */
  private readonly coverage = new Map<string, number>();
  /** Utterance samples the latest acknowledgement covered. */
  private acked = 0;
  /** Everything sent has been acknowledged: the next media starts playing when sent. */
  private idle = true;
  /** Where the running playhead was (utterance samples) at `anchorTime`; NaN time: not running. */
  private anchorSample = 0;
  private anchorTime = Number.NaN;
  /** The running playhead stops here (utterance samples). */
  private bound = 0;
  private timer: unknown = null;
  /** The first word of the timeline the playhead may not have reached. */
  private wordCursor = 0;

  constructor(private readonly clock: TelephonyClock) {}

  /** The stream started on `format`. */
  setLine(format: LineFormat): void {
    this.line = format;
  }

  /** The adapter's builders, noting each media message and acknowledgement request as it is built. */
  wrap(adapter: OutboundAdapter): OutboundAdapter {
    return {
      chunking: (format) => adapter.chunking(format),
      media: (audio) => {
        this.onMedia(audio.length / bytesPerSample(this.line));
        return adapter.media(audio);
      },
      ackRequest: (name) => {
        if (name.startsWith(MARK_PREFIX)) this.coverage.set(name, this.delivered);
        return adapter.ackRequest(name);
      },
      clear: () => adapter.clear(),
    };
  }

  /** `utterance` is being spoken from now on (the phone holds nothing of an earlier one). */
  begin(utterance: Utterance): void {
    this.end();
    this.utterance = utterance;
    this.base = this.delivered;
  }

  /** The utterance is over (completed, cleared or aborted): nothing more moves its playhead. */
  end(): void {
    this.cancelTimer();
    this.utterance = null;
    this.coverage.clear();
    this.acked = 0;
    this.idle = true;
    this.anchorTime = Number.NaN;
    this.wordCursor = 0;
  }

  /**
   * The acknowledgement `name` came back: moves the playhead to the end of the audio its request
   * followed, and runs it on from there if more audio was sent. Words it reaches fire (their
   * handlers may end the utterance).
   */
  onAck(name: string): void {
    const covered = this.coverage.get(name);
    const utterance = this.utterance;
    if (covered === undefined || utterance === null) return;
    this.coverage.delete(name);
    const at = covered - this.base;
    if (at <= this.acked && at > 0) return; // nothing new: an earlier one covered as much
    this.acked = at;
    const sent = this.delivered - this.base;
    if (sent > this.acked) this.anchor(this.acked, sent);
    else {
      this.idle = true;
      this.anchorTime = Number.NaN;
    }
    this.cancelTimer();
    utterance.advancePlayhead(Math.min(this.acked, utterance.sentSamples));
    if (this.utterance === utterance) this.schedule();
  }

  /** Moves the playhead to where the phone is now (before a clear). Words it reaches fire. */
  sync(): void {
    const utterance = this.utterance;
    if (utterance === null) return;
    const now = this.estimate(this.clock.now());
    if (now > utterance.playedSamples) utterance.advancePlayhead(Math.min(now, utterance.sentSamples));
  }

  private onMedia(samples: number): void {
    const utterance = this.utterance;
    const before = this.delivered - this.base;
    this.delivered += samples;
    if (utterance === null || !this.idle) return;
    this.anchor(before, before + samples); // an idle phone starts this at once
    this.schedule();
  }

  /** The playhead is at `sample` now and runs on, up to `sent` and the next waiting request. */
  private anchor(sample: number, sent: number): void {
    this.idle = false;
    this.anchorSample = sample;
    this.anchorTime = this.clock.now();
    let bound = sent;
    for (const c of this.coverage.values()) {
      const at = c - this.base;
      if (at > sample && at < bound) bound = at;
    }
    this.bound = bound;
  }

  /** The running playhead at clock time `t` (utterance samples), or -1 when it is not running. */
  private estimate(t: number): number {
    if (Number.isNaN(this.anchorTime)) return -1;
    const ran = Math.floor(Math.max(0, t - this.anchorTime) * samplesPerMs(this.line) + SAMPLE_EPSILON);
    return Math.min(this.bound, this.anchorSample + ran);
  }

  /** One timer, for when the running playhead reaches the next word (no timer for none). */
  private schedule(): void {
    this.cancelTimer();
    const utterance = this.utterance;
    if (utterance === null || Number.isNaN(this.anchorTime)) return;
    const rate = this.line.sampleRate;
    const played = utterance.playedSamples;
    const words = utterance.stream?.alignment?.timeline() ?? NO_WORDS;
    if (this.wordCursor > words.length) this.wordCursor = 0; // timeline revised shorter
    while (this.wordCursor < words.length && wordMarkSample(words[this.wordCursor]!.start, rate) <= played) this.wordCursor++;
    if (this.wordCursor >= words.length) return;
    const target = wordMarkSample(words[this.wordCursor]!.start, rate);
    if (target > this.bound || target > utterance.sentSamples) return;
    const due = this.anchorTime + (target - this.anchorSample) / samplesPerMs(this.line);
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      if (this.utterance !== utterance) return;
      utterance.advancePlayhead(Math.max(target, Math.min(this.estimate(this.clock.now()), utterance.sentSamples)));
      if (this.utterance === utterance) this.schedule();
    }, due - this.clock.now());
  }

  private cancelTimer(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }
}
