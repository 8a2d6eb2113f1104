/**
 * The caller's audio, kept for turns: a ring of recent inbound samples (the pre-roll, and the
 * windows the echo gate reads), and the open turn's samples in fixed chunks up to maxTurnMs.
 * Pure: times are sample indices on the line timeline.
 */
import { InvalidOptionError } from '../../errors.js';
import { Resampler } from '../../dsp/Resampler.js';
import { S16_MAX, S16_MIN, S16_SCALE } from '../../internal/s16.js';
import { DEFAULT_MAX_TURN_MS, DEFAULT_PRE_ROLL_MS, LINE_RATE, type CallerTurn, type CallerTurnOptions } from './types.js';

const MS_PER_SECOND = 1000;
/**
 * A turn never starts more than the pre-roll plus this long before the sample at which it was
 * confirmed (so the ring is bounded and the start does not depend on how pushes were split).
 */
export const TURN_ONSET_LOOKBACK_MS = 2000;
/** Inbound audio is handled in slices of at most this many samples. */
export const INBOUND_SLICE_SAMPLES = 1024;
/** Slack for the VAD window still being scored when its slice has been appended. */
const RING_SLACK_SAMPLES = 1024;
/** A turn's samples are kept in chunks of this many (1 s at 8 kHz): no copy as it grows. */
const TURN_CHUNK_SAMPLES = 8000;
/**
 * Chunks kept from one turn for the next (4 s, 64 KB a call): a turn's chunks are reused, not
 * allocated anew (on the detector thread, every call's turns made fresh 16 KB arrays, whose pages
 * the kernel zeroed; native-notes/vad.md, "The detector thread's cost inside the bridge"). A
 * longer turn's further chunks are dropped at its end, so a call holds at most this many between turns.
 */
const KEPT_CHUNKS = 4;

export class CallerTurns {
  readonly preRoll: number;
  readonly maxTurn: number;
  readonly sampleRate: 8000 | 16000;
  private readonly ring: Int16Array;
  /** Samples appended so far (the line timeline's end). */
  private written = 0;
  /** The open turn's chunks, in order (those past the turn's length are spares from earlier turns). */
  private readonly chunks: Int16Array[] = [];
  private turnFrom = -1;
  private onset = 0;
  private turnLength = 0;
  private truncated = false;

  constructor(options: CallerTurnOptions = {}) {
    const preRollMs = options.preRollMs ?? DEFAULT_PRE_ROLL_MS;
    const maxTurnMs = options.maxTurnMs ?? DEFAULT_MAX_TURN_MS;
    if (!(preRollMs >= 0 && preRollMs <= TURN_ONSET_LOOKBACK_MS)) {
      throw new InvalidOptionError('preRollMs', `preRollMs must be within 0..${TURN_ONSET_LOOKBACK_MS}, got ${preRollMs}`);
    }
    if (!(maxTurnMs > 0 && Number.isFinite(maxTurnMs)))
      throw new InvalidOptionError('maxTurnMs', `maxTurnMs must be a finite number > 0, got ${maxTurnMs}`);
    const rate = options.turnSampleRate ?? LINE_RATE;
    if (rate !== 8000 && rate !== 16000)
      throw new InvalidOptionError('turnSampleRate', `turnSampleRate must be 8000 or 16000, got ${String(rate)}`);
    this.sampleRate = rate;
    this.preRoll = Math.round((preRollMs * LINE_RATE) / MS_PER_SECOND);
    this.maxTurn = Math.round((maxTurnMs * LINE_RATE) / MS_PER_SECOND);
    const lookback = this.preRoll + Math.round((TURN_ONSET_LOOKBACK_MS * LINE_RATE) / MS_PER_SECOND);
    this.ring = new Int16Array(lookback + INBOUND_SLICE_SAMPLES + RING_SLACK_SAMPLES);
  }

  get position(): number {
    return this.written;
  }

  /** Inbound samples, in order (at most {@link INBOUND_SLICE_SAMPLES} at a time). */
  append(pcm: Int16Array): void {
    const size = this.ring.length;
    for (let i = 0; i < pcm.length;) {
      const at = (this.written + i) % size;
      const n = Math.min(pcm.length - i, size - at);
      this.ring.set(pcm.subarray(i, i + n), at);
      i += n;
    }
    if (this.turnFrom >= 0) this.toTurn(pcm);
    this.written += pcm.length;
  }

  /** Copies [from, from + out.length) of the recent audio into `out` (it must still be in the ring). */
  read(from: number, out: Int16Array): Int16Array {
    const size = this.ring.length;
    for (let i = 0; i < out.length;) {
      const at = (from + i) % size;
      const n = Math.min(out.length - i, size - at);
      out.set(this.ring.subarray(at, at + n), i);
      i += n;
    }
    return out;
  }

  /** A turn began at `onset` (confirmed at `detectedAt`): keeps the pre-roll and what followed. */
  start(onset: number, detectedAt: number): void {
    const lookback = this.preRoll + Math.round((TURN_ONSET_LOOKBACK_MS * LINE_RATE) / MS_PER_SECOND);
    this.turnFrom = Math.max(0, onset - this.preRoll, detectedAt - lookback);
    this.onset = Math.max(onset, this.turnFrom);
    this.turnLength = 0;
    this.truncated = false;
    // The held samples go from the ring into the turn's chunks directly (no copy in between).
    const size = this.ring.length;
    for (let from = this.turnFrom; from < this.written;) {
      const at = from % size;
      const n = Math.min(this.written - from, size - at);
      this.toTurn(this.ring.subarray(at, at + n));
      from += n;
    }
  }

  private toTurn(pcm: Int16Array): void {
    for (let i = 0; i < pcm.length;) {
      if (this.turnLength >= this.maxTurn) {
        this.truncated = true;
        return;
      }
      const k = Math.floor(this.turnLength / TURN_CHUNK_SAMPLES);
      // A chunk is written from its start before any of it is read, so a spare one needs no clearing.
      if (k === this.chunks.length) this.chunks.push(new Int16Array(TURN_CHUNK_SAMPLES));
      const at = this.turnLength % TURN_CHUNK_SAMPLES;
      const n = Math.min(pcm.length - i, TURN_CHUNK_SAMPLES - at, this.maxTurn - this.turnLength);
      this.chunks[k]!.set(pcm.subarray(i, i + n), at);
      this.turnLength += n;
      i += n;
    }
  }

  /** The open turn, ended at `endSample` (first sample of its silence); null when none is open. */
  end(endSample: number): CallerTurn | null {
    if (this.turnFrom < 0) return null;
    const from = this.turnFrom;
    this.turnFrom = -1;
    let length = Math.max(0, Math.min(endSample, this.written) - from);
    const truncated = this.truncated || length > this.maxTurn;
    length = Math.min(length, this.maxTurn);
    const audio = new Int16Array(length);
    for (let k = 0; k * TURN_CHUNK_SAMPLES < length; k++) {
      audio.set(this.chunks[k]!.subarray(0, Math.min(TURN_CHUNK_SAMPLES, length - k * TURN_CHUNK_SAMPLES)), k * TURN_CHUNK_SAMPLES);
    }
    if (this.chunks.length > KEPT_CHUNKS) this.chunks.length = KEPT_CHUNKS;
    return {
      startSample: from,
      endSample: from + length,
      onsetSample: this.onset,
      sampleRate: this.sampleRate,
      audio: this.sampleRate === LINE_RATE ? audio : upsample(audio, this.sampleRate),
      truncated,
    };
  }

  reset(): void {
    this.written = 0;
    this.turnFrom = -1;
    if (this.chunks.length > KEPT_CHUNKS) this.chunks.length = KEPT_CHUNKS;
  }
}

/** 8 kHz → `rate` through the Speex resampler (loaded by createBargeInDetector): exactly n × rate / 8000 samples. */
function upsample(pcm: Int16Array, rate: number): Int16Array {
  const r = new Resampler(1, LINE_RATE, rate);
  const out = new Int16Array(Math.round((pcm.length * rate) / LINE_RATE));
  let at = 0;
  const take = (f: Float32Array): void => {
    for (let i = 0; i < f.length && at < out.length; i++) {
      out[at++] = Math.max(S16_MIN, Math.min(S16_MAX, Math.round(f[i]! * S16_SCALE)));
    }
  };
  try {
    r.process(
      Float32Array.from(pcm, (x) => x / S16_SCALE),
      take,
    );
    r.flush(take);
  } finally {
    r.free();
  }
  return out;
}
