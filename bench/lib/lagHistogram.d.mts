// Types of bench/lib/lagHistogram.mjs (plain JavaScript: the phones' worker thread runs without a TypeScript loader).
export const LAG_BUCKET_MS: number;
export const LAG_RANGE_MS: number;
export class LagHistogram {
  readonly count: number;
  readonly maxMs: number;
  record(ms: number): void;
  quantile(q: number): number;
  over(ms: number): number;
  reset(): void;
}
