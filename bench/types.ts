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

/** The scenarios of issue 6 (bench/run.ts groups results by them in results.json and the README). */
export type IssueScenario = 1 | 2 | 3 | 4 | 5 | 6;

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
  /** Whether the target was met; left undefined in quick mode (a smoke run claims nothing). */
  met?: boolean;
  /** The command that reproduces it. */
  command: string;
  notes?: string;
  /** Which issue-6 scenario this result belongs to (else the runner maps it by module name). */
  issueScenario?: IssueScenario;
}
