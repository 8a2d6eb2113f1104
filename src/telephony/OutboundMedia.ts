/**
 * Everything a call writes to Twilio, and when: the current utterance's frames and marks paced
 * against the phone's estimated buffer, `clear`, and the user's own marks.
 *
 * Three things may hold sending back, and each one wakes the pump when it lets go: the pacer's
 * timer (the phone has enough buffered), the socket (too much queued: its send callback), and the
 * unechoed bound (a mark echo, through the call). The call owns which utterance is current;
 * this owns the socket's write side, so backpressure is decided in one place.
 */
import type { ResolvedCallOptions } from './callOptions.js';
import type { MediaSocket } from './mediaSocket.js';
import type { TwilioCallStats } from './callTypes.js';
import { SendPacer } from './SendPacer.js';
import { clearMessage, markMessage, mediaMessage, TWILIO_SAMPLES_PER_MS } from './twilioMessages.js';
import type { Utterance, UtteranceSink } from './Utterance.js';

/** `WebSocket.OPEN`, without importing `ws` as a value. */
export const WS_OPEN = 1;

export class OutboundMedia {
  readonly stats: TwilioCallStats;
  /** Before `start` the stream has no sid; nothing is sent then but a user's mark. */
  private streamSidJson = '""';
  private readonly pacer: SendPacer;
  private socketBlocked = false;
  private pumping = false;
  private repump = false;
  /** What an utterance writes through: counted, then sent with this stream's sid. */
  private readonly sink: UtteranceSink;

  /** `current` is the utterance being spoken, or null when the call is not speaking. */
  constructor(
    private readonly socket: MediaSocket,
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
    this.sink = {
      sendMedia: (mulaw) => {
        this.stats.mediaMessages++;
        this.stats.mediaBytes += mulaw.length;
        this.sendText(mediaMessage(this.streamSidJson, mulaw));
      },
      sendMark: (name) => {
        this.stats.markMessages++;
        this.sendText(markMessage(this.streamSidJson, name));
      },
    };
  }

  /** The `start` message named the stream every later message must carry. */
  setStreamSid(streamSid: string): void {
    this.streamSidJson = JSON.stringify(streamSid);
  }

  /** Sends a mark that is not an utterance's (not counted in the stats). */
  sendMark(name: string): void {
    this.sendText(markMessage(this.streamSidJson, name));
  }

  /** Sends `clear`: the phone drops what it buffered, so pacing starts again from nothing. */
  clear(): void {
    this.sendText(clearMessage(this.streamSidJson));
    this.pacer.reset();
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

  private pumpOnce(): void {
    const utterance = this.current();
    if (utterance === null) return;
    if (utterance.stream === null) return; // still starting
    for (;;) {
      if (this.current() !== utterance) return;
      if (this.socket.bufferedAmount > this.config.maxSocketBufferedBytes) {
        if (!this.socketBlocked) this.stats.socketPauses++;
        this.socketBlocked = true; // the send callback wakes us
        return;
      }
      if (utterance.unacknowledgedSamples >= this.config.maxUnacknowledgedSamples) return; // a mark echo wakes us
      const now = this.config.clock.now();
      const due = this.pacer.due;
      if (due > now) {
        this.pacer.schedule(due, now);
        return;
      }
      const frame = utterance.nextFrame();
      if (frame === null) {
        this.pacer.idle();
        if (utterance.sourceDone && !utterance.endMarkSent) utterance.sendEndMark(this.sink);
        return; // 'readable' or the end mark's echo wakes us
      }
      const samples = utterance.sendFrame(frame, this.sink);
      this.pacer.sent(now, due, samples / TWILIO_SAMPLES_PER_MS);
      const unackMs = utterance.unacknowledgedSamples / TWILIO_SAMPLES_PER_MS;
      if (unackMs > this.stats.maxUnacknowledgedMs) this.stats.maxUnacknowledgedMs = unackMs;
    }
  }

  private sendText(text: string): void {
    if (this.socket.readyState !== WS_OPEN) return;
    this.socket.send(text, this.onSent);
  }

  private readonly onSent = (err?: Error): void => {
    if (err !== undefined && err !== null) return; // the socket's close/error handler ends the call
    if (this.socketBlocked && this.socket.bufferedAmount <= this.config.maxSocketBufferedBytes) {
      this.socketBlocked = false;
      this.pump();
    }
  };
}
