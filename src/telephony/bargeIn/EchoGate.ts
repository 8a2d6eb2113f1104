/**
 * Whether inbound audio can be the bot's own echo, from what the bridge played and when. Keeps
 * the energy of each played 10 ms block (by its place on the line timeline) for a bounded
 * history; an inbound window is "possibly the caller" when its mean energy is above the loudest
 * played block that could have echoed into it (delays echoMinDelayMs…echoMaxDelayMs) minus
 * echoReturnLossDb. Silence played, or nothing played, never masks the caller. Pure: no clock.
 * Why an energy bound rather than an echo canceller: native-notes/vad.md, "Barge-in".
 */
import { InvalidOptionError } from '../../errors.js';
import { MULAW_DECODE_TABLE } from '../../dsp/mulaw.js';
import {
  DEFAULT_ECHO_MAX_DELAY_MS,
  DEFAULT_ECHO_MIN_DELAY_MS,
  DEFAULT_ECHO_RETURN_LOSS_DB,
  LINE_RATE,
  type EchoGateOptions,
} from './types.js';

/** Played audio is summarised per 10 ms block (80 samples at 8 kHz). */
export const ECHO_BLOCK_SAMPLES = 80;
/**
 * Played blocks kept: 2 s (echo delay + how far ahead of playing frames are noted, ~200 ms lead
 * + queue); older or newer blocks read as silence.
 */
export const ECHO_HISTORY_BLOCKS = 200;
const MS_PER_SECOND = 1000;
/** Each μ-law code's decoded sample squared: a played block's energy without decoding it (the same sums, exactly: integers). */
const MULAW_SQUARES: Float64Array = Float64Array.from(MULAW_DECODE_TABLE, (x) => x * x);

export class EchoGate {
  private readonly sums = new Float64Array(ECHO_HISTORY_BLOCKS);
  /** Block index held by each slot (-1: empty). */
  private readonly tags = new Float64Array(ECHO_HISTORY_BLOCKS).fill(-1);
  private readonly minDelay: number;
  private readonly maxDelay: number;
  /** Linear energy factor of the return loss. */
  private readonly loss: number;

  constructor(options: EchoGateOptions = {}) {
    const minMs = options.echoMinDelayMs ?? DEFAULT_ECHO_MIN_DELAY_MS;
    const maxMs = options.echoMaxDelayMs ?? DEFAULT_ECHO_MAX_DELAY_MS;
    const lossDb = options.echoReturnLossDb ?? DEFAULT_ECHO_RETURN_LOSS_DB;
    const historyMs = (ECHO_HISTORY_BLOCKS * ECHO_BLOCK_SAMPLES * MS_PER_SECOND) / LINE_RATE / 2;
    if (!(minMs >= 0 && maxMs >= minMs && maxMs <= historyMs)) {
      throw new InvalidOptionError('echoMaxDelayMs', `echo delays must satisfy 0 ≤ min (${minMs}) ≤ max (${maxMs}) ≤ ${historyMs} ms`);
    }
    if (!Number.isFinite(lossDb)) throw new InvalidOptionError('echoReturnLossDb', `echoReturnLossDb must be finite, got ${lossDb}`);
    this.minDelay = Math.round((minMs * LINE_RATE) / MS_PER_SECOND);
    this.maxDelay = Math.round((maxMs * LINE_RATE) / MS_PER_SECOND);
    this.loss = 10 ** (-lossDb / 10);
  }

  /** The bot's audio the phone plays from `startSample` on (PCM s16, 8 kHz). */
  notePlayed(pcm: Int16Array, startSample: number): void {
    const start = Math.round(startSample);
    for (let i = 0; i < pcm.length;) {
      const at = start + i;
      const block = Math.floor(at / ECHO_BLOCK_SAMPLES);
      const n = Math.min(pcm.length - i, (block + 1) * ECHO_BLOCK_SAMPLES - at);
      let sum = 0;
      for (let k = i; k < i + n; k++) sum += pcm[k]! * pcm[k]!;
      this.add(block, sum);
      i += n;
    }
  }

  /** The same as {@link notePlayed} for μ-law codes (8 kHz): each block's energy from the codes, nothing decoded. */
  notePlayedMulaw(codes: Uint8Array, startSample: number): void {
    const start = Math.round(startSample);
    const squares = MULAW_SQUARES;
    for (let i = 0; i < codes.length;) {
      const at = start + i;
      const block = Math.floor(at / ECHO_BLOCK_SAMPLES);
      const n = Math.min(codes.length - i, (block + 1) * ECHO_BLOCK_SAMPLES - at);
      let sum = 0;
      for (let k = i; k < i + n; k++) sum += squares[codes[k]!]!;
      this.add(block, sum);
      i += n;
    }
  }

  private add(block: number, sum: number): void {
    const slot = ((block % ECHO_HISTORY_BLOCKS) + ECHO_HISTORY_BLOCKS) % ECHO_HISTORY_BLOCKS;
    if (this.tags[slot] !== block) {
      this.tags[slot] = block;
      this.sums[slot] = 0;
    }
    this.sums[slot]! += sum;
  }

  /** The highest energy (mean square, s16 units) the echo of what was played can have in [start, start + length). */
  echoBound(start: number, length: number): number {
    const first = Math.floor((start - this.maxDelay) / ECHO_BLOCK_SAMPLES);
    const last = Math.floor((start + length - 1 - this.minDelay) / ECHO_BLOCK_SAMPLES);
    let max = 0;
    for (let b = first; b <= last; b++) {
      const slot = ((b % ECHO_HISTORY_BLOCKS) + ECHO_HISTORY_BLOCKS) % ECHO_HISTORY_BLOCKS;
      if (this.tags[slot] === b && this.sums[slot]! > max) max = this.sums[slot]!;
    }
    return (max / ECHO_BLOCK_SAMPLES) * this.loss;
  }

  /** Whether an inbound window (its PCM and first sample) is louder than any echo could be. */
  possiblyCaller(window: Int16Array, start: number): boolean {
    let sum = 0;
    for (let i = 0; i < window.length; i++) sum += window[i]! * window[i]!;
    return sum / Math.max(1, window.length) > this.echoBound(start, window.length);
  }

  reset(): void {
    this.tags.fill(-1);
    this.sums.fill(0);
  }
}
