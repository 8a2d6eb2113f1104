/**
 * Small SVG helpers for the report and the viewer: escaping, a linear scale, "nice" axis ticks.
 * Hand-written SVG: the pages stay self-contained (no charting library, no network).
 */

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Fixed decimals that SVG coordinates need (keeps the files small). */
export function f(n: number): string {
  return Number.isFinite(n) ? String(Math.round(n * 10) / 10) : '0';
}

/** Contender colours; red is kept for underruns and failures. */
export const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#17becf', '#8c564b', '#e377c2', '#7f7f7f'];

export function colorOf(index: number): string {
  return PALETTE[index % PALETTE.length]!;
}

/** Step sizes an axis may use, per power of ten. */
const NICE_STEPS = [1, 2, 5, 10];
const TARGET_TICKS = 6;

/** Ticks from 0 (or `min`) to at least `max`, at a 1/2/5 × 10ⁿ step. */
export function niceTicks(min: number, max: number, target = TARGET_TICKS): number[] {
  const lo = Math.min(0, min);
  const span = Math.max(max - lo, Number.EPSILON);
  const raw = span / target;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = (NICE_STEPS.find((s) => s * pow >= raw) ?? 10) * pow;
  const ticks: number[] = [];
  for (let t = Math.floor(lo / step) * step; t <= max + step * 0.999; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

export function linear(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const k = d1 === d0 ? 0 : (r1 - r0) / (d1 - d0);
  return (v) => r0 + (v - d0) * k;
}

/** A tick label: integers as such, else up to 3 significant decimals. */
export function tickLabel(v: number): string {
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(3)));
}
