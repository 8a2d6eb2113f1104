/**
 * `createBargeInDetector()`: one call's barge-in by voice. Wires the caller-audio VAD
 * (`createVad`, its per-window probabilities), the echo gate (fed what the bridge played) and the
 * barge-in policy, and keeps each caller turn's audio. Push the caller's audio (μ-law bytes or L16
 * at 8 kHz) and note every frame the bot plays; each call returns the decisions its audio
 * completed. Clock-free: times are samples on the line timeline (see ./types.ts).
 */
import { InvalidOptionError } from '../../errors.js';
import { mulawDecode } from '../../dsp/mulaw.js';
import { loadResampler } from '../../dsp/Resampler.js';
import { createVad, type Vad } from '../vad/createVad.js';
import type { VadBackend, VadOptions } from '../vad/types.js';
import { BargeInPolicy } from './BargeInPolicy.js';
import { CallerTurns, INBOUND_SLICE_SAMPLES } from './CallerTurns.js';
import { EchoGate } from './EchoGate.js';
import { NoiseFloor } from './NoiseFloor.js';
import { LINE_RATE, type BargeInDecision, type BargeInPolicyOptions, type CallerTurnOptions, type EchoGateOptions } from './types.js';

const MS_PER_SECOND = 1000;
/** A push whose `atMs` is later than the audio so far by more than one 20 ms media frame fills the gap with silence. */
export const INBOUND_GAP_TOLERANCE_MS = 20;
/** The longest gap filled with silence; a later push starts after this much (bounded work per push). */
export const MAX_INBOUND_GAP_MS = 10_000;

export interface BargeInDetectorOptions extends BargeInPolicyOptions, EchoGateOptions, CallerTurnOptions {
  /** The VAD's backend and notices (its sample rate is the line's 8 kHz). */
  vad?: Pick<VadOptions, 'backend' | 'webrtcMode' | 'onNotice' | 'loadOnnxRuntime'> | undefined;
  /** false: no echo gating (every window may be the caller). For measurements. @defaultValue true */
  echoGate?: boolean | undefined;
}

export interface BargeInDetector {
  /** The VAD backend in use (`'webrtc'` after a fallback). */
  readonly vadBackend: VadBackend;
  /** Inbound samples taken so far: the line timeline's end. */
  readonly position: number;
  readonly isPaused: boolean;
  /**
   * The caller's audio, in order. `atMs`, if given, is the time of its first sample: a gap over
   * one frame is filled with silence (lost packets); an earlier time is ignored.
   */
  push(audio: Uint8Array | Int16Array, atMs?: number): BargeInDecision[];
  /** A frame the phone plays from `atMs` (the bot's audio, μ-law or L16 8 kHz). Note it before the inbound audio that may echo it. */
  notePlayed(audio: Uint8Array | Int16Array, atMs: number): void;
  /** The bot started / stopped speaking (an utterance is in progress, paused or not). */
  setBotSpeaking(speaking: boolean): void;
  /** End of the call's audio: closes an open turn. */
  flush(): BargeInDecision[];
  /** A new stream: everything starts again from sample 0. */
  reset(): void;
  close(): void;
}

export async function createBargeInDetector(options: BargeInDetectorOptions = {}): Promise<BargeInDetector> {
  const gate = new EchoGate(options);
  const policy = new BargeInPolicy(options);
  const turns = new CallerTurns(options);
  if (turns.sampleRate !== LINE_RATE) await loadResampler();
  const vad = await createVad({ ...options.vad, sampleRate: LINE_RATE, probabilities: true });
  return new Detector(vad, gate, policy, turns, options.echoGate ?? true);
}

class Detector implements BargeInDetector {
  private readonly decoded = new Int16Array(INBOUND_SLICE_SAMPLES);
  private readonly playedDecoded = new Int16Array(INBOUND_SLICE_SAMPLES);
  private readonly windowBuf = new Int16Array(INBOUND_SLICE_SAMPLES);
  private closed = false;
  private readonly floor = new NoiseFloor(LINE_RATE);

  constructor(
    private readonly vad: Vad,
    private readonly gate: EchoGate,
    private readonly policy: BargeInPolicy,
    private readonly turns: CallerTurns,
    private readonly gating: boolean,
  ) {}

  get vadBackend(): VadBackend {
    return this.vad.backend;
  }

  get position(): number {
    return this.turns.position;
  }

  get isPaused(): boolean {
    return this.policy.isPaused;
  }

  push(audio: Uint8Array | Int16Array, atMs?: number): BargeInDecision[] {
    const out: BargeInDecision[] = [];
    if (this.closed) return out;
    checkAudio('audio', audio);
    if (atMs !== undefined) this.fillGap(atMs, out);
    for (let i = 0; i < audio.length; i += INBOUND_SLICE_SAMPLES) {
      const end = Math.min(audio.length, i + INBOUND_SLICE_SAMPLES);
      const pcm =
        audio instanceof Int16Array ? audio.subarray(i, end) : mulawDecode(audio.subarray(i, end), this.decoded.subarray(0, end - i));
      this.slice(pcm, out);
    }
    return out;
  }

  private fillGap(atMs: number, out: BargeInDecision[]): void {
    if (!Number.isFinite(atMs)) throw new InvalidOptionError('atMs', `atMs must be a finite number, got ${atMs}`);
    const expectedMs = (this.turns.position * MS_PER_SECOND) / LINE_RATE;
    if (atMs - expectedMs <= INBOUND_GAP_TOLERANCE_MS) return;
    let gap = Math.round((Math.min(atMs - expectedMs, MAX_INBOUND_GAP_MS) * LINE_RATE) / MS_PER_SECOND);
    const zeros = this.decoded.fill(0);
    while (gap > 0) {
      const n = Math.min(gap, zeros.length);
      this.slice(zeros.subarray(0, n), out);
      gap -= n;
    }
  }

  private slice(pcm: Int16Array, out: BargeInDecision[]): void {
    this.turns.append(pcm);
    for (const e of this.vad.push(pcm)) {
      if (e.type !== 'probability') continue;
      const window = this.turns.read(e.sample, this.windowBuf.subarray(0, e.samples));
      const energy = meanSquare(window);
      const caller = !this.gating || energy > this.gate.echoBound(e.sample, e.samples);
      const before = out.length;
      this.policy.window(e.sample, e.samples, e.probability, caller, out, this.floor.level(energy, e.samples));
      this.afterDecisions(out, before);
    }
  }

  /** Opens and closes turn audio on the policy's edges. */
  private afterDecisions(out: BargeInDecision[], from: number): void {
    for (let k = from; k < out.length; k++) {
      const d = out[k]!;
      if (d.type === 'callerSpeechStarted') this.turns.start(d.sample, d.detectedAt);
      if (d.type === 'callerSpeechEnded') {
        const turn = this.turns.end(d.sample);
        if (turn) out.splice(++k, 0, { type: 'callerTurn', turn, detectedAt: d.detectedAt, atMs: d.atMs });
      }
    }
  }

  notePlayed(audio: Uint8Array | Int16Array, atMs: number): void {
    if (this.closed) return;
    checkAudio('audio', audio);
    if (!Number.isFinite(atMs)) throw new InvalidOptionError('atMs', `atMs must be a finite number, got ${atMs}`);
    const start = (atMs * LINE_RATE) / MS_PER_SECOND;
    for (let i = 0; i < audio.length; i += INBOUND_SLICE_SAMPLES) {
      const end = Math.min(audio.length, i + INBOUND_SLICE_SAMPLES);
      const pcm =
        audio instanceof Int16Array ? audio.subarray(i, end) : mulawDecode(audio.subarray(i, end), this.playedDecoded.subarray(0, end - i));
      this.gate.notePlayed(pcm, start + i);
    }
  }

  setBotSpeaking(speaking: boolean): void {
    this.policy.setBotSpeaking(speaking);
  }

  flush(): BargeInDecision[] {
    const out: BargeInDecision[] = [];
    if (this.closed) return out;
    this.vad.flush();
    this.policy.flush(this.turns.position, out);
    this.afterDecisions(out, 0);
    return out;
  }

  reset(): void {
    this.vad.reset();
    this.gate.reset();
    this.policy.reset();
    this.turns.reset();
    this.floor.reset();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.vad.close();
  }
}

function meanSquare(x: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += x[i]! * x[i]!;
  return sum / Math.max(1, x.length);
}

function checkAudio(field: string, audio: unknown): void {
  if (!(audio instanceof Uint8Array) && !(audio instanceof Int16Array)) {
    throw new InvalidOptionError(field, `${field} must be μ-law bytes (Uint8Array) or L16 samples (Int16Array)`);
  }
}
