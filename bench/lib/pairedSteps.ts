/**
 * Paired fixed-N comparison of two contenders (bench/telephonyPaired.ts): the same N, the same
 * openings, run back to back in alternating order round after round, so a spell of outside load
 * lands on both sides of a pair alike and cancels in the pair's ratio. Pure: takes the measured
 * figures, returns per-pair ratios and their spread over the rounds.
 *
 * Why ratios per pair and not the ratio of medians: on a shared machine one contender's absolute
 * CPU per call-second moves by ±20 % between rounds; within a pair (seconds apart) both see the
 * same machine. The interval reported is the range of the pair ratios (min…max) and the middle
 * half (the 25th to 75th percentile, nearest rank): with K rounds, the chance that the true median
 * ratio is outside [min, max] is 2 / 2^K (sign test), 1/8 for K = 4, 1/32 for K = 6.
 */
import { percentile, sortedCopy } from './stats.js';

/** One step's figures that a pair compares (larger is dearer for every one of them). */
export interface StepFigures {
  bridgeCpuPerCallSecond: number;
  cpuPerCallSecond: number;
  peerCpuPerCallSecond: number;
  /** Bridge event-loop busy share, 0..1. */
  busy: number;
  p99: number;
}

export const PAIRED_FIGURES: readonly (keyof StepFigures)[] = [
  'bridgeCpuPerCallSecond',
  'cpuPerCallSecond',
  'peerCpuPerCallSecond',
  'busy',
  'p99',
];

export interface PairedSample {
  round: number;
  calls: number;
  /** The contender compared (`b`) and the reference (`a`): one step each in the same round. */
  a: StepFigures;
  b: StepFigures;
}

export interface RatioSpread {
  /** How many pairs. */
  pairs: number;
  /** b / a per pair, in round order. */
  ratios: number[];
  median: number;
  /** 25th and 75th percentile (nearest rank). */
  low: number;
  high: number;
  min: number;
  max: number;
  /** Pairs where b was dearer than a (ratio > 1). */
  bDearer: number;
}

/** The spread of b / a over the pairs at `calls` (all N when omitted) for one figure. */
export function ratioSpread(samples: readonly PairedSample[], figure: keyof StepFigures, calls?: number): RatioSpread {
  const chosen = samples.filter((s) => calls === undefined || s.calls === calls);
  const ratios = chosen.map((s) => s.b[figure] / s.a[figure]).filter(Number.isFinite);
  const sorted = sortedCopy(ratios);
  return {
    pairs: ratios.length,
    ratios,
    median: percentile(sorted, 0.5),
    low: percentile(sorted, 0.25),
    high: percentile(sorted, 0.75),
    min: sorted[0] ?? NaN,
    max: sorted[sorted.length - 1] ?? NaN,
    bDearer: ratios.filter((r) => r > 1).length,
  };
}

/**
 * Order of the two contenders in round `round` (0-based): a b, b a, a b, …, so neither always
 * runs first (the first step of a round follows the bare timer or the other N's pair).
 */
export function pairOrder<T>(a: T, b: T, round: number): [T, T] {
  return round % 2 === 0 ? [a, b] : [b, a];
}
