/**
 * A Writable of audio frames that plays them through a child-process player (aplay, paplay,
 * ffplay, sox `play`) and reports what has really been heard.
 *
 * - The device is checked before anything starts ({@link detectAudioOutput}); with no device,
 *   {@link createPlayerSink} throws a {@link SinkError} `NO_AUDIO_DEVICE` with a one-line reason.
 *   A player that dies is a `PLAYER_FAILED` error on the stream, never a crash of this process
 *   (as long as someone listens for 'error', as `pipeline` does); the write in flight fails with it
 *   rather than waiting forever.
 * - Writes are paced at real time ({@link PlaybackClock}), so the player and the pipe hold only
 *   `latency + lead` of audio and `heardSamples()` follows the sound, buffer latency included.
 * - `position` events (samples heard, per channel) drive a speech pipeline created with
 *   `playhead: 'external'`: `sink.on('position', (s) => stream.playhead.advanceTo(s))`.
 * - With `player: null` there is no child: the sink consumes at real time in silence, for live
 *   captions without a sound device.
 */
import { Writable } from 'node:stream';
import type { AudioFrame } from '../codec/types.js';
import { SinkError } from '../errors.js';
import { detectAudioOutput, type DetectOptions, type PlayerCommand } from './audioOutput.js';
import { PlaybackClock } from './PlaybackClock.js';
import { PlayerProcess, type PlayerFormat } from './PlayerProcess.js';
import { systemClock, type Clock } from '../internal/clock.js';
import { S16_BYTES } from '../internal/s16.js';

/** Time source and timers, injectable so tests run on a fake clock. Times in ms. */
export type SinkClock = Clock;

export interface PlayerSinkOptions {
  /** The player; `null` paces in silence. @defaultValue the one {@link detectAudioOutput} finds */
  player?: PlayerCommand | null;
  /** Needed only when raw bytes are written; frames carry their own format. */
  sampleRate?: number;
  channels?: number;
  /**
   * The player's output buffer: it starts playing once this much audio has arrived, and again
   * after an underrun (aplay's start threshold). @defaultValue `player.latencyMs` (0 without a player)
   */
  latencyMs?: number;
  /** Audio queued beyond the latency, against timer jitter. @defaultValue 60 */
  leadMs?: number;
  /** How often `position` is emitted while audio plays. @defaultValue 20 */
  positionIntervalMs?: number;
  clock?: SinkClock;
  detect?: DetectOptions;
  /** Environment of the player process. @defaultValue `detect.env`, else `process.env` */
  env?: NodeJS.ProcessEnv;
}

export const DEFAULT_LEAD_MS = 60;
export const DEFAULT_POSITION_INTERVAL_MS = 20;
const MS_PER_SEC = 1000;

export class PlayerSink extends Writable {
  /** The player in use, or null when pacing in silence. */
  readonly player: PlayerCommand | null;
  private readonly options: PlayerSinkOptions;
  private readonly clock: SinkClock;
  private playback: PlaybackClock | null = null;
  private format: PlayerFormat | null = null;
  private proc: PlayerProcess | null = null;
  private ticker: unknown = null;
  private writeTimer: unknown = null;
  private lastPosition = -1;
  private allHeard = false;
  private finishing: (() => void) | null = null;
  /** The callback of the write in flight (one at a time: highWaterMark 1). */
  private inFlight: ((err?: Error | null) => void) | null = null;
  /** Resolves when the player can take audio (spawned, and its `readyText` seen). */
  private ready: Promise<void> | null = null;

  constructor(player: PlayerCommand | null, options: PlayerSinkOptions = {}) {
    super({ objectMode: true, highWaterMark: 1 });
    this.player = player;
    this.options = options;
    this.clock = options.clock ?? systemClock;
  }

  /** Sample rate of the audio being played (known after the first frame). */
  get sampleRate(): number | undefined {
    return this.format?.sampleRate;
  }

  /** Samples (per channel) heard so far. */
  heardSamples(): number {
    if (!this.playback) return 0;
    return this.allHeard ? this.playback.writtenSamples : this.playback.heardSamples(this.clock.now() / MS_PER_SEC);
  }

  /** Samples (per channel) handed to the player so far. */
  writtenSamples(): number {
    return this.playback?.writtenSamples ?? 0;
  }

  override _write(chunk: AudioFrame | Uint8Array, _enc: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.inFlight = callback;
    let bytes: Uint8Array;
    let sampleCount: number;
    try {
      ({ bytes, sampleCount } = this.accept(chunk));
    } catch (err) {
      this.completeWrite(err as Error);
      return;
    }
    if (this.ready !== null) {
      const ready = this.ready;
      this.ready = null;
      ready.then(
        () => this.play(bytes, sampleCount),
        (err: Error) => this.completeWrite(err),
      );
      return;
    }
    this.play(bytes, sampleCount);
  }

  /** Hands one write to the player at its time; completes the write in flight. */
  private play(bytes: Uint8Array, sampleCount: number): void {
    if (this.inFlight === null) return; // destroyed while waiting for the player
    const playback = this.playback!;
    const delaySec = playback.delayBeforeWrite(this.clock.now() / MS_PER_SEC);
    const write = (): void => {
      this.writeTimer = null;
      playback.onWrite(sampleCount, this.clock.now() / MS_PER_SEC);
      this.startTicker();
      const stdin = this.proc?.child.stdin;
      if (!stdin || bytes.length === 0) {
        this.completeWrite();
        return;
      }
      if (stdin.write(bytes)) this.completeWrite();
      else stdin.once('drain', () => this.completeWrite());
    };
    if (delaySec > 0) this.writeTimer = this.clock.setTimeout(write, delaySec * MS_PER_SEC);
    else write();
  }

  /** Calls back the write in flight once: on success, on failure, or when the sink is destroyed. */
  private completeWrite(err?: Error): void {
    const callback = this.inFlight;
    this.inFlight = null;
    callback?.(err);
  }

  override _final(callback: (err?: Error | null) => void): void {
    this.finishing = () => {
      this.finishing = null;
      this.stopTicker();
      this.allHeard = true;
      this.emitPosition();
      callback();
    };
    if (this.proc) {
      this.proc.child.stdin?.end();
      if (this.proc.exited) this.finishing();
      // else: the child's exit completes it (see startPlayer)
    } else {
      this.playback?.flush(this.clock.now() / MS_PER_SEC);
      this.waitUntilHeard();
    }
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.stopTicker();
    if (this.writeTimer !== null) this.clock.clearTimeout(this.writeTimer);
    this.writeTimer = null;
    this.proc?.stop();
    // A write waiting for the pacing timer, for 'drain' or for the player to start would
    // otherwise never be called back, and whoever awaits it would hang.
    this.completeWrite(err ?? new SinkError('SINK_IO', 'the player sink was closed'));
    callback(err);
  }

  private accept(chunk: AudioFrame | Uint8Array): { bytes: Uint8Array; sampleCount: number } {
    let bytes: Uint8Array;
    let format: PlayerFormat;
    if (chunk instanceof Uint8Array) {
      const sampleRate = this.options.sampleRate;
      if (sampleRate === undefined)
        throw new SinkError('INVALID_OPTION', 'raw bytes written to a player sink need options.sampleRate', { field: 'sampleRate' });
      format = { sampleRate, channels: this.options.channels ?? 1 };
      bytes = chunk;
    } else {
      if (chunk.encoding !== 's16le') {
        throw new SinkError('INVALID_OPTION', `a player sink plays s16le frames, got ${chunk.encoding} (set output.encoding to 's16le')`, {
          field: 'encoding',
        });
      }
      format = { sampleRate: chunk.sampleRate, channels: chunk.channels };
      bytes = new Uint8Array(chunk.samples.buffer, chunk.samples.byteOffset, chunk.samples.byteLength);
    }
    if (this.format === null) {
      this.format = format;
      const latencyMs = this.options.latencyMs ?? this.player?.latencyMs ?? 0;
      this.playback = new PlaybackClock({
        sampleRate: format.sampleRate,
        bufferSec: latencyMs / MS_PER_SEC,
        leadSec: (this.options.leadMs ?? DEFAULT_LEAD_MS) / MS_PER_SEC,
      });
      if (this.player) this.startPlayer(this.player, format);
    } else if (format.sampleRate !== this.format.sampleRate || format.channels !== this.format.channels) {
      throw new SinkError(
        'FORMAT_MISMATCH',
        `the audio format changed mid-stream (${this.format.sampleRate} Hz × ${this.format.channels}` +
          ` → ${format.sampleRate} Hz × ${format.channels})`,
      );
    }
    return { bytes, sampleCount: bytes.length / (S16_BYTES * format.channels) };
  }

  private startPlayer(player: PlayerCommand, format: PlayerFormat): void {
    const env = this.options.env ?? this.options.detect?.env ?? process.env;
    const proc = new PlayerProcess(player, format, env, this.clock, {
      onStartFailure: (err) => this.destroy(err),
      onExit: (code, signal) => {
        if (this.destroyed) return;
        if (code === 0 && this.finishing) this.finishing();
        else this.destroy(proc.exitError(code, signal));
      },
    });
    this.proc = proc;
    this.ready = proc.ready;
  }

  private waitUntilHeard(): void {
    if (!this.finishing) return;
    const remainingSec = this.playback?.remaining(this.clock.now() / MS_PER_SEC) ?? 0;
    if (remainingSec <= 0) {
      this.finishing();
      return;
    }
    this.writeTimer = this.clock.setTimeout(() => this.waitUntilHeard(), remainingSec * MS_PER_SEC);
  }

  private startTicker(): void {
    if (this.ticker !== null) return;
    const interval = this.options.positionIntervalMs ?? DEFAULT_POSITION_INTERVAL_MS;
    const tick = (): void => {
      this.ticker = null;
      this.emitPosition();
      const remaining = this.playback?.remaining(this.clock.now() / MS_PER_SEC) ?? 0;
      if (remaining > 0) this.ticker = this.clock.setTimeout(tick, Math.min(interval, remaining * MS_PER_SEC + 1));
    };
    this.ticker = this.clock.setTimeout(tick, interval);
  }

  private stopTicker(): void {
    if (this.ticker !== null) this.clock.clearTimeout(this.ticker);
    this.ticker = null;
  }

  private emitPosition(): void {
    const heard = this.heardSamples();
    if (heard !== this.lastPosition) {
      this.lastPosition = heard;
      this.emit('position', heard);
    }
  }
}

/**
 * A player sink for this machine's sound output.
 *
 * @throws SinkError `NO_AUDIO_DEVICE` when no device or player is found (checked before any
 * audio library or process is touched).
 * @example
 * ```ts
 * const { stream } = await client.tts.streamWithTimestamps({ text: 'Hello' }, { playhead: 'external' });
 * const sink = createPlayerSink();
 * sink.on('position', (samples) => stream.playhead.advanceTo(samples));
 * await pipeline(stream, sink);
 * ```
 */
export function createPlayerSink(options: PlayerSinkOptions = {}): PlayerSink {
  if (options.player !== undefined) return new PlayerSink(options.player, options);
  const check = detectAudioOutput(options.detect);
  if (!check.ok) throw new SinkError('NO_AUDIO_DEVICE', check.reason);
  return new PlayerSink(check.player, options);
}

/** A sink that consumes audio at real time in silence: live captions without a sound device. */
export function createRealtimeSink(options: Omit<PlayerSinkOptions, 'player'> = {}): PlayerSink {
  return new PlayerSink(null, options);
}
