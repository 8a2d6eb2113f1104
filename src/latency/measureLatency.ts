/**
 * `measureLatency`: many requests against one or more speech endpoints, side by side.
 *
 * Contenders (each target × each model) are interleaved: every round sends each text to every
 * contender, the contenders' order rotating from round to round, through one pool of
 * `concurrency` workers. Load on the machine or the network then falls on all of them alike.
 * Each request is one attempt (no retries: a retry would hide an error inside a slow sample).
 */
import { setMaxListeners } from 'node:events';
import { cpus } from 'node:os';
import { createClient } from '../client/createClient.js';
import type { HttpCore } from '../internal/http/http.js';
import { InvalidOptionError } from '../errors.js';
import type { TtsRequest } from '../protocol/ttsRequest.js';
import { createBodyTap, joinChunks, type BodyTap } from './bodyTap.js';
import { ConnectTracker } from './connectTimes.js';
import { measureRequest, type RequestPlan } from './measureRequest.js';
import { summarizeRecords } from './summarize.js';
import type { LatencyRecord, LatencyRun, LatencyTarget, LatencyTask, MeasureLatencyOptions } from './types.js';

export const DEFAULT_RUNS = 10;
export const DEFAULT_WARMUP = 1;
export const DEFAULT_JITTER_BUFFERS_MS = [0, 100, 200];
export const DEFAULT_LATENCY_TIMEOUT_MS = 30_000;
export const LOCAL_LABEL = 'local';
const ABORT_LISTENERS_PER_REQUEST = 4;
const DEFAULT_MAX_LISTENERS = 10;

interface Contender {
  label: string;
  http: HttpCore;
  model: string | undefined;
  headers: Record<string, string>;
}

function positiveInt(name: string, v: number, min: number): number {
  if (!Number.isInteger(v) || v < min) throw new InvalidOptionError(name, `${name} must be an integer ≥ ${min}, got ${String(v)}`);
  return v;
}

/** The run's tasks: warm-up rounds, then measured rounds; in each, text by text, every contender. */
export function planTasks(contenders: readonly string[], texts: number, runs: number, warmup: number): LatencyTask[] {
  const tasks: LatencyTask[] = [];
  for (let r = 0; r < warmup + runs; r++) {
    for (let t = 0; t < texts; t++) {
      for (let c = 0; c < contenders.length; c++) {
        const contender = contenders[(c + r) % contenders.length]!;
        tasks.push({ contender, round: r < warmup ? r : r - warmup, textIndex: t, warmup: r < warmup });
      }
    }
  }
  return tasks;
}

function machine(): LatencyRun['machine'] {
  const c = cpus();
  return {
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    cpus: c[0]?.model ?? 'unknown',
    cpuCount: c.length,
    startedAt: new Date().toISOString(),
  };
}

/**
 * Measures speech latency. Resolves with every measured request's record and the per-contender
 * statistics; when `signal` aborts, with what was measured so far (`interrupted: true`).
 *
 * @example
 * ```ts
 * import { measureLatency } from 'voicewire/latency';
 * const run = await measureLatency({ texts: ['Hello there.'], runs: 20 });
 * console.log(run.summaries[0].figures.firstAudioByteMs.p90);
 * ```
 */
export async function measureLatency(options: MeasureLatencyOptions): Promise<LatencyRun> {
  const texts = options.texts;
  if (texts.length === 0 || texts.some((t) => t.trim() === ''))
    throw new InvalidOptionError('texts', 'texts must hold at least one non-empty text');
  const runs = positiveInt('runs', options.runs ?? DEFAULT_RUNS, 1);
  const warmup = positiveInt('warmup', options.warmup ?? DEFAULT_WARMUP, 0);
  const concurrency = positiveInt('concurrency', options.concurrency ?? 1, 1);
  const jitterBuffersMs = options.jitterBuffersMs ?? DEFAULT_JITTER_BUFFERS_MS;
  for (const b of jitterBuffersMs)
    if (!(b >= 0)) throw new InvalidOptionError('jitterBuffersMs', `jitter buffers must be ≥ 0 ms, got ${b}`);
  const format = options.format ?? 'opus';
  const timeoutMs = options.timeoutMs ?? DEFAULT_LATENCY_TIMEOUT_MS;

  let local: { close(): Promise<void> } | null = null;
  let targets: LatencyTarget[] | undefined = options.targets;
  if (targets === undefined || targets.length === 0) {
    const { startLocalService } = await import('../service/index.js');
    const svc = await startLocalService({
      ...(options.localService?.pace ? { pace: options.localService.pace } : {}),
      ...(options.localService?.faults ? { faults: options.localService.faults } : {}),
    });
    local = svc;
    targets = [{ label: LOCAL_LABEL, baseUrl: svc.baseUrl, apiKey: svc.token }];
  }
  const tap: BodyTap | null = options.onBody ? createBodyTap() : null;
  const models = options.models && options.models.length > 0 ? options.models : [undefined];
  const contenders: Contender[] = [];
  for (const t of targets) {
    const client = createClient({
      baseUrl: t.baseUrl,
      ...(t.apiKey !== undefined ? { apiKey: t.apiKey } : {}),
      maxRetries: 0,
      ...(tap ? { fetch: tap.fetch } : {}),
    });
    for (const m of models) {
      const label = targets.length > 1 && m !== undefined ? `${t.label}/${m}` : targets.length > 1 || m === undefined ? t.label : m;
      contenders.push({ label, http: client.http, model: m, headers: { ...t.headers } });
    }
  }
  const labels = contenders.map((c) => c.label);
  if (new Set(labels).size !== labels.length)
    throw new InvalidOptionError('targets', `contender labels must differ, got ${labels.join(', ')}`);
  const byLabel = new Map(contenders.map((c) => [c.label, c]));

  const tracker = new ConnectTracker();
  const controller = new AbortController();
  // Every request in flight listens to it (the client, its HTTP core, the engine).
  setMaxListeners(Math.max(ABORT_LISTENERS_PER_REQUEST * concurrency, DEFAULT_MAX_LISTENERS), controller.signal);
  const onAbort = (): void => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });

  const tasks = planTasks(labels, texts.length, runs, warmup);
  const records: LatencyRecord[] = [];
  let next = 0;
  let done = 0;
  let stoppedBy: LatencyRecord | null = null;
  let warmupFailures = 0;
  let measuredStart = NaN;
  let cpuStart: NodeJS.CpuUsage | null = null;
  const warmupCount = tasks.filter((t) => t.warmup).length;
  const startClock = (): void => {
    measuredStart = performance.now();
    cpuStart = process.cpuUsage();
  };
  if (warmupCount === 0) startClock();

  const worker = async (): Promise<void> => {
    while (!controller.signal.aborted && stoppedBy === null && next < tasks.length) {
      const seq = next++;
      const task = tasks[seq]!;
      if (!task.warmup && Number.isNaN(measuredStart)) startClock();
      const c = byLabel.get(task.contender)!;
      const request: TtsRequest = { text: texts[task.textIndex]!, format };
      if (options.sampleRate !== undefined) request.sample_rate = options.sampleRate;
      if (options.latency !== undefined) request.latency = options.latency;
      const plan: RequestPlan = {
        contender: task.contender,
        round: task.round,
        textIndex: task.textIndex,
        seq,
        request,
        model: c.model,
        headers: { ...c.headers, ...options.requestHeaders?.(task) },
        jitterBuffersMs,
      };
      const id = String(seq);
      const copy = tap !== null && !task.warmup ? tap.watch(id) : null;
      const rec = await measureRequest(plan, { http: c.http, tracker, signal: controller.signal, timeoutMs, now: options.now });
      tap?.forget(id);
      done++;
      if (rec.failure !== null && rec.failure.kind !== 'aborted' && options.stopOn?.(rec) === true) stoppedBy ??= rec;
      if (task.warmup) {
        if (rec.failure !== null && rec.failure.kind !== 'aborted') warmupFailures++;
        options.onProgress?.({ done, total: tasks.length, record: null });
        continue;
      }
      records.push(rec);
      if (copy !== null && copy.bytes > 0 && !copy.truncated && options.onBody) {
        const path = await options.onBody(rec, joinChunks(copy));
        if (typeof path === 'string') rec.capturePath = path;
      }
      options.onProgress?.({ done, total: tasks.length, record: rec });
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, worker));
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    tracker.close();
    await local?.close();
  }
  const cpu = cpuStart === null ? null : process.cpuUsage(cpuStart);
  records.sort((a, b) => a.seq - b.seq);
  return {
    records,
    summaries: summarizeRecords(labels, records, jitterBuffersMs),
    interrupted: controller.signal.aborted,
    stoppedBy,
    warmupFailures,
    settings: {
      contenders: labels,
      texts: texts.length,
      runs,
      concurrency,
      warmup,
      format,
      latency: options.latency ?? null,
      jitterBuffersMs,
      local: local !== null,
    },
    machine: machine(),
    elapsedMs: Number.isNaN(measuredStart) ? 0 : performance.now() - measuredStart,
    cpuMs: cpu === null ? 0 : (cpu.user + cpu.system) / 1000,
  };
}
