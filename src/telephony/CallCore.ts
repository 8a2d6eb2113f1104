/**
 * One call on a provider's media stream, provider-neutral: the state machine, the utterance
 * queue, paced speech out with acknowledgement requests whose answers drive the playhead,
 * barge-in that clears the phone's buffer and tells what was heard, and the caller's audio and
 * DTMF in. A {@link ProviderAdapter} translates the provider's messages; what goes out, and
 * when (pacing, batching, socket backpressure), is `OutboundMedia`'s.
 *
 * @see src/telephony/providerAdapter.ts for the acknowledgement and clear contract.
 */
import { EventEmitter } from 'node:events';
import { InvalidOptionError, TelephonyError, VoicewireError } from '../errors.js';
import type { TtsRequest } from '../protocol/ttsRequest.js';
import { ClockedPlayhead } from './ClockedPlayhead.js';
import { InboundAudio } from './InboundAudio.js';
import type { MediaSocket, MediaSocketData } from './mediaSocket.js';
import { createClientSpeechSource } from './clientSpeechSource.js';
import { OutboundMedia, WS_OPEN } from './OutboundMedia.js';
import { resolveCallOptions, type CallOptions, type ResolvedCallOptions } from './callOptions.js';
import type { CallEndReason, CallEvents, CallState, CallStats } from './callTypes.js';
import { MULAW_8K, type LineFormat } from './lineFormat.js';
import type { CallStart, ProviderAdapter, ProviderEvent } from './providerAdapter.js';
import type { SpeechSource, SpeechStream } from './speechSource.js';
import { telephonyRequestDefaults } from './speechSource.js';
import { MARK_PREFIX, unspokenResult, Utterance, type UtteranceResult } from './Utterance.js';
import { VoiceBargeIn, type BargeInActions } from './VoiceBargeIn.js';
import type { VadBackend } from './vad/types.js';

const WS_NORMAL_CLOSURE = 1000;
const WS_UNSUPPORTED_DATA = 1003;

interface QueuedSpeech {
  id: number;
  request: string | TtsRequest;
  resolve: (result: UtteranceResult) => void;
}

export class CallCore<S> extends EventEmitter<CallEvents<S>> {
  /** The caller's audio: s16le at the line's rate, mono. */
  readonly inbound: InboundAudio;
  readonly stats: CallStats;
  private stateValue: CallState<S> = { status: 'awaitingStart' };
  private readonly config: ResolvedCallOptions;
  private readonly queue: QueuedSpeech[] = [];
  private nextUtteranceId = 1;
  private readonly outbound: OutboundMedia;
  private ending = false;
  private defaultSource: SpeechSource | undefined;
  private started: CallStart | null = null;
  /** Barge-in by voice (the `bargeIn` option), or null. */
  private readonly voice: VoiceBargeIn | null = null;
  /** The playhead between coarse acknowledgements (an adapter that declares them), or null. */
  private readonly clocked: ClockedPlayhead | null = null;

  constructor(
    readonly socket: MediaSocket,
    protected readonly adapter: ProviderAdapter<S>,
    private readonly options: CallOptions = {},
  ) {
    super();
    this.config = resolveCallOptions(options);
    const clocked = adapter.coarseAcknowledgements === true ? new ClockedPlayhead(this.config.clock) : null;
    this.clocked = clocked;
    this.outbound = new OutboundMedia(socket, clocked?.wrap(adapter) ?? adapter, this.config, () => this.currentUtterance());
    this.stats = this.outbound.stats;
    this.inbound = new InboundAudio(options.maxInboundBufferBytes);
    if (options.bargeIn !== undefined && options.bargeIn !== false) {
      const voice = new VoiceBargeIn(
        options.bargeIn === true ? {} : options.bargeIn,
        MULAW_8K,
        this.bargeInActions,
        (detector) => detector.setBotSpeaking(this.stateValue.status === 'speaking'),
        this.config.clock,
      );
      this.voice = voice;
      this.outbound.onPlayed = (audio, playAt) => voice.played(audio, playAt);
    }
    socket.on('message', this.onMessage);
    socket.on('close', this.onClose);
    socket.on('error', this.onSocketError);
    if (socket.readyState > WS_OPEN) queueMicrotask(() => this.end('socketClosed'));
  }

  get state(): CallState<S> {
    return this.stateValue;
  }

  /** What the provider's start said (ids, parameters, line format), once it has come. */
  get callStart(): CallStart | null {
    return this.started;
  }

  /**
   * Barge-in by voice: the VAD backend once its detector has loaded (it loads asynchronously;
   * until then caller audio waits in a bounded queue). null while loading, or with `bargeIn` off.
   */
  get bargeInBackend(): VadBackend | null {
    return this.voice?.backend ?? null;
  }

  /**
   * Resolves once barge-in by voice has answered all the audio given to it so far: at once with
   * the detector in this thread or barge-in off; with `detectorThread: 'worker'`, when the
   * detector thread has sent back its decisions (for tests and benches on an injected clock).
   */
  bargeInSettled(): Promise<void> {
    return this.voice?.settled() ?? Promise.resolve();
  }

  /** The line's audio format (μ-law 8 kHz until the stream starts). */
  get lineFormat(): LineFormat {
    return this.started?.format ?? MULAW_8K;
  }

  /**
   * Speaks `text` (or a full request) once the stream has started and earlier utterances are
   * done. Resolves (never rejects) when it has been heard to the end, interrupted, or failed.
   * Text gets the request defaults for the line (PCM at its rate) under `requestDefaults`.
   * @example const { heardText } = await call.speak('Thanks for calling.');
   */
  speak(textOrRequest: string | TtsRequest): Promise<UtteranceResult> {
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
      this.queue.push({ id, request: textOrRequest, resolve });
      this.startNext();
    });
  }

  /**
   * Barge-in: sends clear, aborts synthesis and the network read, drops queued utterances, and
   * reports what the caller heard (up to the last acknowledgement of played audio) and the words
   * cut. Acknowledgements that come back after this are cleared, not played. Returns null when
   * nothing was playing.
   */
  interrupt(): UtteranceResult | null {
    this.cancelQueue();
    const state = this.stateValue;
    if (state.status !== 'speaking') return null;
    this.clocked?.sync(); // where the phone is between coarse acknowledgements (may fire words)
    if (this.stateValue !== state) return null; // a word's handler ended it
    this.outbound.clear(); // the phone's buffer is empty now
    const result = this.finish(state.utterance, 'interrupted');
    this.emit('interrupted', result);
    return result;
  }

  /** Sends a mark (acknowledgement request) of your own; its answer comes back as a `mark` event. */
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

  private transition(next: CallState<S>): void {
    const previous = this.stateValue;
    if (previous.status === 'speaking' && (next.status !== 'speaking' || next.utterance !== previous.utterance)) {
      previous.utterance.dispose();
      this.clocked?.end();
      this.outbound.cancelPacing();
      this.outbound.hold(false, false); // a pause ends with its utterance
    }
    this.voice?.setBotSpeaking(next.status === 'speaking');
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

  private requestFor(textOrRequest: string | TtsRequest): TtsRequest {
    const defaults = { ...telephonyRequestDefaults(this.lineFormat), ...this.options.requestDefaults };
    return typeof textOrRequest === 'string' ? { ...defaults, text: textOrRequest } : { ...defaults, ...textOrRequest };
  }

  private startNext(): void {
    const state = this.stateValue;
    if (state.status !== 'idle' || this.ending) return;
    const queued = this.queue.shift();
    if (queued === undefined) return;
    const request = this.requestFor(queued.request);
    const format = this.lineFormat;
    const utterance = new Utterance(queued.id, request, this.config, queued.resolve, format);
    this.transition({ status: 'speaking', stream: state.stream, utterance });
    this.clocked?.begin(utterance);
    this.emit('utteranceStart', { id: utterance.id, request });
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
      started = source(request, { signal: utterance.abort.signal, format });
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
    let event: ProviderEvent<S>;
    try {
      event = this.adapter.parse(data, isBinary);
    } catch (err) {
      this.emit('warning', asVoicewireError(err, this.adapter.name));
      return;
    }
    this.handle(event);
  };

  private handle(event: ProviderEvent<S>): void {
    switch (event.type) {
      case 'connected':
        this.emit('connected');
        return;
      case 'start':
        this.onStart(event.info);
        return;
      case 'media':
        try {
          this.inbound.pushLineAudio(event.audio);
        } catch (err) {
          this.emit('warning', asVoicewireError(err, this.adapter.name));
        }
        this.voice?.inbound(event.audio, this.config.clock.now(), event.timestamp);
        return;
      case 'dtmf':
        this.emit('dtmf', { digit: event.digit, track: event.track });
        return;
      case 'ack':
        this.onAck(event.name);
        return;
      case 'stop':
        this.end('stop');
        return;
      case 'cleared': // informational: the buffer counts as empty from our clear on
      case 'unknown':
        return;
    }
  }

  private onStart(info: S): void {
    if (this.stateValue.status !== 'awaitingStart') {
      this.emit('warning', new TelephonyError('TELEPHONY_PROTOCOL', 'a second start message was ignored', { field: 'event' }));
      return;
    }
    let start: CallStart;
    try {
      start = this.adapter.start(info);
    } catch (err) {
      this.end('error', asVoicewireError(err, this.adapter.name));
      if (this.socket.readyState === WS_OPEN) this.socket.close(WS_UNSUPPORTED_DATA);
      return;
    }
    this.started = start;
    this.outbound.setLine(start.format);
    this.clocked?.setLine(start.format);
    this.inbound.format = start.format;
    this.voice?.setLine(start.format, this.config.clock.now());
    this.transition({ status: 'idle', stream: info });
    this.emit('start', info);
    this.startNext();
  }

  private onAck(name: string): void {
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
      return;
    }
    this.clocked?.onAck(name); // the whole batch before it has played (may fire words)
    if (this.stateValue === state) this.outbound.pump();
  }

  private cancelQueue(): void {
    for (const q of this.queue.splice(0)) q.resolve(unspokenResult(q.id, 'cancelled'));
  }

  /**
   * The call ends: speech is aborted, then barge-in by voice reports an open caller turn
   * (`callerSpeechEnded` with its audio), then the state becomes `ended` and `close` is emitted,
   * in this order whichever thread the detector runs on. With a detector thread the last two wait
   * for the thread's answer (bounded: VoiceBargeIn's CLOSE_ANSWER_TIMEOUT_MS); meanwhile the call
   * takes no message and starts nothing.
   */
  private end(reason: CallEndReason, error?: VoicewireError): void {
    const state = this.stateValue;
    if (state.status === 'ended' || this.ending) return;
    this.ending = true; // nothing new starts from here on, whatever the handlers below do
    this.cancelQueue();
    if (state.status === 'speaking') this.finish(state.utterance, 'aborted');
    const ended = (): void => {
      const s = this.stateValue;
      if (s.status === 'ended') return;
      const stream = s.status === 'idle' || s.status === 'speaking' ? s.stream : null;
      this.transition(error === undefined ? { status: 'ended', reason, stream } : { status: 'ended', reason, stream, error });
      this.emit('close', error === undefined ? { reason } : { reason, error });
    };
    if (this.voice === null) {
      ended();
      return;
    }
    this.socket.off('message', this.onMessage); // the call has ended: nothing more is read
    this.voice.close(ended); // reports an open turn, frees the VAD, then `ended` (at once inline)
  }

  private readonly onClose = (): void => this.end('socketClosed');

  /** What barge-in by voice does to the call. */
  private readonly bargeInActions: BargeInActions = {
    pause: (d) => {
      if (this.stateValue.status !== 'speaking') return;
      this.outbound.hold(true);
      this.emit('bargeInPause', { sample: d.sample, detectedAt: d.detectedAt, atMs: d.atMs });
    },
    resume: (d) => {
      if (!this.outbound.isHeld) return;
      this.emit('falseInterruption', { sample: d.sample, detectedAt: d.detectedAt, atMs: d.atMs });
      this.outbound.hold(false);
    },
    interrupt: (d) => {
      const result = this.interrupt();
      if (result !== null) this.emit('bargeIn', result, { sample: d.sample, detectedAt: d.detectedAt, atMs: d.atMs });
    },
    turnStarted: (e) => this.emit('callerSpeechStarted', e),
    turnEnded: (e) => this.emit('callerSpeechEnded', e),
    warning: (w) => this.emit('warning', w),
  };

  private readonly onSocketError = (err: Error): void => {
    this.end('error', new TelephonyError('TELEPHONY_CLOSED', `socket error: ${err.message}`, { cause: err }));
  };
}

/** An adapter's fault as a typed error (an adapter should throw TelephonyErrors; a bug may not). */
function asVoicewireError(err: unknown, provider: string): VoicewireError {
  if (err instanceof VoicewireError) return err;
  return new TelephonyError('TELEPHONY_PROTOCOL', `${provider} adapter failed: ${(err as Error)?.message ?? String(err)}`, {
    field: 'message',
    cause: err,
  });
}

function noop(): void {}
