/**
 * `voicewire latency`: benchmarks a speech endpoint (or several, side by side). Thin: arguments →
 * `measureLatency` (src/latency) → the summary table, the JSON / CSV / HTML files and captures.
 * See {@link LATENCY_USAGE} for the flags and exit codes.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { latencyCsv } from '../latency/csv.js';
import { measureLatency } from '../latency/measureLatency.js';
import { latencyReportHtml } from '../latency/report/html.js';
import { runTable } from '../latency/report/text.js';
import { analyzeCapture } from '../latency/view/captureView.js';
import { captureViewerHtml } from '../latency/view/viewerHtml.js';
import type { FailureKind, LatencyRecord, LatencyRun, LatencyTarget, MeasureLatencyOptions } from '../latency/types.js';
import { InvalidOptionError } from '../errors.js';
import { EXIT_FAILED, EXIT_INTERRUPTED, EXIT_IO, EXIT_OK, EXIT_USAGE } from './exitCodes.js';
import { LATENCY_USAGE, LatencyUsageError, parseLatencyArgs, textsFromFile, type LatencyCliOptions } from './latencyArgs.js';
import { createLatencyProgress } from './latencyProgress.js';

export { LATENCY_USAGE } from './latencyArgs.js';

const PREFIX = 'voicewire latency: ';
/** Failures after which every further request would fail alike: the run stops at the first. */
const STOPPING_FAILURES: readonly FailureKind[] = ['http-4xx', 'connection', 'not-event-stream'];

type Terminal = { write(s: string): unknown; isTTY?: boolean };

/** Where `latency` reads and writes; tests pass their own. */
export interface LatencyIo {
  stdout: Terminal;
  stderr: Terminal;
  env: NodeJS.ProcessEnv;
  /** Calls `fn` on SIGINT; returns the unsubscribe. */
  onInterrupt(fn: () => void): () => void;
  now(): number;
}

function processIo(): LatencyIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    onInterrupt(fn) {
      process.on('SIGINT', fn);
      return () => process.off('SIGINT', fn);
    },
    now: () => performance.now(),
  };
}

class LocalIoError extends Error {}

/** A capture's file name: sequence, contender, round and text, safe on any file system. */
export function captureName(rec: LatencyRecord): string {
  const label = rec.contender.replace(/[^A-Za-z0-9._-]+/g, '_');
  return `${String(rec.seq).padStart(4, '0')}-${label}-r${rec.round}-t${rec.textIndex}.sse`;
}

function targetsOf(opts: LatencyCliOptions, env: NodeJS.ProcessEnv): LatencyTarget[] | undefined {
  if (opts.targets.length > 0) {
    return opts.targets.map((t) => {
      const key = t.apiKeyEnv !== undefined ? env[t.apiKeyEnv] : opts.apiKey;
      return { label: t.label, baseUrl: t.baseUrl, ...(key !== undefined ? { apiKey: key } : {}) };
    });
  }
  if (opts.baseUrl !== undefined)
    return [{ label: new URL(opts.baseUrl).host, baseUrl: opts.baseUrl, ...(opts.apiKey !== undefined ? { apiKey: opts.apiKey } : {}) }];
  return undefined;
}

async function writeOut(path: string, content: string | Uint8Array): Promise<void> {
  try {
    await writeFile(path, content);
  } catch (err) {
    throw new LocalIoError(`cannot write ${path}: ${(err as Error).message}`);
  }
}

/** The viewer page beside a capture; a capture that does not decode (a broken stream) gets none. */
async function writeViewer(capturePath: string, body: Uint8Array, opts: LatencyCliOptions): Promise<void> {
  let page: string;
  try {
    page = captureViewerHtml(await analyzeCapture(body, opts.format, opts.sampleRate), basename(capturePath));
  } catch {
    return;
  }
  await writeOut(capturePath.replace(/\.sse$/, '.html'), page);
}

export async function run(argv: string[], io: LatencyIo = processIo()): Promise<number> {
  let opts: LatencyCliOptions;
  try {
    opts = parseLatencyArgs(argv, io.env);
  } catch (err) {
    if (!(err instanceof LatencyUsageError)) throw err;
    io.stderr.write(`${PREFIX}${err.message}\n\n${LATENCY_USAGE}`);
    return EXIT_USAGE;
  }
  if (opts.help) {
    io.stdout.write(LATENCY_USAGE);
    return EXIT_OK;
  }
  let texts = opts.texts;
  if (opts.textsFile !== undefined) {
    let content: string;
    try {
      content = await readFile(opts.textsFile, 'utf8');
    } catch (err) {
      io.stderr.write(`${PREFIX}cannot read ${opts.textsFile}: ${(err as Error).message}\n`);
      return EXIT_IO;
    }
    texts = textsFromFile(content);
    if (texts.length === 0) {
      io.stderr.write(`${PREFIX}${opts.textsFile} holds no text (one text per line)\n`);
      return EXIT_USAGE;
    }
  }
  if (texts.length === 0) {
    io.stderr.write(`${PREFIX}no text: give --text "…" or --texts FILE\n\n${LATENCY_USAGE}`);
    return EXIT_USAGE;
  }
  if (opts.record !== undefined) {
    try {
      await mkdir(opts.record, { recursive: true });
    } catch (err) {
      io.stderr.write(`${PREFIX}cannot create ${opts.record}: ${(err as Error).message}\n`);
      return EXIT_IO;
    }
  }

  const controller = new AbortController();
  const offInterrupt = io.onInterrupt(() => controller.abort());
  const progress = createLatencyProgress(io.stderr, io.now);
  const targets = targetsOf(opts, io.env);
  const recordDir = opts.record;
  const options: MeasureLatencyOptions = {
    texts,
    runs: opts.runs,
    concurrency: opts.concurrency,
    warmup: opts.warmup,
    format: opts.format,
    signal: controller.signal,
    stopOn: (rec) => rec.failure !== null && STOPPING_FAILURES.includes(rec.failure.kind),
    onProgress: ({ done, total, record }) => progress.update(done, total, record),
    ...(targets !== undefined ? { targets } : { localService: { pace: opts.pace } }),
    ...(opts.models.length > 0 ? { models: opts.models } : {}),
    ...(opts.sampleRate !== undefined ? { sampleRate: opts.sampleRate } : {}),
    ...(opts.latency !== undefined ? { latency: opts.latency } : {}),
    ...(opts.jitterBuffersMs !== undefined ? { jitterBuffersMs: opts.jitterBuffersMs } : {}),
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    ...(recordDir !== undefined
      ? {
          onBody: async (rec: LatencyRecord, body: Uint8Array) => {
            const path = join(recordDir, captureName(rec));
            await writeOut(path, body);
            await writeViewer(path, body, opts);
            return path;
          },
        }
      : {}),
  };
  let result: LatencyRun;
  try {
    result = await measureLatency(options);
  } catch (err) {
    progress.done();
    if (err instanceof LocalIoError) {
      io.stderr.write(`${PREFIX}${err.message}\n`);
      return EXIT_IO;
    }
    if (err instanceof InvalidOptionError) {
      io.stderr.write(`${PREFIX}${err.message}\n`);
      return EXIT_USAGE;
    }
    throw err;
  } finally {
    offInterrupt();
  }
  progress.done();
  return finish(result, opts, io);
}

/** Prints the table, writes the files, and maps the run to an exit code. */
async function finish(result: LatencyRun, opts: LatencyCliOptions, io: LatencyIo): Promise<number> {
  if (result.records.length > 0) io.stdout.write(runTable(result));
  try {
    if (opts.json !== undefined) await writeOut(opts.json, `${JSON.stringify(result, null, 1)}\n`);
    if (opts.csv !== undefined) await writeOut(opts.csv, latencyCsv(result.records, result.settings.jitterBuffersMs));
    if (opts.html !== undefined) await writeOut(opts.html, latencyReportHtml(result));
  } catch (err) {
    io.stderr.write(`${PREFIX}${(err as Error).message}\n`);
    return EXIT_IO;
  }
  if (result.interrupted) {
    io.stderr.write(`${PREFIX}interrupted after ${result.records.length} measured requests\n`);
    return EXIT_INTERRUPTED;
  }
  const stop = result.stoppedBy?.failure;
  if (stop) {
    if (stop.kind === 'http-4xx') {
      io.stderr.write(`${PREFIX}the service refused the request (${result.stoppedBy!.contender}): ${stop.status} ${stop.message}\n`);
      return EXIT_USAGE;
    }
    const what = stop.kind === 'connection' ? 'cannot reach the service' : 'not a speech stream';
    io.stderr.write(`${PREFIX}${what} (${result.stoppedBy!.contender}): ${stop.message}\n`);
    return EXIT_FAILED;
  }
  const failed = result.records.filter((r) => r.failure !== null).length + result.warmupFailures;
  if (failed > 0) {
    io.stderr.write(`${PREFIX}${failed} request${failed === 1 ? '' : 's'} failed (counted by kind in the table)\n`);
    return EXIT_FAILED;
  }
  return EXIT_OK;
}
