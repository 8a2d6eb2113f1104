/**
 * The child process behind a {@link PlayerSink}: started with the stream's format, ready once
 * spawned (and, for a custom player with `readyText`, once that text appears on its stderr), with
 * the tail of its stderr kept so that a failure names the player, how it ended and its last words.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { SinkError } from '../errors.js';
import type { Clock } from '../internal/clock.js';
import type { PlayerCommand } from './audioOutput.js';

/** Bytes of the player's stderr kept for an error message. */
const STDERR_TAIL_BYTES = 2048;
/** Longest wait for a custom player's `readyText`. */
export const READY_TIMEOUT_MS = 10_000;

export interface PlayerFormat {
  sampleRate: number;
  channels: number;
}

export interface PlayerProcessHandlers {
  /** It could not be started: the error names the player and the reason. */
  onStartFailure(err: SinkError): void;
  /** It exited (see {@link PlayerProcess.exitError} for a message). */
  onExit(code: number | null, signal: NodeJS.Signals | null): void;
}

export class PlayerProcess {
  readonly child: ChildProcess;
  /** How messages name it: a built-in by its name, a custom one by its command line. */
  readonly label: string;
  /** Resolves when it can take audio; rejects with `PLAYER_FAILED` when it never will. */
  readonly ready: Promise<void>;
  private exitedFlag = false;
  private stderrTail = '';
  private readyTimer: unknown = null;

  constructor(
    player: PlayerCommand,
    format: PlayerFormat,
    env: NodeJS.ProcessEnv,
    private readonly clock: Clock,
    handlers: PlayerProcessHandlers,
  ) {
    const child = spawn(player.command, player.args(format), {
      stdio: ['pipe', 'ignore', 'pipe'],
      env: { ...env, VOICEWIRE_SAMPLE_RATE: String(format.sampleRate), VOICEWIRE_CHANNELS: String(format.channels) },
    });
    this.child = child;
    const label = player.name === 'custom' ? [player.command, ...player.args(format)].join(' ') : player.name;
    this.label = label;
    child.stderr?.setEncoding('utf8');
    let onStderr: (() => void) | null = null;
    child.stderr?.on('data', (s: string) => {
      this.stderrTail = (this.stderrTail + s).slice(-STDERR_TAIL_BYTES);
      onStderr?.();
    });
    let failReady: (err: Error) => void = () => undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      failReady = reject;
      child.once('spawn', () => {
        const readyText = player.readyText;
        if (readyText === undefined) {
          resolve();
          return;
        }
        this.readyTimer = this.clock.setTimeout(() => {
          this.readyTimer = null;
          onStderr = null;
          reject(
            new SinkError('PLAYER_FAILED', `the player ${label} did not print ${JSON.stringify(readyText)} within ${READY_TIMEOUT_MS} ms`),
          );
        }, READY_TIMEOUT_MS);
        onStderr = () => {
          if (!this.stderrTail.includes(readyText)) return;
          onStderr = null;
          this.clearReadyTimer();
          this.stderrTail = this.stderrTail.replace(readyText, '');
          resolve();
        };
        onStderr();
      });
    });
    this.ready.catch(() => {}); // also reported through the handlers
    // EPIPE when the player quits early: reported through 'exit' below.
    child.stdin?.on('error', () => {});
    child.on('error', (err) => {
      this.exitedFlag = true;
      const failure = new SinkError('PLAYER_FAILED', `could not start the player ${label}: ${err.message}`, { cause: err });
      failReady(failure);
      handlers.onStartFailure(failure);
    });
    child.on('exit', (code, signal) => {
      this.exitedFlag = true;
      handlers.onExit(code, signal);
    });
  }

  /** True once the child has exited (or never started). */
  get exited(): boolean {
    return this.exitedFlag;
  }

  /** The `PLAYER_FAILED` error for an exit before the end: the player, how it ended, its last stderr line. */
  exitError(code: number | null, signal: NodeJS.Signals | null): SinkError {
    const how = signal !== null ? `was killed by ${signal}` : `exited with code ${code}`;
    const detail = this.stderrTail.trim().split('\n').pop();
    return new SinkError('PLAYER_FAILED', `the player ${this.label} ${how}${detail ? `: ${detail}` : ''}`);
  }

  /** Stops the child, if it still runs, and any wait for its ready text. */
  stop(): void {
    this.clearReadyTimer();
    if (this.exitedFlag) return;
    this.child.stdin?.destroy();
    this.child.kill('SIGTERM');
  }

  private clearReadyTimer(): void {
    if (this.readyTimer !== null) this.clock.clearTimeout(this.readyTimer);
    this.readyTimer = null;
  }
}
