/**
 * Everything a call writes to its provider, and when: the current utterance's frames and
 * acknowledgement requests paced against the phone's estimated buffer, `clear`, and the user's
 * own marks. Provider-neutral: the adapter builds the messages, {@link MediaBatcher} cuts the
 * media to the provider's sizes, and every duration is counted at the line's sample rate.
 *
 * Three things may hold sending back, and each one wakes the pump when it lets go: the pacer's
 * timer (the phone has enough buffered), the socket (too much queued: its send callback), and the
 * unechoed bound (an acknowledgement, through the call). The call owns which utterance is
 * current; this owns the socket's write side, so "send now" is decided in one place
 * ({@link OutboundMedia.pumpOnce}).
 */
import type { ResolvedCallOptions } from './callOptions.js';
import type { MediaSocket } from './mediaSocket.js';
import type { TwilioCallStats } from './callTypes.js';
import { bytesPerSample, MULAW_8K, samplesPerMs, silenceByte, type LineFormat } from './lineFormat.js';
import { MediaBatcher } from './MediaBatcher.js';
import { type ProviderAdapter, type ProviderMessage } from './providerAdapter.js';
import { SendPacer } from './SendPacer.js';
import { TELEPHONY_FRAME_MS } from './speechSource.js';
import type { Utterance, UtteranceSink } from './Utterance.js';

/** The part of a provider adapter that writes (none of it depends on the provider's start type). */
export type OutboundAdapter = Pick<ProviderAdapter<unknown>, 'chunking' | 'media' | 'ackRequest' | 'clear'>;

/** `WebSocket.OPEN`, without importing `ws` as a value. */
export const WS_OPEN = 1;

export class OutboundMedia {
  readonly stats: TwilioCallStats;
  private readonly pacer: SendPacer;
  private socketBlocked = false;
  private pumping = false;
  private repump = false;
  private line: LineFormat = MULAW_8K;
  private batcher: MediaBatcher;
  /** The unacknowledged audio that pauses sending, in line samples. */
  private maxUnacknowledgedSamples = 0;
  /** Bytes the batcher let out during the current frame (what the pacer counts). */
  private released = 0;
  /** What an utterance writes through: batched, counted, then built by the adapter. */
  private readonly sink: UtteranceSink;
  /** Barge-in holds new media back (the caller may be speaking); nothing is dropped. */
  private held = false;
  /** Clock time the media going out now starts playing (set around each send). */
  private playAt = 0;
  /** Told each piece of media sent and the clock time the phone starts playing it (barge-in's echo reference). */
  onPlayed: ((audio: Uint8Array, playAt: number) => void) | null = null;

  /** `current` is the utterance being spoken, or null when the call is not speaking. */
  constructor(
    private readonly socket: MediaSocket,
    private readonly adapter: OutboundAdapter,
    private readonly config: ResolvedCallOptions,
    private readonly current: () => Utterance | null,
  ) {
    this.pacer = new SendPacer(config.clock, config.leadMs, () => this.pump());
    this.stats = {
      mediaMessages: 0,
      markMessages: 0,
      mediaBytes: 0,
      lateness: this.pacer.lateness,
      socketPauses: 0,
      maxUnacknowledgedMs: 0,
    };
    this.batcher = this.makeBatcher();
    this.sink = {
      sendMedia: (audio) => {
        this.released += this.batcher.push(audio);
      },
      sendMark: (name) => this.batcher.ack(name, true),
    };
  }

  /** The stream started on `format`: durations are counted at its rate, media cut to its sizes. */
  setLine(format: LineFormat): void {
    this.line = format;
    this.batcher = this.makeBatcher();
  }

  /** Sends a mark that is not an utterance's (not counted in the stats). */
  sendMark(name: string): void {
    this.batcher.ack(name, false);
  }

  /** Sends `clear`: the phone drops what it buffered, so pacing starts again from nothing. */
  clear(): void {
    const userMarks = this.batcher.drop();
    this.send(this.adapter.clear());
    for (const name of userMarks) this.send(this.adapter.ackRequest(name));
    this.pacer.reset();
  }

  /** Whether new media is held back. */
  get isHeld(): boolean {
    return this.held;
  }

  /**
   * Holds new media back at once (the phone plays out only its buffered lead), or lets it go
   * again: the next frame sent is the first one not sent, so no audio is lost or repeated.
   * `wake` false: release without sending (the utterance is ending).
   */
  hold(held: boolean, wake = true): void {
    if (this.held === held) return;
    this.held = held;
    if (held) this.pacer.cancel();
    else if (wake) this.pump();
  }

  /** The phone has played everything (the end mark came back): re-anchor the pacing on the truth. */
  playedOut(): void {
    this.pacer.anchor(this.config.clock.now());
  }

  /** The utterance being paced is gone (or the call is): no timer may wake the pump for it. */
  cancelPacing(): void {
    this.pacer.cancel();
  }

  /**
   * Sends what is due: frames go out while the phone's estimated buffer is under the lead, so
   * the schedule is absolute (`playEnd` grows by each frame's exact duration) and never drifts.
   * A wake-up that arrives during a pass makes one more pass instead of nesting.
   */
  pump(): void {
    if (this.pumping) {
      this.repump = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.repump = false;
        this.pumpOnce();
      } while (this.repump);
    } finally {
      this.pumping = false;
    }
  }

  private makeBatcher(): MediaBatcher {
    const chunking = this.adapter.chunking(this.line);
    // Never below the lead plus a batch (or a frame), or pacing itself would stall.
    const batchMs = this.bytesToMs(Math.max(chunking.minBatchBytes, chunking.quantumBytes));
    this.maxUnacknowledgedSamples =
      Math.max(this.config.maxUnacknowledgedMs, this.config.leadMs + batchMs + TELEPHONY_FRAME_MS) * samplesPerMs(this.line);
    return new MediaBatcher(chunking, {
      media: (audio) => {
        this.stats.mediaMessages++;
        this.stats.mediaBytes += audio.length;
        if (this.onPlayed !== null) {
          this.onPlayed(audio, this.playAt);
          this.playAt += this.bytesToMs(audio.length);
        }
        this.send(this.adapter.media(audio));
      },
      ack: (name, counted) => {
        if (counted) this.stats.markMessages++;
        this.send(this.adapter.ackRequest(name));
      },
    });
  }

  /** Line bytes → milliseconds of audio. */
  private bytesToMs(bytes: number): number {
    return bytes / bytesPerSample(this.line) / samplesPerMs(this.line);
  }

  /** The one place that decides whether the next frame goes out now. */
  private pumpOnce(): void {
    const utterance = this.current();
    if (utterance === null) return;
    if (utterance.stream === null) return; // still starting
    const perMs = samplesPerMs(this.line);
    for (;;) {
      if (this.current() !== utterance) return;
      if (this.socket.bufferedAmount > this.config.maxSocketBufferedBytes) {
        if (!this.socketBlocked) this.stats.socketPauses++;
        this.socketBlocked = true; // the send callback wakes us
        return;
      }
      if (utterance.unacknowledgedSamples >= this.maxUnacknowledgedSamples) return; // an ack wakes us
      if (this.held) {
        this.pacer.idle(); // a wake-up while held is not a late send
        return; // hold(false) wakes us
      }
      const now = this.config.clock.now();
      const due = this.pacer.due;
      if (due > now) {
        this.pacer.schedule(due, now);
        return;
      }
      this.playAt = this.pacer.playStart(now);
      const frame = utterance.nextFrame();
      if (frame === null) {
        if (utterance.sourceDone && !utterance.endMarkSent) {
          const padded = this.batcher.flushPadded(silenceByte(this.line));
          if (padded > 0) this.pacer.sent(now, due, this.bytesToMs(padded));
          else this.pacer.idle();
          utterance.sendEndMark(this.sink);
        } else {
          this.pacer.idle();
        }
        return; // 'readable' or the end mark's ack wakes us
      }
      this.released = 0;
      utterance.sendFrame(frame, this.sink);
      // Batched, a frame may only fill the batch: the phone gets nothing yet, so nothing is paced.
      if (this.released > 0) this.pacer.sent(now, due, this.bytesToMs(this.released));
      const unackMs = utterance.unacknowledgedSamples / perMs;
      if (unackMs > this.stats.maxUnacknowledgedMs) this.stats.maxUnacknowledgedMs = unackMs;
    }
  }

  private send(message: ProviderMessage): void {
    if (this.socket.readyState !== WS_OPEN) return;
    this.socket.send(message, this.onSent);
  }

  private readonly onSent = (err?: Error): void => {
    if (err !== undefined && err !== null) return; // the socket's close/error handler ends the call
    if (this.socketBlocked && this.socket.bufferedAmount <= this.config.maxSocketBufferedBytes) {
      this.socketBlocked = false;
      this.pump();
    }
  };
}
