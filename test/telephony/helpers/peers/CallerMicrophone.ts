/**
 * The caller's microphone on any provider's test peer: every 20 ms of injected clock time it
 * builds one frame at the line rate from the committed corpus clips (μ-law 8 kHz, each sample
 * repeated at 16 kHz) playing at their moments, plus, if set, the bot's own audio as the peer's
 * speaker played it, some dB down and some ms later (echo), and hands it to the peer to send in
 * its own format and framing. The loop stops itself at `until` or when the socket closes.
 */
import { mulawDecodeSample } from '../../../../src/dsp/mulaw.js';
import type { ManualClock } from '../ManualClock.js';

/** Providers send the caller's audio in 20 ms frames. */
export const CALLER_FRAME_MS = 20;
/** The corpus rate. */
const CLIP_RATE = 8000;
const S16_MAX = 32767;
const S16_MIN = -32768;
const DB_PER_DECADE = 20;

export interface CallerMicrophone {
  /** Caller audio (μ-law 8 kHz corpus bytes) starting at clock time `at`; silence elsewhere. */
  clips?: { at: number; mulaw: Uint8Array }[];
  /** The bot's audio as the speaker played it, returned this many dB down, this many ms later. */
  echo?: { db: number; delayMs: number };
  /** Clock time the microphone stops (bounds the loop). */
  until: number;
}

export interface MicrophonePort {
  clock: ManualClock;
  sampleRate: number;
  /** The s16 the peer's speaker played during [from, from + n samples) of clock time. */
  played(from: number, n: number): Int16Array;
  /** Sends one frame of caller audio (s16 at the line rate) in the provider's format. */
  send(pcm: Int16Array): void;
  isOpen(): boolean;
}

/** Starts the microphone; returns a counter of the frames it sent. */
export function startCallerMicrophone(port: MicrophonePort, mic: CallerMicrophone): { frames: number } {
  const { clock, sampleRate } = port;
  const perMs = sampleRate / 1000;
  const repeat = sampleRate / CLIP_RATE;
  const n = CALLER_FRAME_MS * perMs;
  const gain = mic.echo === undefined ? 0 : 10 ** (-mic.echo.db / DB_PER_DECADE);
  const counter = { frames: 0 };
  let frameStart = clock.now();
  const tick = (): void => {
    const now = clock.now();
    if (now > mic.until || !port.isOpen()) return;
    const pcm = new Int16Array(n);
    for (const c of mic.clips ?? []) {
      const first = Math.round((frameStart - c.at) * perMs);
      for (let k = 0; k < n; k++) {
        const i = Math.floor((first + k) / repeat);
        if (first + k >= 0 && i < c.mulaw.length) pcm[k] = pcm[k]! + mulawDecodeSample(c.mulaw[i]!);
      }
    }
    if (mic.echo !== undefined) {
      const echo = port.played(frameStart - mic.echo.delayMs, n);
      for (let k = 0; k < n; k++) pcm[k] = Math.max(S16_MIN, Math.min(S16_MAX, Math.round(pcm[k]! + gain * echo[k]!)));
    }
    port.send(pcm);
    counter.frames++;
    frameStart += CALLER_FRAME_MS;
    clock.setTimeout(tick, frameStart + CALLER_FRAME_MS - now);
  };
  clock.setTimeout(tick, CALLER_FRAME_MS);
  return counter;
}
