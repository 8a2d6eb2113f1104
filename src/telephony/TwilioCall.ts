/**
 * One Twilio bidirectional Media Stream: speech out as paced μ-law `media` with marks whose echoes
 * drive the playhead, barge-in that clears the phone's buffer and tells what was heard, and the
 * caller's audio and DTMF in.
 *
 * @see ../../../shared/spec/service-facts.md "Twilio Media Streams"
 */
import { EventEmitter } from 'node:events';
import type { RawData, WebSocket } from 'ws';
import { InvalidOptionError, TelephonyError, VoicewireError } from '../errors.js';
import type { TtsRequest } from '../protocol/ttsRequest.js';
import { InboundAudio } from './InboundAudio.js';
import { createClientSpeechSource } from './clientSpeechSource.js';
import { LatenessHistogram } from './LatenessHistogram.js';
import { systemClock, type TelephonyClock } from './clock.js';
import type { SpeechSource, SpeechStream, SpeechWordEvent } from './speechSource.js';
import { TELEPHONY_REQUEST_DEFAULTS } from './speechSource.js';
import {
  checkMediaFormat, clearMessage, markMessage, mediaMessage, parseInboundMessage,
  TWILIO_SAMPLE_RATE, type InboundMessage, type StartInfo,
} from './twilioMessages.js';
import { MARK_PREFIX, Utterance, type UtteranceResult, type UtteranceSink } from './Utterance.js';

/** @defaultValue 200 ms of audio buffered at the phone ahead of what it plays. */
export const DEFAULT_LEAD_MS = 200;
/** @defaultValue a mark every 5 frames (100 ms), besides those at word starts. */
export const DEFAULT_MARK_EVERY_FRAMES = 5;
/** @defaultValue pause when this much is queued in the socket. */
export const DEFAULT_MAX_SOCKET_BUFFERED_BYTES = 64 * 1024;
/** Slack over lead + mark spacing before an unechoed phone pauses sending. */
export const UNACKNOWLEDGED_SLACK_MS = 1000;
export const DEFAULT_MAX_QUEUED_UTTERANCES = 16;
const SAMPLES_PER_MS = TWILIO_SAMPLE_RATE / 1000;
const FRAME_MS = 20;
const WS_OPEN = 1;
const WS_NORMAL_CLOSURE = 1000;
const WS_UNSUPPORTED_DATA = 1003;

export interface TwilioCallOptions {
  /**
   * Where speech comes from.
   * @defaultValue `createClientSpeechSource()`: the voicewire client from `VOICEWIRE_BASE_URL`.
   */
  source?: SpeechSource;
  /** Audio kept buffered at the phone ahead of what it plays. @defaultValue {@link DEFAULT_LEAD_MS} */
  leadMs?: number;
  /** A mark after every N frames (0: only at words and the end). @defaultValue 5 */
  markEveryFrames?: number;
  /** Marks exactly at known word starts (a frame is split there). @defaultValue true */
  wordMarks?: boolean;
  /** Sent-but-unechoed audio that pauses sending. @defaultValue lead + mark spacing + 1000 ms */
  maxUnacknowledgedMs?: number;
  /** `socket.bufferedAmount` above which sending (and so the engine) pauses. @defaultValue 64 KiB */
  maxSocketBufferedBytes?: number;
  /** Caller audio kept for a slow reader before new audio is dropped. @defaultValue 5 s */
  maxInboundBufferBytes?: number;
  /** @defaultValue 16 */
  maxQueuedUtterances?: number;
  /** Merged under the request when `speak()` gets text. @defaultValue `{format:'pcm', sample_rate:8000}` */
  requestDefaults?: Partial<TtsRequest>;
  /** @defaultValue the system clock */
  clock?: TelephonyClock;
}

export type CallEndReason = 'stop' | 'socketClosed' | 'closed' | 'error';

/** The call's life: one discriminated union, changed only by `transition()`. */
export type CallState =
  | { status: 'awaitingStart' }
  | { status: 'idle'; stream: StartInfo }
  | { status: 'speaking'; stream: StartInfo; utterance: Utterance }
  | { status: 'ended'; reason: CallEndReason; stream: StartInfo | null; error?: VoicewireError };

export interface TelephonyWordEvent extends SpeechWordEvent {
  utteranceId: number;
}

export interface TwilioCallEvents {
  connected: [];
  start: [info: StartInfo];
  word: [word: TelephonyWordEvent];
  dtmf: [dtmf: { digit: string; track: string }];
  /** The echo of a mark the bridge did not send (e.g. one the user sent through `sendMark`). */
  mark: [name: string];
  utteranceStart: [info: { id: number; request: TtsRequest }];
  utteranceEnd: [result: UtteranceResult];
  interrupted: [result: UtteranceResult];
  warning: [warning: VoicewireError];
  stateChange: [previous: CallState, next: CallState];
  close: [info: { reason: CallEndReason; error?: VoicewireError }];
}

export interface TwilioCallStats {
  mediaMessages: number;
  markMessages: number;
  mediaBytes: number;
  /** How late paced sends were, in ms. */
  lateness: LatenessHistogram;
  /** Times sending paused because the socket had too much queued. */
  socketPauses: number;
  /** Most audio (ms) ever sent ahead of the last echoed mark. */
  maxUnacknowledgedMs: number;
}

interface QueuedSpeech {
  id: number;
  request: TtsRequest;
  resolve: (result: UtteranceResult) => void;
}

export class TwilioCall extends EventEmitter<TwilioCallEvents> {
  /** The caller's audio: s16le, 8 kHz, mono. */
  readonly inbound: InboundAudio;
  readonly stats: TwilioCallStats = {
    mediaMessages: 0, markMessages: 0, mediaBytes: 0, lateness: new LatenessHistogram(), socketPauses: 0, maxUnacknowledgedMs: 0,
  };
  private stateValue: CallState = { status: 'awaitingStart' };
  private readonly clock: TelephonyClock;
  private readonly leadMs: number;
  private readonly maxUnackSamples: number;
  private readonly maxSocketBuffered: number;
  private readonly markOptions: { markEveryFrames: number; wordMarks: boolean };
  private readonly queue: QueuedSpeech[] = [];
  private streamSidJson = '""';
  private nextUtteranceId = 1;
  /** Estimated clock time at which the phone finishes what was sent. */
  private playEnd = Number.NEGATIVE_INFINITY;
  private timer: unknown = null;
  private timerDue: number | null = null;
  private socketBlocked = false;
  private pumping = false;
  private ending = false;
  private repump = false;
  private readonly sink: UtteranceSink;
  private defaultSource: SpeechSource | undefined;

  constructor(readonly socket: WebSocket, private readonly options: TwilioCallOptions = {}) {
    super();
    this.clock = options.clock ?? systemClock;
    this.leadMs = positive(options.leadMs ?? DEFAULT_LEAD_MS, 'leadMs', true);
    const every = positive(options.markEveryFrames ?? DEFAULT_MARK_EVERY_FRAMES, 'markEveryFrames', true);
    this.markOptions = { markEveryFrames: Math.floor(every), wordMarks: options.wordMarks ?? true };
    const markSpacingMs = (every === 0 ? 10 : every) * FRAME_MS;
    const maxUnackMs = positive(options.maxUnacknowledgedMs ?? this.leadMs + markSpacingMs + UNACKNOWLEDGED_SLACK_MS, 'maxUnacknowledgedMs', false);
    this.maxUnackSamples = Math.max(maxUnackMs, this.leadMs + FRAME_MS) * SAMPLES_PER_MS;
    this.maxSocketBuffered = positive(options.maxSocketBufferedBytes ?? DEFAULT_MAX_SOCKET_BUFFERED_BYTES, 'maxSocketBufferedBytes', false);
    this.inbound = new InboundAudio(options.maxInboundBufferBytes);
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
    socket.on('message', this.onMessage);
    socket.on('close', this.onClose);
    socket.on('error', this.onSocketError);
    if (socket.readyState > WS_OPEN) queueMicrotask(() => this.end('socketClosed'));
  }

  get state(): CallState {
    return this.stateValue;
  }
  /** The `start` message's details, once it has come. */
  get streamInfo(): StartInfo | null {
    const s = this.stateValue;
    return s.status === 'awaitingStart' ? null : s.stream;
  }

  /**
   * Speaks `text` (or a full request) once the stream has started and earlier utterances are
   * done. Resolves (never rejects) when it has been heard to the end, interrupted, or failed.
   * @example const { heardText } = await call.speak('Thanks for calling.');
   */
  speak(textOrRequest: string | TtsRequest): Promise<UtteranceResult> {
    const request: TtsRequest = typeof textOrRequest === 'string'
      ? { ...TELEPHONY_REQUEST_DEFAULTS, ...this.options.requestDefaults, text: textOrRequest }
      : { ...TELEPHONY_REQUEST_DEFAULTS, ...this.options.requestDefaults, ...textOrRequest };
    const id = this.nextUtteranceId++;
    if (this.stateValue.status === 'ended' || this.ending) {
      return Promise.resolve(failedResult(id, 'cancelled', new TelephonyError('TELEPHONY_CLOSED', 'the call has ended')));
    }
    const max = this.options.maxQueuedUtterances ?? DEFAULT_MAX_QUEUED_UTTERANCES;
    if (this.queue.length >= max) {
      return Promise.resolve(failedResult(id, 'cancelled', new InvalidOptionError('maxQueuedUtterances', `more than ${max} utterances queued`)));
    }
    return new Promise((resolve) => {
      this.queue.push({ id, request, resolve });
      this.startNext();
    });
  }

  /**
   * Barge-in: sends `clear`, aborts synthesis and the network read, drops queued utterances, and
   * reports what the caller heard (up to the last mark echoed as played) and the words cut.
   * Marks that come back after this are cleared, not played. Returns null when nothing was playing.
   */
  interrupt(): UtteranceResult | null {
    this.cancelQueue();
    const state = this.stateValue;
    if (state.status !== 'speaking') return null;
    this.sendText(clearMessage(this.streamSidJson));
    this.playEnd = Number.NEGATIVE_INFINITY; // the phone's buffer is empty now
    const result = this.finish(state.utterance, 'interrupted');
    this.emit('interrupted', result);
    return result;
  }

  /** Sends a mark of your own; its echo comes back as a `mark` event. */
  sendMark(name: string): void {
    if (name.startsWith(MARK_PREFIX)) throw new InvalidOptionError('name', `mark names starting with ${MARK_PREFIX} are the bridge's`);
    this.sendText(markMessage(this.streamSidJson, name));
  }

  /** Ends the call from our side: aborts speech, frees everything, closes the socket. */
  close(): void {
    this.end('closed');
    if (this.socket.readyState === WS_OPEN) this.socket.close(WS_NORMAL_CLOSURE);
  }

  // -------------------------------------------------------------------------------------------

  private transition(next: CallState): void {
    const previous = this.stateValue;
    if (previous.status === 'speaking' && (next.status !== 'speaking' || next.utterance !== previous.utterance)) {
      previous.utterance.dispose();
      this.clearTimer();
    }
    if (next.status === 'ended') {
      this.clearTimer();
      this.socket.off('message', this.onMessage);
      this.socket.off('close', this.onClose);
      this.socket.off('error', this.onSocketError);
      this.socket.on('error', noop);
      this.inbound.finish();
    }
    this.stateValue = next;
    this.emit('stateChange', previous, next);
  }

  private startNext(): void {
    const state = this.stateValue;
    if (state.status !== 'idle' || this.ending) return;
    const queued = this.queue.shift();
    if (queued === undefined) return;
    const utterance = new Utterance(queued.id, queued.request, this.markOptions, queued.resolve);
    this.transition({ status: 'speaking', stream: state.stream, utterance });
    this.emit('utteranceStart', { id: utterance.id, request: queued.request });
    let source: SpeechSource;
    try {
      source = this.options.source ?? (this.defaultSource ??= createClientSpeechSource());
    } catch (err) {
      utterance.fail(err); // e.g. no baseUrl for the default client
      this.finish(utterance, 'failed');
      return;
    }
    let started: Promise<SpeechStream>;
    try {
      started = source(queued.request, { signal: utterance.abort.signal });
    } catch (err) {
      started = Promise.reject(err);
    }
    started.then((stream) => {
      if (!this.isCurrent(utterance)) {
        stream.on('error', noop);
        stream.destroy();
        return;
      }
      utterance.attach(stream, () => this.pump(), (w) => this.emit('word', { ...w, utteranceId: utterance.id }));
      this.pump();
    }, (err: unknown) => {
      if (!this.isCurrent(utterance)) return;
      utterance.fail(err);
      this.finish(utterance, 'failed');
    });
  }

  private isCurrent(utterance: Utterance): boolean {
    const s = this.stateValue;
    return s.status === 'speaking' && s.utterance === utterance;
  }

  /** Settles an utterance and moves on. The one place an utterance ends. */
  private finish(utterance: Utterance, status: UtteranceResult['status']): UtteranceResult {
    const result = utterance.result(status);
    const state = this.stateValue;
    if (state.status === 'speaking' && state.utterance === utterance) {
      this.transition({ status: 'idle', stream: state.stream });
    } else {
      utterance.dispose();
    }
    if (result.error !== undefined && status === 'failed') this.emit('warning', result.error);
    utterance.settle(result);
    this.emit('utteranceEnd', result);
    this.startNext();
    return result;
  }

  /**
   * Sends what is due: frames go out while the phone's estimated buffer is under the lead, so
   * the schedule is absolute (`playEnd` grows by each frame's exact duration) and never drifts.
   */
  private pump(): void {
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
    const state = this.stateValue;
    if (state.status !== 'speaking') return;
    const utterance = state.utterance;
    if (utterance.stream === null) return; // still starting
    const timerDue = this.timerDue;
    this.timerDue = null;
    for (;;) {
      if (this.stateValue !== state) return;
      if (this.socket.bufferedAmount > this.maxSocketBuffered) {
        if (!this.socketBlocked) this.stats.socketPauses++;
        this.socketBlocked = true; // the send callback wakes us
        return;
      }
      if (utterance.unacknowledgedSamples >= this.maxUnackSamples) return; // a mark echo wakes us
      const now = this.clock.now();
      const due = this.playEnd - this.leadMs;
      if (due > now) {
        this.schedule(due, now);
        return;
      }
      const frame = utterance.nextFrame();
      if (frame === null) {
        if (utterance.sourceDone && !utterance.endMarkSent) utterance.sendEndMark(this.sink);
        return; // 'readable' or the end mark's echo wakes us
      }
      if (timerDue !== null && due === timerDue) this.stats.lateness.record(now - timerDue);
      const samples = utterance.sendFrame(frame, this.sink);
      this.playEnd = Math.max(this.playEnd, now) + samples / SAMPLES_PER_MS;
      const unackMs = utterance.unacknowledgedSamples / SAMPLES_PER_MS;
      if (unackMs > this.stats.maxUnacknowledgedMs) this.stats.maxUnacknowledgedMs = unackMs;
    }
  }

  private schedule(due: number, now: number): void {
    this.clearTimer();
    this.timer = this.clock.setTimeout(this.onTimer, due - now);
    this.pendingDue = due;
  }
  private pendingDue: number | null = null;

  private readonly onTimer = (): void => {
    this.timer = null;
    this.timerDue = this.pendingDue;
    this.pendingDue = null;
    this.pump();
  };

  private clearTimer(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.pendingDue = null;
  }

  private sendText(text: string): void {
    if (this.socket.readyState !== WS_OPEN) return;
    this.socket.send(text, this.onSent);
  }

  private readonly onSent = (err?: Error): void => {
    if (err !== undefined && err !== null) return; // the socket's close/error handler ends the call
    if (this.socketBlocked && this.socket.bufferedAmount <= this.maxSocketBuffered) {
      this.socketBlocked = false;
      this.pump();
    }
  };

  private readonly onMessage = (data: RawData, isBinary: boolean): void => {
    if (isBinary) {
      this.emit('warning', new TelephonyError('TELEPHONY_PROTOCOL', 'binary frame from Twilio ignored', { field: 'message' }));
      return;
    }
    let message: InboundMessage;
    try {
      message = parseInboundMessage(rawText(data));
    } catch (err) {
      this.emit('warning', err as VoicewireError);
      return;
    }
    this.handle(message);
  };

  private handle(message: InboundMessage): void {
    switch (message.event) {
      case 'connected':
        this.emit('connected');
        return;
      case 'start': {
        if (this.stateValue.status !== 'awaitingStart') {
          this.emit('warning', new TelephonyError('TELEPHONY_PROTOCOL', 'a second start message was ignored', { field: 'event' }));
          return;
        }
        try {
          checkMediaFormat(message.start.mediaFormat);
        } catch (err) {
          this.end('error', err as VoicewireError);
          if (this.socket.readyState === WS_OPEN) this.socket.close(WS_UNSUPPORTED_DATA);
          return;
        }
        this.streamSidJson = JSON.stringify(message.start.streamSid);
        this.transition({ status: 'idle', stream: message.start });
        this.emit('start', message.start);
        this.startNext();
        return;
      }
      case 'media':
        if (message.track !== 'outbound') this.inbound.pushPayload(message.payload);
        return;
      case 'dtmf':
        this.emit('dtmf', { digit: message.digit, track: message.track });
        return;
      case 'mark':
        this.onMarkEcho(message.name);
        return;
      case 'stop':
        this.end('stop');
        return;
      case 'unknown':
        return;
    }
  }

  private onMarkEcho(name: string): void {
    if (!name.startsWith(MARK_PREFIX)) {
      this.emit('mark', name);
      return;
    }
    const state = this.stateValue;
    if (state.status !== 'speaking') return; // cleared, or of an utterance already settled
    const utterance = state.utterance;
    if (!name.startsWith(utterance.markPrefix)) return;
    const end = utterance.onMarkPlayed(name); // may emit words, whose handlers may interrupt
    if (this.stateValue !== state) return;
    if (end) {
      this.playEnd = this.clock.now(); // the phone has played everything: re-anchor on the truth
      this.finish(utterance, utterance.error === undefined ? 'completed' : 'failed');
    } else {
      this.pump();
    }
  }

  private cancelQueue(): void {
    for (const q of this.queue.splice(0)) q.resolve(failedResult(q.id, 'cancelled'));
  }

  private end(reason: CallEndReason, error?: VoicewireError): void {
    const state = this.stateValue;
    if (state.status === 'ended' || this.ending) return;
    this.ending = true; // nothing new starts from here on, whatever the handlers below do
    this.cancelQueue();
    if (state.status === 'speaking') this.finish(state.utterance, 'aborted');
    const s = this.stateValue;
    const stream = s.status === 'idle' || s.status === 'speaking' ? s.stream : null;
    this.transition(error === undefined ? { status: 'ended', reason, stream } : { status: 'ended', reason, stream, error });
    this.emit('close', error === undefined ? { reason } : { reason, error });
  }

  private readonly onClose = (): void => this.end('socketClosed');

  private readonly onSocketError = (err: Error): void => {
    this.end('error', new TelephonyError('TELEPHONY_CLOSED', `socket error: ${err.message}`, { cause: err }));
  };
}

/** Attaches a bridge to a Twilio Media Stream socket (from a `ws` WebSocketServer). */
export function attachTwilioMediaStream(socket: WebSocket, options?: TwilioCallOptions): TwilioCall {
  return new TwilioCall(socket, options);
}

function failedResult(id: number, status: UtteranceResult['status'], error?: VoicewireError): UtteranceResult {
  const r: UtteranceResult = { id, status, heardText: '', heard: [], cut: [], playedSec: 0, sentSec: 0 };
  if (error !== undefined) r.error = error;
  return r;
}

function positive(value: number, field: string, allowZero: boolean): number {
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new InvalidOptionError(field, `${field} must be a finite number ${allowZero ? '≥' : '>'} 0, got ${String(value)}`);
  }
  return value;
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

function noop(): void {}
