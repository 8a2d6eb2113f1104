/**
 * The shape every `bench/*.bench.ts` module exports, so that `bench/run.ts` can print one table
 * and write `bench/results.json`.
 *
 * A bench module: `export async function run(opts: BenchOptions): Promise<BenchResult[]>`.
 */
export interface BenchOptions {
  /** A short smoke run (CI): a handful of iterations, no claims. */
  quick: boolean;
}

export interface BenchResult {
  /** Scenario label, by payload and chunk size: `'event stage / 8 KiB events / 1–4000 B splits'`. */
  scenario: string;
  /** The figures measured, with units in the key: `{ 'MB/s': 812, 'heap B/event': 540 }`. */
  figures: Record<string, number | string>;
  /** The anchor compared against (`'naive pipeline'`, `'raw codec'`), and our ratio to it. */
  anchor?: string;
  ratio?: number;
  /** The target the issue names, in words (`'≥ 3× naive'`), and whether it was met. */
  target?: string;
  met?: boolean;
  /** The command that reproduces it. */
  command: string;
  notes?: string;
}
