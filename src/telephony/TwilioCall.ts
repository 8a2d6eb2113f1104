/**
 * One Twilio bidirectional Media Stream: speech out as paced μ-law `media` with marks whose echoes
 * drive the playhead, barge-in that clears the phone's buffer and tells what was heard, and the
 * caller's audio and DTMF in.
 *
 * This is the call's state machine and its handling of what Twilio sends; what goes out to
 * Twilio, and when (pacing, socket backpressure), is `OutboundMedia`'s.
 *
 * @see docs/service-interface.md#twilio-media-streams
 */
import { EventEmitter } from 'node:events';
import { InvalidOptionError, TelephonyError, VoicewireError } from '../errors.js';
import type { TtsRequest } from '../protocol/ttsRequest.js';
import { InboundAudio } from './InboundAudio.js';
import type { MediaSocket, MediaSocketData } from './mediaSocket.js';
import { createClientSpeechSource } from './clientSpeechSource.js';
import { OutboundMedia, WS_OPEN } from './OutboundMedia.js';
import { resolveCallOptions, type ResolvedCallOptions, type TwilioCallOptions } from './callOptions.js';
import type { CallEndReason, CallState, TwilioCallEvents, TwilioCallStats } from './callTypes.js';
import type { SpeechSource, SpeechStream } from './speechSource.js';
import { TELEPHONY_REQUEST_DEFAULTS } from './speechSource.js';
import { checkMediaFormat, parseInboundMessage, type InboundMessage, type StartInfo } from './twilioMessages.js';
import { MARK_PREFIX, unspokenResult, Utterance, type UtteranceResult } from './Utterance.js';

export type { TwilioCallOptions } from './callOptions.js';
export type { CallEndReason, CallState, TelephonyWordEvent, TwilioCallEvents, TwilioCallStats } from './callTypes.js';

const WS_NORMAL_CLOSURE = 1000;
const WS_UNSUPPORTED_DATA = 1003;

interface QueuedSpeech {
  id: number;
  request: TtsRequest;
  resolve: (result: UtteranceResult) => void;
}

export class TwilioCall extends EventEmitter<TwilioCallEvents> {
  /** The caller's audio: s16le, 8 kHz, mono. */
  readonly inbound: InboundAudio;
  readonly stats: TwilioCallStats;
  private stateValue: CallState = { status: 'awaitingStart' };
  private readonly config: ResolvedCallOptions;
  private readonly queue: QueuedSpeech[] = [];
  private nextUtteranceId = 1;
  private readonly outbound: OutboundMedia;
  private ending = false;
  private defaultSource: SpeechSource | undefined;

  constructor(
    readonly socket: MediaSocket,
    private readonly options: TwilioCallOptions = {},
  ) {
    super();
    this.config = resolveCallOptions(options);
    this.outbound = new OutboundMedia(socket, this.config, () => this.currentUtterance());
    this.stats = this.outbound.stats;
    this.inbound = new InboundAudio(options.maxInboundBufferBytes);
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
    const request: TtsRequest =
      typeof textOrRequest === 'string'
        ? { ...TELEPHONY_REQUEST_DEFAULTS, ...this.options.requestDefaults, text: textOrRequest }
        : { ...TELEPHONY_REQUEST_DEFAULTS, ...this.options.requestDefaults, ...textOrRequest };
    const id = this.nextUtteranceId++;
    if (this.stateValue.status === 'ended' || this.ending) {
      return Promise.resolve(unspokenResult(id, 'cancelled', new TelephonyError('TELEPHONY_CLOSED', 'the call has ended')));
    }
    const max = this.config.maxQueuedUtterances;
    if (this.queue.length >= max) {
      return Promise.resolve(
        unspokenResult(id, 'cancelled', new InvalidOptionError('maxQueuedUtterances', `more than ${max} utterances queued`)),
      );
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
    this.outbound.clear(); // the phone's buffer is empty now
    const result = this.finish(state.utterance, 'interrupted');
    this.emit('interrupted', result);
    return result;
  }

  /** Sends a mark of your own; its echo comes back as a `mark` event. */
  sendMark(name: string): void {
    if (name.startsWith(MARK_PREFIX)) throw new InvalidOptionError('name', `mark names starting with ${MARK_PREFIX} are the bridge's`);
    this.outbound.sendMark(name);
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
      this.outbound.cancelPacing();
    }
    if (next.status === 'ended') {
      this.outbound.cancelPacing();
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
    const utterance = new Utterance(queued.id, queued.request, this.config, queued.resolve);
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
    started.then(
      (stream) => {
        if (this.currentUtterance() !== utterance) {
          stream.on('error', noop);
          stream.destroy();
          return;
        }
        utterance.attach(stream, {
          wake: () => this.outbound.pump(),
          word: (w) => this.emit('word', { ...w, utteranceId: utterance.id }),
          warning: (w) => this.emit('warning', w),
        });
        this.outbound.pump();
      },
      (err: unknown) => {
        if (this.currentUtterance() !== utterance) return;
        utterance.fail(err);
        this.finish(utterance, 'failed');
      },
    );
  }

  /** The utterance being spoken, or null when the call is not speaking. */
  private currentUtterance(): Utterance | null {
    const s = this.stateValue;
    return s.status === 'speaking' ? s.utterance : null;
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

  private readonly onMessage = (data: MediaSocketData, isBinary: boolean): void => {
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
        this.outbound.setStreamSid(message.start.streamSid);
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
      this.outbound.playedOut();
      this.finish(utterance, utterance.error === undefined ? 'completed' : 'failed');
    } else {
      this.outbound.pump();
    }
  }

  private cancelQueue(): void {
    for (const q of this.queue.splice(0)) q.resolve(unspokenResult(q.id, 'cancelled'));
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
export function attachTwilioMediaStream(socket: MediaSocket, options?: TwilioCallOptions): TwilioCall {
  return new TwilioCall(socket, options);
}

function rawText(data: MediaSocketData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

function noop(): void {}
